#include "common/dp/gaussian_secagg.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/dp/clipping.h"
#include "common/dp/fixed_point.h"
#include "common/dp/samplers.h"
#include "common/util/positive_finite.h"

namespace fedmf::dp {

absl::StatusOr<GaussianSecAgg> GaussianSecAgg::Create(const GaussianSecAggParams& params) {
  const GaussianSecAggParams& p = params;
  if (p.dim < 1 || !IsPositiveFinite(p.clip_norm) || !IsPositiveFinite(p.scale) ||
      !std::isfinite(p.noise_std) || p.noise_std < 0 || !std::isfinite(p.linf_bound) ||
      p.linf_bound < 0 || p.min_clients < 1 || p.max_clients < p.min_clients ||
      !(p.wrap_probability > 0 && p.wrap_probability < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("GaussianSecAgg: invalid parameters d=", p.dim, " c=", p.clip_norm,
                     " L=", p.linf_bound, " sigma=", p.noise_std, " n_min=", p.min_clients,
                     " n_max=", p.max_clients, " gamma=", p.scale, " eta=", p.wrap_probability));
  }
  GaussianSecAggParams resolved = params;
  if (resolved.linf_bound == 0 || resolved.linf_bound > resolved.clip_norm) {
    resolved.linf_bound = resolved.clip_norm;
  }
  const double n_max = static_cast<double>(p.max_clients);
  const double noise_std_grid =
      p.scale * p.noise_std / std::sqrt(static_cast<double>(p.min_clients));
  // Each client: |R(gamma x_j)| <= gamma L + 1 and |R(gamma xi) - gamma xi| < 1.
  const double deterministic = n_max * (p.scale * resolved.linf_bound + 2);
  const double range =
      SumRange(deterministic, n_max * noise_std_grid * noise_std_grid, p.wrap_probability, p.dim);
  absl::StatusOr<int> bits = ModulusBitsForRange(range);
  if (!bits.ok()) return bits.status();
  return GaussianSecAgg(resolved, *bits, range);
}

GaussianSecAgg::GaussianSecAgg(const GaussianSecAggParams& params, int bits, double range)
    : params_(params), bits_(bits), range_(range) {}

double GaussianSecAgg::per_client_noise_std() const {
  return params_.noise_std / std::sqrt(static_cast<double>(params_.min_clients));
}

double GaussianSecAgg::l2_sensitivity() const {
  return params_.clip_norm + std::sqrt(static_cast<double>(params_.dim)) / params_.scale;
}

absl::StatusOr<std::vector<uint64_t>> GaussianSecAgg::Encode(
    const Eigen::Ref<const Eigen::VectorXd>& x, Rng& rng) const {
  return Encode(x, /*noise=*/true, rng);
}

absl::StatusOr<std::vector<uint64_t>> GaussianSecAgg::EncodeWithoutNoise(
    const Eigen::Ref<const Eigen::VectorXd>& x, Rng& rng) const {
  return Encode(x, /*noise=*/false, rng);
}

absl::StatusOr<std::vector<uint64_t>> GaussianSecAgg::Encode(
    const Eigen::Ref<const Eigen::VectorXd>& x, bool noise, Rng& rng) const {
  if (x.size() != params_.dim) {
    return absl::InvalidArgumentError(absl::StrCat("GaussianSecAgg::Encode: input has ", x.size(),
                                                   " entries, expected d=", params_.dim));
  }
  absl::StatusOr<Eigen::VectorXd> clipped = ClipL2(x, params_.clip_norm);
  if (!clipped.ok()) return clipped.status();
  const double gamma = params_.scale;
  const double noise_std_grid = gamma * per_client_noise_std();
  const double linf = params_.linf_bound;
  std::vector<uint64_t> out(x.size());
  for (Eigen::Index j = 0; j < x.size(); ++j) {
    // The overflow bound assumes |x_j| <= L. Clamping can only shrink the norm.
    const double value = std::clamp((*clipped)[j], -linf, linf);
    if (!noise) {
      out[j] = RoundWithoutNoise(value, rng);
      continue;
    }
    const int64_t data = StochasticRound(gamma * value, rng);
    const int64_t share = StochasticRound(noise_std_grid * StandardNormal(rng), rng);
    out[j] = ReduceModPow2(data + share, bits_);
  }
  return out;
}

uint64_t GaussianSecAgg::RoundWithoutNoise(double value, Rng& rng) const {
  // R(0) = 0 whatever the draw: skipping it changes no distribution.
  return value == 0 ? 0 : ReduceModPow2(StochasticRound(params_.scale * value, rng), bits_);
}

absl::Status GaussianSecAgg::AddClipped(const Eigen::Ref<const Eigen::VectorXd>& x,
                                        Eigen::Ref<Eigen::VectorXd> sum) const {
  if (x.size() != params_.dim || sum.size() != params_.dim) {
    return absl::InvalidArgumentError(absl::StrCat("GaussianSecAgg::AddClipped: input has ",
                                                   x.size(), " entries and the sum ", sum.size(),
                                                   ", expected d=", params_.dim));
  }
  absl::StatusOr<Eigen::VectorXd> clipped = ClipL2(x, params_.clip_norm);
  if (!clipped.ok()) return clipped.status();
  sum += clipped->cwiseMax(-params_.linf_bound).cwiseMin(params_.linf_bound);
  return absl::OkStatus();
}

absl::Status GaussianSecAgg::AddClippedRankOne(const Eigen::Ref<const Eigen::VectorXd>& a,
                                               const Eigen::Ref<const Eigen::VectorXd>& b,
                                               Eigen::Ref<Eigen::MatrixXd> sum) const {
  if (a.size() * b.size() != params_.dim || sum.rows() != a.size() || sum.cols() != b.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GaussianSecAgg::AddClippedRankOne: ", a.size(), " x ", b.size(), " input and ", sum.rows(),
        " x ", sum.cols(), " sum, expected d=", params_.dim, " entries"));
  }
  if (!a.allFinite() || !b.allFinite()) {
    return absl::InvalidArgumentError(
        "GaussianSecAgg::AddClippedRankOne: input has a NaN or infinite entry");
  }
  const double norm = a.norm() * b.norm();
  const double factor = norm <= params_.clip_norm ? 1 : params_.clip_norm / norm * (1 - 1e-12);
  const double largest = factor * a.cwiseAbs().maxCoeff() * b.cwiseAbs().maxCoeff();
  if (largest <= params_.linf_bound) {
    sum.noalias() += (factor * a) * b.transpose();
    return absl::OkStatus();
  }
  // Some coordinate reaches the clamp, which is not rank one: clamp the scaled outer product.
  const Eigen::MatrixXd x = (factor * a) * b.transpose();
  sum += x.cwiseMax(-params_.linf_bound).cwiseMin(params_.linf_bound);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<uint64_t>> GaussianSecAgg::EncodeClippedSum(
    const Eigen::Ref<const Eigen::VectorXd>& sum, Rng& rng) const {
  if (sum.size() != params_.dim) {
    return absl::InvalidArgumentError(absl::StrCat("GaussianSecAgg::EncodeClippedSum: sum has ",
                                                   sum.size(),
                                                   " entries, expected d=", params_.dim));
  }
  if (!sum.allFinite()) {
    return absl::InvalidArgumentError(
        "GaussianSecAgg::EncodeClippedSum: sum has a NaN or infinite entry");
  }
  std::vector<uint64_t> out(sum.size());
  for (Eigen::Index j = 0; j < sum.size(); ++j) out[j] = RoundWithoutNoise(sum[j], rng);
  return out;
}

