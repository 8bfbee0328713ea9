#include "common/algorithms/dpmf_rp/codec.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dp/clipping.h"
#include "common/dp/fixed_point.h"
#include "common/dp/pbm_calibration.h"

namespace fedmf::algorithms::dpmf_rp {
namespace {

// Relative rounding slack on the none bound: |x| <= L holds mathematically, but the sums behind x
// are computed in floating point.
constexpr double kBoundSlack = 1e-9;

Eigen::Map<const Eigen::VectorXd> AsVector(const Eigen::MatrixXd& m) {
  return Eigen::Map<const Eigen::VectorXd>(m.data(), m.size());
}

}  // namespace

Eigen::VectorXd BucketItems(const dp::SparseProjection& projection) {
  Eigen::VectorXd counts = Eigen::VectorXd::Zero(projection.output_dim());
  for (int64_t j = 0; j < projection.input_dim(); ++j) counts[projection.bucket(j)] += 1;
  return counts;
}

int64_t MaxBucketItems(const std::optional<dp::SparseProjection>& projection) {
  if (!projection.has_value()) return 1;
  return static_cast<int64_t>(BucketItems(*projection).maxCoeff());
}

double NoneCoordinateBound(const DpmfRpConfig& config, int64_t max_bucket_items) {
  return config.error_clip * (1 + config.kappa) * config.user_l1_clip *
         static_cast<double>(max_bucket_items);
}

absl::StatusOr<dp::DistributedDiscreteGaussian> MakeDdg(const DpmfRpConfig& config,
                                                        double noise_std, double scale) {
  const int64_t d = DdgDimension(config);
  const double clip = ContributionClip(config);
  return dp::DistributedDiscreteGaussian::Create(
      {.dim = d,
       .clip_norm = clip,
       .linf_bound = config.ddg_clip_multiplier * clip / std::sqrt(static_cast<double>(d)),
       .noise_std = noise_std,
       .min_clients = MinContributors(config),
       .max_clients = CohortSize(config),
       .scale = scale,
       .wrap_probability = config.wrap_probability});
}

absl::StatusOr<ContributionCodec> ContributionCodec::Create(const DpmfRpConfig& config,
                                                            const v1::DpmfRpMechanism& params,
                                                            uint64_t hadamard_seed,
                                                            int64_t max_bucket_items) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  ContributionCodec codec;
  codec.mechanism_ = config.mechanism;
  codec.summed_noise_ = config.simulation_summed_noise;
  codec.rows_ = ProjectedDim(config);
  codec.rank_ = config.rank;
  codec.min_contributors_ = MinContributors(config);
  codec.max_contributors_ = CohortSize(config);
  const double scale = std::ldexp(1.0, config.fixed_point_bits);
  const int64_t unflattened_length = codec.rows_ * codec.rank_;
  switch (config.mechanism) {
    case Mechanism::kPbm: {
      codec.geometry_ = config.pbm_geometry;
      // column_l1 rotates each of the k columns; rotated_l2 the whole flattened X at once.
      absl::StatusOr<dp::RandomizedHadamard> hadamard = dp::RandomizedHadamard::Create(
          codec.geometry_ == PbmGeometry::kColumnL1 ? codec.rows_ : unflattened_length,
          hadamard_seed);
      if (!hadamard.ok()) return hadamard.status();
      codec.clip_ = ContributionClip(config);
      codec.pbm_ = {
          .clip = PbmCoordinateClip(config), .theta = params.pbm_theta(), .trials = params.pbm_q()};
      if (absl::Status s = dp::ValidatePbmParams(codec.pbm_); !s.ok()) return s;
      codec.length_ = PbmDimension(config);
      codec.client_bits_ = dp::BitsFor(codec.pbm_.trials);
      // cohort * q must fit the widest SecAgg word (62 bits); checked before multiplying.
      if (codec.max_contributors_ > (int64_t{1} << 62) / codec.pbm_.trials) {
        return absl::InvalidArgumentError("dpmf-rp: cohort * q does not fit in 62 bits");
      }
      codec.bits_ = dp::BitsFor(codec.max_contributors_ * codec.pbm_.trials);
      codec.hadamard_.emplace(*std::move(hadamard));
      break;
    }
    case Mechanism::kGaussian: {
      absl::StatusOr<dp::GaussianSecAgg> gaussian =
          dp::GaussianSecAgg::Create({.dim = unflattened_length,
                                      .clip_norm = ContributionClip(config),
                                      .linf_bound = 0,
                                      .noise_std = params.gaussian_noise_std(),
                                      .min_clients = codec.min_contributors_,
                                      .max_clients = codec.max_contributors_,
                                      .scale = scale,
                                      .wrap_probability = config.wrap_probability});
      if (!gaussian.ok()) return gaussian.status();
      codec.length_ = unflattened_length;
      codec.bits_ = codec.client_bits_ = gaussian->modulus_bits();
      codec.gaussian_.emplace(*std::move(gaussian));
      break;
    }
    case Mechanism::kDdg: {
      absl::StatusOr<dp::DistributedDiscreteGaussian> ddg =
          MakeDdg(config, params.ddg_noise_std(), params.ddg_scale());
      if (!ddg.ok()) return ddg.status();
      absl::StatusOr<dp::RandomizedHadamard> hadamard =
          dp::RandomizedHadamard::Create(unflattened_length, hadamard_seed);
      if (!hadamard.ok()) return hadamard.status();
      codec.length_ = DdgDimension(config);
      codec.bits_ = codec.client_bits_ = ddg->modulus_bits();
      codec.ddg_.emplace(*std::move(ddg));
      codec.hadamard_.emplace(*std::move(hadamard));
      break;
    }
    case Mechanism::kNone: {
      if (max_bucket_items < 1 || max_bucket_items > config.num_items) {
        return absl::InvalidArgumentError(
            absl::StrCat("dpmf-rp codec: max_bucket_items=", max_bucket_items, " not in [1, m]"));
      }
      const double bound = NoneCoordinateBound(config, max_bucket_items);
      codec.scale_ = scale;
      codec.linf_bound_ = bound;
      codec.range_ = std::ceil(static_cast<double>(codec.max_contributors_) * (scale * bound + 1));
      absl::StatusOr<int> bits = dp::ModulusBitsForRange(codec.range_);
      if (!bits.ok()) return bits.status();
      codec.length_ = unflattened_length;
      codec.bits_ = codec.client_bits_ = *bits;
      break;
    }
  }
  return codec;
}

