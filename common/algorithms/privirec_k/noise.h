// PriviRec-k's DP option (beyond the paper; docs/privacy-accounting.md section 4.10): with
// config.epsilon > 0 every user adds distributed discrete Gaussian noise (dp/ddg_sums.h, as
// PriviRec's noise.h) to the degree sum and to each of the L power sums, and the L + 1 releases
// together are whole-run, user-level (epsilon, delta)-DP (replace-one: one user's vectors change
// in every sum).
//   degrees:  the item indicator R_u, L2-clipped to sqrt(D) (D = degree_clip), as PriviRec's.
//   power l:  A_u^T (A_u X_(l-1)) (privirec_k.h PowerStep), m k coordinates, Frobenius norm <= 1:
//             X_(l-1) has orthonormal columns in every phase (X_0 the Q of a public Gaussian
//             matrix, X_l the Householder Q of the noisy Y_l: orthonormal whatever Y_l is), and
//             every degree a user divides by is the post-processed noisy degree, 0 (the item is
//             unseen, skipped) or >= 1. Clip 1, linf 1 (the mechanism's clip only absorbs x's
//             rounding). Replace-one L2 sensitivity 2 before scaling (2 sqrt(D) for the degrees).
// Noise parties: every user (noise_parties 0), or a noise committee of c = noise_parties users
// (dp/noise_committee.h, docs/privacy-accounting.md section 4.11) that add the whole noise, each
// a share of variance (gamma sigma)^2 / c; every other user clips, scales and rounds its vector
// alike but adds no noise, so its contribution stays sparse. A noise party's vector is dense
// (m k noisy coordinates per power sum, m per degree sum), so a config whose noise party's power
// vector m k exceeds one message (privirec::kMaxDenseCodes) or whose noise parties' power vectors
// c m k exceed kMaxNoisyCoordinates (the simulator holds every user's vector) is refused.
// Budget split: one gamma and one noise multiplier z for the L + 1 sums (dp/ddg_sums.h); the L
// power sums share one std.
// Post-processing (free): a decoded degree below 1 becomes 0.
// Wrapping: a sum's modulus has b bits with 2^(b-1) > 2 (n (gamma L + 1) + 20 sqrt(n v)) (dp/
// distributed_discrete_gaussian.h), b <= 61 (the largest gamma = 2^j, j <= 24, that fits), so a
// decoded coordinate wraps only with probability <= 1e-9 per sum, and Decode reports it.
#ifndef FEDMF_COMMON_ALGORITHMS_PRIVIREC_K_NOISE_H_
#define FEDMF_COMMON_ALGORITHMS_PRIVIREC_K_NOISE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/algorithms/contribution_vector.h"
#include "common/algorithms/privirec/noise.h"
#include "common/algorithms/privirec_k/privirec_k.h"
#include "common/dp/ddg_sums.h"
#include "common/dp/privacy_ledger.h"
#include "common/dp/rng.h"
#include "fedmf/v1/privirec_k.pb.h"

namespace fedmf::algorithms::privirec_k {

// The most noisy power-sum coordinates of the noise parties (c m k), 2^31: 16 GiB of 64-bit codes.
inline constexpr uint64_t kMaxNoisyCoordinates = uint64_t{1} << 31;

bool Noisy(const v1::PriviRecKConfig& config);
// The users that add noise: noise_parties, or every user when it is 0.
int64_t NoiseParties(const v1::PriviRecKConfig& config);
// InvalidArgument naming the field and flag: epsilon >= 0 finite; noise_parties 0 without
// epsilon; with epsilon > 0, delta in (0, 1), degree_clip >= 1, noise_parties in [0, n],
// m k <= privirec::kMaxDenseCodes and c m k <= kMaxNoisyCoordinates.
absl::Status ValidateNoiseConfig(const v1::PriviRecKConfig& config);
// The whole-run budget: (epsilon, delta)-DP per user.
dp::PrivacyBudget NoiseBudget(const v1::PriviRecKConfig& config);

// The L + 1 sums' gamma and noise stds for the budget.
absl::StatusOr<v1::PriviRecKNoise> CalibrateNoise(const v1::PriviRecKConfig& config);
// The mechanism of `phase` (0: degrees, 1..L: power sums).
absl::StatusOr<dp::DistributedDiscreteGaussian> PhaseDdg(const v1::PriviRecKConfig& config,
                                                         const v1::PriviRecKNoise& noise,
                                                         int phase);
// The ledger entry of `phase`'s release (dp/ddg_sums.h).
absl::StatusOr<dp::LedgerEntry> PhaseLedgerEntry(const v1::PriviRecKConfig& config,
                                                 const v1::PriviRecKNoise& noise, int phase,
                                                 int64_t participants,
                                                 const std::vector<double>& orders);

// Whether a user adds its noise share (a noise party) or only its rounded vector.
using privirec::NoiseShare;

// A user's contribution to the degree phase from its sorted, distinct items: dense and noisy
// (kAdd), or its sparse rounded vector (kNone).
absl::StatusOr<ContributionVector> NoisyDegrees(const v1::PriviRecKConfig& config,
                                                const v1::PriviRecKNoise& noise,
                                                absl::Span<const int32_t> items, NoiseShare share,
                                                dp::Rng& rng);
// A user's contribution to power phase `phase`: PowerStep with the broadcast noisy degrees (m,
// each 0 or >= 1) and iterate x, dense and noisy (kAdd) or sparse and rounded (kNone).
absl::StatusOr<ContributionVector> NoisyPowerStep(const v1::PriviRecKConfig& config,
                                                  const v1::PriviRecKNoise& noise, int phase,
                                                  absl::Span<const int32_t> items,
                                                  absl::Span<const double> noisy_degrees,
                                                  const Eigen::Ref<const RowMatrix>& x,
                                                  NoiseShare share, dp::Rng& rng);

// The decoded noisy degree sum, post-processed (below 1: 0).
absl::StatusOr<std::vector<double>> DecodeNoisyDegrees(const v1::PriviRecKConfig& config,
                                                       const v1::PriviRecKNoise& noise,
                                                       absl::Span<const uint64_t> sum,
                                                       int64_t clients);
// The decoded noisy Y (m x k) of power phase `phase`.
absl::StatusOr<RowMatrix> DecodeNoisyPowerSum(const v1::PriviRecKConfig& config,
                                              const v1::PriviRecKNoise& noise, int phase,
                                              absl::Span<const uint64_t> sum, int64_t clients);

}  // namespace fedmf::algorithms::privirec_k

#endif  // FEDMF_COMMON_ALGORITHMS_PRIVIREC_K_NOISE_H_