absl::Status GaussianSecAgg::AddSummedNoise(absl::Span<uint64_t> sum, int64_t clients,
                                            Rng& rng) const {
  if (absl::Status s = CheckSum(sum.size(), clients, "AddSummedNoise"); !s.ok()) return s;
  const double std_grid =
      params_.scale * per_client_noise_std() * std::sqrt(static_cast<double>(clients));
  for (uint64_t& coordinate : sum) {
    const int64_t noise = StochasticRound(std_grid * StandardNormal(rng), rng);
    coordinate = ReduceModPow2(static_cast<int64_t>(coordinate) + noise, bits_);
  }
  return absl::OkStatus();
}

absl::Status GaussianSecAgg::CheckSum(size_t size, int64_t clients, absl::string_view what) const {
  if (static_cast<int64_t>(size) != params_.dim || clients < params_.min_clients ||
      clients > params_.max_clients) {
    return absl::InvalidArgumentError(
        absl::StrCat("GaussianSecAgg::", what, ": sum of ", size, " coordinates from ", clients,
                     " clients; expected d=", params_.dim, " and clients in [", params_.min_clients,
                     ", ", params_.max_clients, "]"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Eigen::VectorXd> GaussianSecAgg::Decode(absl::Span<const uint64_t> sum,
                                                       int64_t clients) const {
  if (absl::Status s = CheckSum(sum.size(), clients, "Decode"); !s.ok()) return s;
  return DecodeCheckedSum(sum, bits_, range_, params_.scale);
}

}  // namespace fedmf::dp
