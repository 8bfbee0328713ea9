#include "common/dp/distributed_discrete_gaussian.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/dp/clipping.h"
#include "common/dp/fixed_point.h"
#include "common/util/positive_finite.h"

namespace fedmf::dp {

namespace {

constexpr int kMaxRoundingAttempts = 1000;

}  // namespace

absl::StatusOr<std::vector<int64_t>> ConditionalStochasticRound(
    const Eigen::Ref<const Eigen::VectorXd>& y, uint64_t norm2_bound, Rng& rng) {
  if (!y.allFinite() || (y.size() > 0 && y.cwiseAbs().maxCoeff() >= 0x1p31)) {
    return absl::InvalidArgumentError(
        "ConditionalStochasticRound: entries must be finite with magnitude below 2^31");
  }
  std::vector<int64_t> rounded(y.size());
  for (int attempt = 0; attempt < kMaxRoundingAttempts; ++attempt) {
    unsigned __int128 norm2 = 0;
    for (Eigen::Index j = 0; j < y.size(); ++j) {
      rounded[j] = StochasticRound(y[j], rng);
      norm2 += static_cast<unsigned __int128>(rounded[j] * rounded[j]);  // |rounded| <= 2^31
    }
    if (norm2 <= norm2_bound) return rounded;
  }
  return absl::InternalError(absl::StrCat("ConditionalStochasticRound: ", kMaxRoundingAttempts,
                                          " roundings all exceeded the squared norm bound ",
                                          norm2_bound));
}

absl::StatusOr<DistributedDiscreteGaussian> DistributedDiscreteGaussian::Create(
    const DistributedDiscreteGaussianParams& params) {
  const DistributedDiscreteGaussianParams& p = params;
  if (p.dim < 1 || !IsPositiveFinite(p.clip_norm) || !IsPositiveFinite(p.scale) ||
      !IsPositiveFinite(p.noise_std) || !std::isfinite(p.linf_bound) || p.linf_bound < 0 ||
      p.min_clients < 1 || p.max_clients < p.min_clients || p.noise_clients < 0 ||
      p.noise_clients > p.min_clients || !(p.rounding_beta >= 0 && p.rounding_beta < 1) ||
      !(p.wrap_probability > 0 && p.wrap_probability < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "DistributedDiscreteGaussian: invalid parameters d=", p.dim, " c=", p.clip_norm,
        " L=", p.linf_bound, " sigma=", p.noise_std, " n_min=", p.min_clients,
        " n_max=", p.max_clients, " noise_clients=", p.noise_clients, " gamma=", p.scale,
        " beta=", p.rounding_beta, " eta=", p.wrap_probability));
  }
  DistributedDiscreteGaussianParams resolved = params;
  if (resolved.linf_bound == 0 || resolved.linf_bound > resolved.clip_norm) {
    resolved.linf_bound = resolved.clip_norm;
  }
  const double scaled_clip = p.scale * p.clip_norm;
  const double sqrt_d = std::sqrt(static_cast<double>(p.dim));
  if (!(scaled_clip + sqrt_d < 0x1p31)) {
    return absl::InvalidArgumentError(
        absl::StrCat("DistributedDiscreteGaussian: gamma c + sqrt(d) = ", scaled_clip + sqrt_d,
                     " must be below 2^31"));
  }
  double norm2 = (scaled_clip + sqrt_d) * (scaled_clip + sqrt_d);
  if (p.rounding_beta > 0) {
    norm2 = std::min(
        norm2, scaled_clip * scaled_clip + 0.25 * static_cast<double>(p.dim) +
                   std::sqrt(2 * std::log(1 / p.rounding_beta)) * (scaled_clip + 0.5 * sqrt_d));
  }
  const uint64_t norm2_bound = static_cast<uint64_t>(std::floor(norm2));

  const double grid_std = p.scale * p.noise_std;
  const int64_t noise_clients = p.noise_clients > 0 ? p.noise_clients : p.min_clients;
  absl::StatusOr<Rational> variance =
      RationalUpperBound(grid_std * grid_std / static_cast<double>(noise_clients));
  if (!variance.ok()) return variance.status();
  absl::StatusOr<DiscreteGaussianSampler> sampler = DiscreteGaussianSampler::Create(*variance);
  if (!sampler.ok()) return sampler.status();

