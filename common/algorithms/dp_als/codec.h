// The privatized encoding of one user's weighted statistics (statistics.h, L2 norm <= 1, every
// coordinate within config.h's CoordinateBound L) into Z_{2^b}^D, and the decoding of a sum of
// such vectors into the sum of the statistics plus noise. Every user of the run is in every sum.
//   ddg:      dp::DistributedDiscreteGaussian over the whole population (dp/ddg_sums.h SumDdg:
//             clip 1, clamp L, scale gamma, conditional rounding, N_Z(0, v) per coordinate, every
//             user a noise party); dense.
//   gaussian: dp::GaussianSecAgg (clip 1, clamp L, scale 2^f, stochastic rounding, N(0, sigma^2 /
//             n_min) per coordinate, rounded) with n_min = n under secure aggregation, 1 for clear
//             uploads (each user's upload then carries the whole noise); dense.
//   none:     the user's non-zero coordinates in fixed point (scale 2^f, unbiased stochastic
//             rounding), sparse; the sum of n users is in [-R, R], R = n (2^f L + 1), and
//             2^(b-1) > 2R, so nothing wraps.
// Clients and the coordinator build the same codec from the broadcast config and noise.
#ifndef FEDMF_COMMON_ALGORITHMS_DP_ALS_CODEC_H_
#define FEDMF_COMMON_ALGORITHMS_DP_ALS_CODEC_H_

#include <cstdint>
#include <optional>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/algorithms/contribution_vector.h"
#include "common/algorithms/dp_als/statistics.h"
#include "common/dp/ddg_sums.h"
#include "common/dp/distributed_discrete_gaussian.h"
#include "common/dp/gaussian_secagg.h"
#include "common/dp/rng.h"
#include "fedmf/v1/dp_als.pb.h"

namespace fedmf::algorithms::dp_als {

// Most bits of a sum (a SecAgg word holds 62; a double 53 of precision beyond the noise).
inline constexpr int kMaxSumBits = 61;

// What the DDG sees of the run: one sum of D coordinates, clip 1, clamp L; every user adds noise.
dp::DdgSum DdgStatistics(const v1::DpAlsConfig& config);
dp::DdgPopulation DdgUsers(const v1::DpAlsConfig& config);
// n_min of the Gaussian: n with secure aggregation, else 1.
int64_t GaussianMinClients(const v1::DpAlsConfig& config);

class StatisticsCodec {
 public:
  // InvalidArgument for a config ValidateConfig refuses or noise the mechanism cannot use.
  static absl::StatusOr<StatisticsCodec> Create(const v1::DpAlsConfig& config,
                                                const v1::DpAlsNoise& noise);

  int64_t length() const { return length_; }  // D
  int bits() const { return bits_; }
  int64_t users() const { return users_; }  // n: every sum has them all

  absl::StatusOr<ContributionVector> Encode(const SparseStatistics& stats, dp::Rng& rng) const;
  // OutOfRange when a coordinate may have wrapped; InvalidArgument for a sum of another length
  // or of another number of users than n.
  absl::StatusOr<Eigen::VectorXd> DecodeSum(absl::Span<const uint64_t> sum,
                                            int64_t contributors) const;

 private:
  StatisticsCodec() = default;

  int64_t length_ = 0;
  int bits_ = 0;
  int64_t users_ = 0;
  std::optional<dp::DistributedDiscreteGaussian> ddg_;
  std::optional<dp::GaussianSecAgg> gaussian_;
  // none
  double scale_ = 0;
  double bound_ = 0;
  double range_ = 0;
};

}  // namespace fedmf::algorithms::dp_als

#endif  // FEDMF_COMMON_ALGORITHMS_DP_ALS_CODEC_H_