absl::StatusOr<std::vector<uint64_t>> ContributionCodec::Encode(const Eigen::MatrixXd& x,
                                                                dp::Rng& rng) const {
  if (x.rows() != rows_ || x.cols() != rank_) {
    return absl::InvalidArgumentError(absl::StrCat("dpmf-rp codec: contribution is ", x.rows(),
                                                   " x ", x.cols(), ", expected ", rows_, " x ",
                                                   rank_));
  }
  if (!x.allFinite()) {
    return absl::InvalidArgumentError("dpmf-rp codec: contribution has a non-finite entry");
  }
  switch (mechanism_) {
    case Mechanism::kPbm: {
      const bool column_l1 = geometry_ == PbmGeometry::kColumnL1;
      absl::StatusOr<Eigen::VectorXd> clipped =
          column_l1 ? dp::ClipL1(AsVector(x), clip_) : dp::ClipL2(AsVector(x), clip_);
      if (!clipped.ok()) return clipped.status();
      absl::StatusOr<Eigen::MatrixXd> flat = hadamard_->Flatten(Eigen::Map<const Eigen::MatrixXd>(
          clipped->data(), column_l1 ? rows_ : x.size(), column_l1 ? rank_ : 1));
      if (!flat.ok()) return flat.status();
      // The L2 accounting (PbmL2OverClip) relies on the rotation keeping the clipped norm.
      if (flat->norm() > clip_ * (1 + kPbmNormSlack)) {
        return absl::InternalError(absl::StrCat("dpmf-rp codec: rotated contribution has norm ",
                                                flat->norm(), " above the clip ", clip_));
      }
      // column_l1's bound is deterministic, so an entry beyond c is a bug (rejected); rotated_l2
      // clamps the rare large rotated entry.
      return dp::PbmEncode(AsVector(*flat), pbm_,
                           column_l1 ? dp::PbmRangePolicy::kReject : dp::PbmRangePolicy::kClamp,
                           rng);
    }
    case Mechanism::kGaussian:
      return summed_noise_ ? gaussian_->EncodeWithoutNoise(AsVector(x), rng)
                           : gaussian_->Encode(AsVector(x), rng);
    case Mechanism::kDdg: {
      // The rotation is orthonormal, so the DDG's L2 clip after it equals a clip before it.
      absl::StatusOr<Eigen::MatrixXd> rotated =
          hadamard_->Flatten(Eigen::Map<const Eigen::MatrixXd>(x.data(), x.size(), 1));
      if (!rotated.ok()) return rotated.status();
      return ddg_->Encode(AsVector(*rotated), rng);
    }
    case Mechanism::kNone: {
      std::vector<uint64_t> out(static_cast<size_t>(x.size()));
      for (Eigen::Index j = 0; j < x.size(); ++j) {
        const double value = x.data()[j];
        if (std::abs(value) > linf_bound_ * (1 + kBoundSlack)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "dpmf-rp codec: coordinate ", j, " = ", value, " exceeds the bound ", linf_bound_));
        }
        const double clamped = std::clamp(value, -linf_bound_, linf_bound_);
        out[static_cast<size_t>(j)] =
            dp::ReduceModPow2(dp::StochasticRound(scale_ * clamped, rng), bits_);
      }
      return out;
    }
  }
  return absl::InternalError("dpmf-rp codec: unknown mechanism");
}

