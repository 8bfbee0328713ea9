#include "common/dp/pbm.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/dp/samplers.h"

namespace fedmf::dp {
namespace {

constexpr double kRoundingSlack = 1e-12;

// x clamped to [-c, c] according to the policy; `index` names the coordinate in errors.
absl::StatusOr<double> Bounded(double x, const PbmParams& params, PbmRangePolicy policy,
                               int64_t index) {
  const double c = params.clip;
  if (std::isnan(x)) {
    return absl::InvalidArgumentError(absl::StrCat("PBM input ", index, " is NaN"));
  }
  if (policy == PbmRangePolicy::kReject && std::abs(x) > c * (1 + kRoundingSlack)) {
    return absl::InvalidArgumentError(
        absl::StrCat("PBM input ", index, " = ", x, " is outside [-c, c] with c = ", c));
  }
  return std::clamp(x, -c, c);
}

absl::Status ValidateClients(int64_t clients) {
  if (clients < 1) {
    return absl::InvalidArgumentError(absl::StrCat("PBM: client count ", clients, " must be >= 1"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidatePbmParams(const PbmParams& params) {
  if (!std::isfinite(params.clip) || !(params.clip > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("PBM: clip c=", params.clip, " must be > 0"));
  }
  if (!(params.theta > 0) || !(params.theta <= 0.25)) {
    return absl::InvalidArgumentError(
        absl::StrCat("PBM: theta=", params.theta, " must be in (0, 1/4]"));
  }
  if (params.trials < 1 || params.trials > (int64_t{1} << 32)) {
    return absl::InvalidArgumentError(
        absl::StrCat("PBM: trials q=", params.trials, " must be in [1, 2^32]"));
  }
  return absl::OkStatus();
}

double PbmSuccessProbability(double x, const PbmParams& params) {
  return params.theta / params.clip * x + 0.5;
}

absl::StatusOr<uint64_t> ScalarPbm(double x, const PbmParams& params, PbmRangePolicy policy,
                                   Rng& rng) {
  if (absl::Status s = ValidatePbmParams(params); !s.ok()) return s;
  absl::StatusOr<double> bounded = Bounded(x, params, policy, 0);
  if (!bounded.ok()) return bounded.status();
  return Binomial(rng, static_cast<uint64_t>(params.trials),
                  PbmSuccessProbability(*bounded, params));
}

absl::StatusOr<std::vector<uint64_t>> PbmEncode(const Eigen::Ref<const Eigen::VectorXd>& x,
                                                const PbmParams& params, PbmRangePolicy policy,
                                                Rng& rng) {
  if (absl::Status s = ValidatePbmParams(params); !s.ok()) return s;
  std::vector<uint64_t> z(x.size());
  for (Eigen::Index j = 0; j < x.size(); ++j) {
    absl::StatusOr<double> bounded = Bounded(x[j], params, policy, j);
    if (!bounded.ok()) return bounded.status();
    z[j] = Binomial(rng, static_cast<uint64_t>(params.trials),
                    PbmSuccessProbability(*bounded, params));
  }
  return z;
}

absl::StatusOr<Eigen::VectorXd> PbmDecodeSum(absl::Span<const uint64_t> sum,
                                             const PbmParams& params, int64_t clients) {
  if (absl::Status s = ValidatePbmParams(params); !s.ok()) return s;
  if (absl::Status s = ValidateClients(clients); !s.ok()) return s;
  const uint64_t max_sum = static_cast<uint64_t>(clients) * static_cast<uint64_t>(params.trials);
  const double center = 0.5 * static_cast<double>(max_sum);
  const double unit = params.clip / (static_cast<double>(params.trials) * params.theta);
  Eigen::VectorXd out(static_cast<Eigen::Index>(sum.size()));
  for (size_t j = 0; j < sum.size(); ++j) {
    if (sum[j] > max_sum) {
      return absl::InvalidArgumentError(
          absl::StrCat("PBM sum coordinate ", j, " = ", sum[j], " exceeds clients * q = ", max_sum,
                       " (wrong client count or corrupted aggregate)"));
    }
    out[static_cast<Eigen::Index>(j)] = unit * (static_cast<double>(sum[j]) - center);
  }
  return out;
}

absl::StatusOr<Eigen::VectorXd> PbmDecodeMean(absl::Span<const uint64_t> sum,
                                              const PbmParams& params, int64_t clients) {
  absl::StatusOr<Eigen::VectorXd> total = PbmDecodeSum(sum, params, clients);
  if (!total.ok()) return total.status();
  return Eigen::VectorXd(*total / static_cast<double>(clients));
}

double PbmSumVarianceBound(const PbmParams& params, int64_t clients) {
  const double q = static_cast<double>(params.trials);
  return static_cast<double>(clients) * params.clip * params.clip /
         (4 * q * params.theta * params.theta);
}

int PbmSumBits(int64_t clients, int64_t trials) {
  return static_cast<int>(
      std::bit_width(static_cast<uint64_t>(clients) * static_cast<uint64_t>(trials)));
}

}  // namespace fedmf::dp
