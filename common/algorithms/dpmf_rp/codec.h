// The privatized encoding of one user's projected gradient X = S F (p x k) into a vector in
// Z_{2^b} and the decoding of a sum of such vectors into an estimate of the sum of the X's:
//   pbm:      X clipped and rotated as config.h PbmGeometry says (column_l1: L1 clip Delta_1 and
//             FlatMat, p' x k entries within c = Delta_1 / sqrt(p'); rotated_l2: L2 clip C, one
//             rotation of the flattened X, D entries clamped to c = gamma C / sqrt(D)), ScalarPBM
//             per entry; length D = PbmDimension, values in [0, q]; decoded by PbmDecodeSum and
//             the inverse rotation.
//   gaussian: X (flattening buys nothing for an L2 mechanism) through dp::GaussianSecAgg (L2 clip
//             to the Gaussian clip, fixed point, noise for n_min clients); length p k. With
//             config.simulation_summed_noise the users encode without noise and AddSummedNoise
//             adds the sum's, and a process may upload its users' clipped sum at once (AddToSum,
//             EncodeSum; gaussian_secagg.h).
//   ddg:      X flattened, zero-padded to D = DdgDimension and rotated by one randomized Hadamard
//             transform (as PBM's rotated_l2), then dp::DistributedDiscreteGaussian: L2 clip C,
//             clamp to ddg_clip_multiplier C / sqrt(D), scale gamma, conditional randomized
//             rounding, N_Z(0, v) per coordinate, mod 2^b; length D; decoded by the DDG's checked
//             decode and the inverse rotation.
//   none:     X in fixed point with scale gamma by unbiased stochastic rounding, mod 2^b. Every
//             entry of X = (S w) u^T obeys |X_lh| <= L = e (1 + kappa) B1 * (most items in one
//             bucket of S) (|w_j| <= (1 + kappa) e, ||u||_1 <= B1), so a sum of at most n_max
//             vectors lies in [-R, R], R = n_max (gamma L + 1), and 2^(b-1) > 2R; length p k.
// Vectors hold the matrix entries in column-major order. Encode and DecodeSum are const and
// thread-safe; clients and server build the same codec from the same broadcast.
#ifndef FEDMF_COMMON_ALGORITHMS_DPMF_RP_CODEC_H_
#define FEDMF_COMMON_ALGORITHMS_DPMF_RP_CODEC_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/algorithms/dpmf_rp/config.h"
#include "common/dp/distributed_discrete_gaussian.h"
#include "common/dp/gaussian_secagg.h"
#include "common/dp/hadamard.h"
#include "common/dp/pbm.h"
#include "common/dp/rng.h"
#include "common/dp/sparse_projection.h"
#include "fedmf/v1/dpmf_rp.pb.h"

namespace fedmf::algorithms::dpmf_rp {

// Items per row of S, diag(S S^T).
Eigen::VectorXd BucketItems(const dp::SparseProjection& projection);
// The most items in one row of S; 1 without projection.
int64_t MaxBucketItems(const std::optional<dp::SparseProjection>& projection);
// L of mechanism none.
double NoneCoordinateBound(const DpmfRpConfig& config, int64_t max_bucket_items);
// The DDG of a round for noise sigma (real units, sum of n_min clients) and scale gamma.
absl::StatusOr<dp::DistributedDiscreteGaussian> MakeDdg(const DpmfRpConfig& config,
                                                        double noise_std, double scale);

class ContributionCodec {
 public:
  // `max_bucket_items`: MaxBucketItems of the round's S. Error if `params` lacks what
  // config.mechanism needs or the sum needs more than 62 bits.
  static absl::StatusOr<ContributionCodec> Create(const DpmfRpConfig& config,
                                                  const v1::DpmfRpMechanism& params,
                                                  uint64_t hadamard_seed, int64_t max_bucket_items);

  int64_t length() const { return length_; }  // d
  int bits() const { return bits_; }          // b of the sum
  int client_bits() const { return client_bits_; }
  int64_t min_contributors() const { return min_contributors_; }
  int64_t max_contributors() const { return max_contributors_; }

  // `x` is p x k. Error on a shape mismatch, a non-finite entry, or (none) an entry beyond L.
  absl::StatusOr<std::vector<uint64_t>> Encode(const Eigen::MatrixXd& x, dp::Rng& rng) const;
  // simulation_summed_noise only (else FailedPrecondition): adds the noise of `contributors`
  // users' shares to their noiseless sum, at once.
  absl::Status AddSummedNoise(absl::Span<uint64_t> sum, int64_t contributors, dp::Rng& rng) const;
  // simulation_summed_noise only (summed_uploads() false otherwise): a process's users' X = a b^T
  // (a: p, b: k) clipped and added in real units into `sum` (p x k, AddToSum), and that sum's
  // noiseless encoding (EncodeSum), which stands for all of them in the sum of the uploads
  // (dp::GaussianSecAgg's summed uploads). FailedPrecondition without summed noise; the
  // mechanism's InvalidArgument for a shape mismatch or a non-finite entry.
  bool summed_uploads() const { return summed_noise_; }
  absl::Status AddToSum(const Eigen::VectorXd& a, const Eigen::VectorXd& b,
                        Eigen::MatrixXd& sum) const;
  absl::StatusOr<std::vector<uint64_t>> EncodeSum(const Eigen::MatrixXd& sum, dp::Rng& rng) const;
  // The sum mod 2^b of `contributors` encodings -> estimate of the sum of their X (p x k).
  absl::StatusOr<Eigen::MatrixXd> DecodeSum(absl::Span<const uint64_t> sum,
                                            int64_t contributors) const;

 private:
  ContributionCodec() = default;

  Mechanism mechanism_ = Mechanism::kPbm;
  bool summed_noise_ = false;  // gaussian: config.simulation_summed_noise
  int64_t rows_ = 0;           // p
  int rank_ = 0;               // k
  int64_t length_ = 0;
  int bits_ = 0;
  int client_bits_ = 0;
  int64_t min_contributors_ = 0;
  int64_t max_contributors_ = 0;
  // pbm
  PbmGeometry geometry_ = PbmGeometry::kColumnL1;
  std::optional<dp::RandomizedHadamard> hadamard_;
  dp::PbmParams pbm_;
  double clip_ = 0;  // Delta_1 (L1) or C (L2), config.h PbmGeometry
  // gaussian
  std::optional<dp::GaussianSecAgg> gaussian_;
  // ddg (with hadamard_)
  std::optional<dp::DistributedDiscreteGaussian> ddg_;
  // none
  double scale_ = 0;
  double linf_bound_ = 0;
  double range_ = 0;
};

}  // namespace fedmf::algorithms::dpmf_rp

#endif  // FEDMF_COMMON_ALGORITHMS_DPMF_RP_CODEC_H_