absl::Status ContributionCodec::AddSummedNoise(absl::Span<uint64_t> sum, int64_t contributors,
                                               dp::Rng& rng) const {
  if (!summed_noise_) {
    return absl::FailedPreconditionError(
        "dpmf-rp codec: the users add the noise (simulation_summed_noise is off)");
  }
  return gaussian_->AddSummedNoise(sum, contributors, rng);
}

absl::Status ContributionCodec::AddToSum(const Eigen::VectorXd& a, const Eigen::VectorXd& b,
                                         Eigen::MatrixXd& sum) const {
  if (!summed_noise_) {
    return absl::FailedPreconditionError(
        "dpmf-rp codec: summed uploads need simulation_summed_noise");
  }
  return gaussian_->AddClippedRankOne(a, b, sum);
}

absl::StatusOr<std::vector<uint64_t>> ContributionCodec::EncodeSum(const Eigen::MatrixXd& sum,
                                                                   dp::Rng& rng) const {
  if (!summed_noise_) {
    return absl::FailedPreconditionError(
        "dpmf-rp codec: summed uploads need simulation_summed_noise");
  }
  return gaussian_->EncodeClippedSum(AsVector(sum), rng);
}

absl::StatusOr<Eigen::MatrixXd> ContributionCodec::DecodeSum(absl::Span<const uint64_t> sum,
                                                             int64_t contributors) const {
  if (static_cast<int64_t>(sum.size()) != length_) {
    return absl::InvalidArgumentError(
        absl::StrCat("dpmf-rp codec: sum has ", sum.size(), " values, expected ", length_));
  }
  if (contributors < min_contributors_ || contributors > max_contributors_) {
    return absl::InvalidArgumentError(absl::StrCat("dpmf-rp codec: sum of ", contributors,
                                                   " contributions; the round accepts ",
                                                   min_contributors_, " to ", max_contributors_));
  }
  switch (mechanism_) {
    case Mechanism::kPbm: {
      absl::StatusOr<Eigen::VectorXd> flat = dp::PbmDecodeSum(sum, pbm_, contributors);
      if (!flat.ok()) return flat.status();
      const int64_t columns = geometry_ == PbmGeometry::kColumnL1 ? rank_ : 1;
      absl::StatusOr<Eigen::MatrixXd> total = hadamard_->Reverse(
          Eigen::Map<const Eigen::MatrixXd>(flat->data(), hadamard_->padded_rows(), columns));
      if (!total.ok()) return total.status();
      return Eigen::MatrixXd(Eigen::Map<const Eigen::MatrixXd>(total->data(), rows_, rank_));
    }
    case Mechanism::kGaussian: {
      absl::StatusOr<Eigen::VectorXd> total = gaussian_->Decode(sum, contributors);
      if (!total.ok()) return total.status();
      return Eigen::MatrixXd(Eigen::Map<const Eigen::MatrixXd>(total->data(), rows_, rank_));
    }
    case Mechanism::kDdg: {
      absl::StatusOr<Eigen::VectorXd> rotated = ddg_->Decode(sum, contributors);
      if (!rotated.ok()) return rotated.status();
      absl::StatusOr<Eigen::MatrixXd> total = hadamard_->Reverse(
          Eigen::Map<const Eigen::MatrixXd>(rotated->data(), hadamard_->padded_rows(), 1));
      if (!total.ok()) return total.status();
      return Eigen::MatrixXd(Eigen::Map<const Eigen::MatrixXd>(total->data(), rows_, rank_));
    }
    case Mechanism::kNone: {
      absl::StatusOr<Eigen::VectorXd> total = dp::DecodeCheckedSum(sum, bits_, range_, scale_);
      if (!total.ok()) return total.status();
      return Eigen::MatrixXd(Eigen::Map<const Eigen::MatrixXd>(total->data(), rows_, rank_));
    }
  }
  return absl::InternalError("dpmf-rp codec: unknown mechanism");
}

}  // namespace fedmf::algorithms::dpmf_rp