  const double v = static_cast<double>(variance->num) / static_cast<double>(variance->den);
  const double n_max = static_cast<double>(p.max_clients);
  const double per_coordinate =
      std::min(p.scale * resolved.linf_bound + 1, std::sqrt(static_cast<double>(norm2_bound)));
  // Every client's rounded vector, the committee's noise (or every client's).
  const double noisy = p.noise_clients > 0 ? static_cast<double>(p.noise_clients) : n_max;
  const double range = SumRange(n_max * per_coordinate, noisy * v, p.wrap_probability, p.dim);
  absl::StatusOr<int> bits = ModulusBitsForRange(range);
  if (!bits.ok()) return bits.status();
  return DistributedDiscreteGaussian(resolved, *std::move(sampler), norm2_bound, *bits, range);
}

DistributedDiscreteGaussian::DistributedDiscreteGaussian(
    const DistributedDiscreteGaussianParams& params, DiscreteGaussianSampler sampler,
    uint64_t norm2_bound, int bits, double range)
    : params_(params),
      sampler_(std::move(sampler)),
      norm2_bound_(norm2_bound),
      bits_(bits),
      range_(range) {}

absl::StatusOr<std::vector<int64_t>> DistributedDiscreteGaussian::Round(
    const Eigen::Ref<const Eigen::VectorXd>& x, Rng& rng) const {
  absl::StatusOr<Eigen::VectorXd> clipped = ClipL2(x, params_.clip_norm);
  if (!clipped.ok()) return clipped.status();
  const double linf = params_.linf_bound;
  const Eigen::VectorXd scaled = params_.scale * clipped->cwiseMax(-linf).cwiseMin(linf);
  return ConditionalStochasticRound(scaled, norm2_bound_, rng);
}

absl::StatusOr<std::vector<uint64_t>> DistributedDiscreteGaussian::Encode(
    const Eigen::Ref<const Eigen::VectorXd>& x, Rng& rng) const {
  if (x.size() != params_.dim) {
    return absl::InvalidArgumentError(
        absl::StrCat("DistributedDiscreteGaussian::Encode: input has ", x.size(),
                     " entries, expected d=", params_.dim));
  }
  absl::StatusOr<std::vector<int64_t>> rounded = Round(x, rng);
  if (!rounded.ok()) return rounded.status();
  std::vector<uint64_t> out(x.size());
  for (Eigen::Index j = 0; j < x.size(); ++j) {
    absl::StatusOr<int64_t> noise = sampler_.Sample(rng);
    if (!noise.ok()) return noise.status();
    out[j] = ReduceModPow2((*rounded)[j] + *noise, bits_);
  }
  return out;
}

absl::StatusOr<std::vector<uint64_t>> DistributedDiscreteGaussian::EncodeSupport(
    const Eigen::Ref<const Eigen::VectorXd>& support_values, Rng& rng) const {
  if (support_values.size() > params_.dim) {
    return absl::InvalidArgumentError(
        absl::StrCat("DistributedDiscreteGaussian::EncodeSupport: ", support_values.size(),
                     " support values, more than d=", params_.dim));
  }
  absl::StatusOr<std::vector<int64_t>> rounded = Round(support_values, rng);
  if (!rounded.ok()) return rounded.status();
  std::vector<uint64_t> out;
  out.reserve(rounded->size());
  for (int64_t r : *rounded) out.push_back(ReduceModPow2(r, bits_));
  return out;
}

absl::StatusOr<Eigen::VectorXd> DistributedDiscreteGaussian::Decode(absl::Span<const uint64_t> sum,
                                                                    int64_t clients) const {
  if (static_cast<int64_t>(sum.size()) != params_.dim || clients < params_.min_clients ||
      clients > params_.max_clients) {
    return absl::InvalidArgumentError(
        absl::StrCat("DistributedDiscreteGaussian::Decode: sum of ", sum.size(),
                     " coordinates from ", clients, " clients; expected d=", params_.dim,
                     " and clients in [", params_.min_clients, ", ", params_.max_clients, "]"));
  }
  return DecodeCheckedSum(sum, bits_, range_, params_.scale);
}

}  // namespace fedmf::dp
