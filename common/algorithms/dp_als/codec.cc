#include "common/algorithms/dp_als/codec.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/dp_als/config.h"
#include "common/dp/fixed_point.h"

namespace fedmf::algorithms::dp_als {

dp::DdgSum DdgStatistics(const v1::DpAlsConfig& config) {
  return {.dim = StatisticsLength(config), .clip_norm = 1, .linf_bound = CoordinateBound(config)};
}

dp::DdgPopulation DdgUsers(const v1::DpAlsConfig& config) {
  return {.users = config.num_users(), .noise_parties = config.num_users()};
}

int64_t GaussianMinClients(const v1::DpAlsConfig& config) {
  return config.secure_aggregation() ? config.num_users() : 1;
}

absl::StatusOr<StatisticsCodec> StatisticsCodec::Create(const v1::DpAlsConfig& config,
                                                        const v1::DpAlsNoise& noise) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  StatisticsCodec codec;
  codec.length_ = StatisticsLength(config);
  codec.users_ = config.num_users();
  switch (config.mechanism()) {
    case v1::DpAlsConfig::MECHANISM_DDG: {
      absl::StatusOr<dp::DistributedDiscreteGaussian> ddg =
          dp::SumDdg(DdgStatistics(config),
                     {.scale = noise.scale(), .noise_std = noise.noise_std()}, DdgUsers(config));
      if (!ddg.ok()) return ddg.status();
      codec.bits_ = ddg->modulus_bits();
      codec.ddg_.emplace(*std::move(ddg));
      break;
    }
    case v1::DpAlsConfig::MECHANISM_GAUSSIAN: {
      absl::StatusOr<dp::GaussianSecAgg> gaussian =
          dp::GaussianSecAgg::Create({.dim = codec.length_,
                                      .clip_norm = 1,
                                      .linf_bound = CoordinateBound(config),
                                      .noise_std = noise.noise_std(),
                                      .min_clients = GaussianMinClients(config),
                                      .max_clients = codec.users_,
                                      .scale = std::ldexp(1.0, config.fixed_point_bits())});
      if (!gaussian.ok()) return gaussian.status();
      codec.bits_ = gaussian->modulus_bits();
      codec.gaussian_.emplace(*std::move(gaussian));
      break;
    }
    default: {  // none (ValidateConfig admits no other)
      codec.scale_ = std::ldexp(1.0, config.fixed_point_bits());
      codec.bound_ = CoordinateBound(config);
      codec.range_ =
          std::ceil(static_cast<double>(codec.users_) * (codec.scale_ * codec.bound_ + 1));
      absl::StatusOr<int> bits = dp::ModulusBitsForRange(codec.range_);
      if (!bits.ok()) return bits.status();
      codec.bits_ = *bits;
      break;
    }
  }
  if (codec.bits_ > kMaxSumBits) {
    return absl::InvalidArgumentError(absl::StrCat("dp-als: the sum needs ", codec.bits_,
                                                   " bits > ", kMaxSumBits,
                                                   "; lower fixed_point_bits"));
  }
  return codec;
}

absl::StatusOr<ContributionVector> StatisticsCodec::Encode(const SparseStatistics& stats,
                                                           dp::Rng& rng) const {
  if (ddg_.has_value() || gaussian_.has_value()) {
    const Eigen::VectorXd dense = Densify(stats, length_);
    absl::StatusOr<std::vector<uint64_t>> codes =
        ddg_.has_value() ? ddg_->Encode(dense, rng) : gaussian_->Encode(dense, rng);
    if (!codes.ok()) return codes.status();
    return ContributionVector::Dense(*std::move(codes));
  }
  std::vector<uint64_t> values(stats.indices.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const double x = std::clamp(stats.values[static_cast<Eigen::Index>(i)], -bound_, bound_);
    values[i] = dp::ReduceModPow2(dp::StochasticRound(scale_ * x, rng), bits_);
  }
  return ContributionVector::Sparse(stats.indices, std::move(values));
}

absl::StatusOr<Eigen::VectorXd> StatisticsCodec::DecodeSum(absl::Span<const uint64_t> sum,
                                                           int64_t contributors) const {
  if (static_cast<int64_t>(sum.size()) != length_ || contributors != users_) {
    return absl::InvalidArgumentError(absl::StrCat("dp-als: a sum of ", sum.size(), " values from ",
                                                   contributors, " users; expected ", length_,
                                                   " from ", users_));
  }
  if (ddg_.has_value()) return ddg_->Decode(sum, contributors);
  if (gaussian_.has_value()) return gaussian_->Decode(sum, contributors);
  return dp::DecodeCheckedSum(sum, bits_, range_, scale_);
}

}  // namespace fedmf::algorithms::dp_als
