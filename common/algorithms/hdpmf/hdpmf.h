// HDPMF of Hu and Fang (docs/algorithms.md, "hdpmf"): full-batch alternating gradient descent in
// which every user sends the server its m x K item gradient plus a share of Laplace noise, summed
// through SecAgg; the server steps V, each user steps its own u_i on the device (its state). Paper
// mode stretches each rating by W_ij = beta_i gamma_j and calibrates the noise to one rating; sound
// mode clips a user's whole gradient to L1 norm C, scales it by beta_i and calibrates to one user.
// This file: the configuration's checks, the step schedule, the per-round epsilons and the
// ledger's entries, the noise shares and the fixed-point codec of a round.
//
// Summed noise (config.simulation_summed_noise, fedmf-sim --plain_sum --summed_noise; not the
// noiseless variant mf): the users upload their gradient without noise and sparsely (the K values
// of each rated item), and the updater adds to the decoded sum what the shares of its n
// contributors would add, exactly in distribution (SummedNoise). The shares' fixed-point rounding
// is left out (the per-user path rounds every share, each coordinate of each user moving by less
// than a unit 2^-f: variance below n / 4 units^2, against the noise's 2 b^2 n / n_min), and so is
// the discarded round of a noise sum beyond the codec's range (probability kWrapProbability).
#ifndef FEDMF_COMMON_ALGORITHMS_HDPMF_HDPMF_H_
#define FEDMF_COMMON_ALGORITHMS_HDPMF_HDPMF_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/dp/privacy_ledger.h"
#include "common/dp/rng.h"
#include "fedmf/v1/hdpmf.pb.h"

namespace fedmf::algorithms::hdpmf {

inline constexpr absl::string_view kName = "hdpmf";
// Defaults of the flags: the paper's K, T, lambda and initial step (from its grids) on ML-100K.
inline constexpr int kDefaultRank = 10;
inline constexpr double kDefaultLearningRate = 0.001;
inline constexpr double kDefaultLambda = 0.01;
inline constexpr double kDefaultInitScale = 0.01;
inline constexpr double kDefaultClip = 1;
inline constexpr double kDefaultScoreLambda = 1;
// The probability, per round, that a valid sum leaves the codec's range (the round is discarded).
inline constexpr double kWrapProbability = 1e-12;

// InvalidArgument naming the first bad field (a configuration may come from the network).
absl::Status ValidateConfig(const v1::HdpmfConfig& config);

// m * K: the plan's length (V's gradient, row-major).
int64_t GradientDim(const v1::HdpmfConfig& config);
// eta_t: eta_0 for the first 25% of the epochs (4t < T), eta_0 / 5 until 75% (4t < 3T), then / 25.
double StepSize(const v1::HdpmfConfig& config, int64_t round);

// The largest per-round epsilon of the release (beta = 1): dp::SplitPureEpsilon(epsilon, T); for
// DPMF the uniform epsilon of every rating, times the smallest weight; for PDPMF its t; 0 for MF
// (no noise).
double RoundEpsilon(const v1::HdpmfConfig& config);
// mean(beta) mean(gamma) over the specification's users and items (public; the mean over the
// training ratings would be data-dependent).
double MeanRatingWeight(const v1::HdpmfConfig& config);
// PDPMF's t: the mean rating budget, eps_r times pdpmf_mean_weight when set, else
// MeanRatingWeight; stepped by ulps.
double PdpmfThreshold(const v1::HdpmfConfig& config);
// The init_center of the option init_center's default: the rating scale's midpoint, times
// MeanRatingWeight when the ratings are stretched (the targets' scale).
double DefaultInitCenter(const v1::HdpmfConfig& config);
// PDPMF's pi(R_ij, t) for a rating of weight W_ij and t = `threshold` (PdpmfThreshold; eq. 5):
// (e^(W eps_r) - 1) / (e^t - 1) when W eps_r < t, else 1.
double PdpmfKeepProbability(const v1::HdpmfConfig& config, double threshold, double rating_weight);
// User i's own per-round epsilon: dp::SplitPureEpsilon(beta_i epsilon, T), at most RoundEpsilon (so
// T rounds add up to at most beta_i epsilon). HDPMF variant only.
double UserRoundEpsilon(const v1::HdpmfConfig& config, double privacy_weight);
// Laplace scale b of each coordinate of the round's summed noise: 2 sqrt(K) Delta / eps_r (paper,
// Theorem 2; DPMF and PDPMF with their RoundEpsilon), 2 C / eps_r
// (sound: replace-one of a vector of L1 norm <= beta_i C); 0 for MF.
double NoiseScale(const v1::HdpmfConfig& config);
// One client's noise share of `dim` coordinates: b (G1 - G2), G ~ Gamma(1 / n_min, 1) i.i.d.
// (common/dp/laplace.h), so any n >= n_min shares sum to Laplace(b) plus independent symmetric
// noise. Zeros for MF.
absl::StatusOr<Eigen::VectorXd> NoiseShare(const v1::HdpmfConfig& config, int64_t dim,
                                           dp::Rng& rng);
// What `contributors` clients' NoiseShare add up to, in one draw of `dim` coordinates:
// b (G1 - G2), G ~ Gamma(contributors / n_min, 1) (dp::SummedGammaDifferenceLaplaceShares).
// Zeros for MF.
absl::StatusOr<Eigen::VectorXd> SummedNoise(const v1::HdpmfConfig& config, int64_t contributors,
                                            int64_t dim, dp::Rng& rng);

// What round `round` releases about the worst-case record (nullopt for MF): pure RoundEpsilon,
// unit rating (paper mode) or user (sound mode), heterogeneous for the HDPMF variant.
std::optional<dp::LedgerEntry> RoundRelease(const v1::HdpmfConfig& config, int64_t round,
                                            int64_t participants);
// What the round costs user i with weight beta_i on its own ledger: the release with its pure
// epsilon UserRoundEpsilon(beta_i) (the release itself for DPMF), one participant.
std::optional<dp::LedgerEntry> UserCost(const v1::HdpmfConfig& config, int64_t round,
                                        double privacy_weight);

// V_0 (m x K) and a user's u_i^0 from the public seed (data-independent): init_center / sqrt(K)
// (V) and 1 / sqrt(K) (u, unless init_center = 0) plus N(0, init_scale^2) per coordinate, u on
// the unit ball; so u^T v starts near init_center.
Eigen::MatrixXd InitialItemFactors(const v1::HdpmfConfig& config);
Eigen::VectorXd InitialUserFactor(const v1::HdpmfConfig& config, uint32_t participant_id);

// A round's fixed-point codec, a function of the configuration and the broadcast V only, so the
// clients and the server derive the same one. Every client's signal coordinate is within `bound`
// (paper mode: 2 (max_j ||v_j|| + max |rating|), as ||u|| <= 1; sound mode: C); the sum of at most
// cohort_size vectors is within cohort_size * bound + z b with z the tail of the noise sum (a
// difference of Gamma(cohort / n_min) variables, Chernoff bound) at kWrapProbability over all
// coordinates. Values are scaled by 2^fraction_bits and the sum lives in Z_{2^bits}.
struct RoundCodec {
  double bound = 0;  // per client, per coordinate, of the signal
  int fraction_bits = 0;
  double range = 0;  // integer range [-range, range] of a valid sum
  int bits = 0;

  // The client's values: stochastic rounding of value * 2^fraction_bits, mod 2^bits. OutOfRange
  // for a value whose integer would not fit (a noise draw beyond 2^60 units: astronomically rare).
  absl::StatusOr<std::vector<uint64_t>> Encode(const Eigen::Ref<const Eigen::VectorXd>& values,
                                               dp::Rng& rng) const;
  // The sum as reals; OutOfRange (the round must be discarded) for a coordinate beyond the range.
  absl::StatusOr<Eigen::VectorXd> Decode(absl::Span<const uint64_t> sum) const;
};
absl::StatusOr<RoundCodec> MakeRoundCodec(const v1::HdpmfConfig& config,
                                          const Eigen::MatrixXd& item_factors);

}  // namespace fedmf::algorithms::hdpmf

#endif  // FEDMF_COMMON_ALGORITHMS_HDPMF_HDPMF_H_
