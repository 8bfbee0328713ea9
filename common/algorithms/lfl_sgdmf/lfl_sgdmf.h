// LFL-SGDMF, the FMF privacy paper's cross-device algorithm (Li et al., VLDB 2022, Sec. 6;
// docs/algorithms.md, "lfl-sgdmf"). Every user is a party: stage 1 pre-trains u_i on the device
// against the public V_0 (no noise, u_i never leaves the device); each round t, every invited user
// samples one of its ratings (i, j) and sends, through secure aggregation with threshold
// n_min = ceil((1 - omega) n), the dense m x p gradient of (x_ij - <u_i, v_j>)^2 with respect to V
// (one non-zero row, norm <= 2 R^{3/2} under embedding clipping) plus noise xi ~ N(0, v_1 I).
// Two-phase noise: the n_1 survivors of that sum are then asked for -xi + xi', xi' ~ N(0, v_2 I),
// and the server steps V <- Pi(V - eta / n_1 (S_1 + lambda S_2)).
//
// What the server learns is the pair (S_1, S_2), not S_1 + S_2 as the paper's Theorem 5 counts:
// the data-dependent part of S_1 is a Gaussian release with effective noise variance
// Var = (n_1 - n_2) v_1 + n_2 v_1 v_2 / (v_1 + v_2) (dp::TwoRoundReplacementNoiseStddev), which
// is smallest when nobody drops out of phase 2 and then only about sigma^2 / 2 with the paper's
// zeta_1 = 1/n_min, zeta_2 = 1/n_1. Our two-phase mode doubles both (v_1 = 2 sigma^2 / n_min,
// v_2 = 2 sigma^2 / n_1), so the view holds >= sigma^2 for every dropout pattern; the ledger
// always charges what the view holds: S_1's Gaussian at phase 0, and the exact increment to the
// pair's Gaussian at phase 1. lambda = n_2 v_1 / (n_2 v_1 + n_2 v_2) combines the sums into the
// best linear estimate of the gradient sum, whose noise variance is then exactly Var; the paper
// mode keeps the paper's lambda = 1. The single-phase mode (v_1 = sigma^2 / n_min, no phase 1)
// is the plain SecAgg Gaussian; section "lfl-sgdmf" of docs/algorithms.md says when two phases pay.
//
// This file: the configuration's checks, the noise of each phase, the releases, the calibration,
// the fixed-point coding of the uploads and the public initialization.
#ifndef FEDMF_COMMON_ALGORITHMS_LFL_SGDMF_LFL_SGDMF_H_
#define FEDMF_COMMON_ALGORITHMS_LFL_SGDMF_LFL_SGDMF_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/privacy_ledger.h"
#include "common/dp/rng.h"
#include "fedmf/v1/lfl_sgdmf.pb.h"

namespace fedmf::algorithms::lfl_sgdmf {

inline constexpr absl::string_view kAlgorithmName = "lfl-sgdmf";

// InvalidArgument naming the first bad field (a configuration may come from the network).
absl::Status ValidateConfig(const v1::LflSgdmfConfig& config);

// "none", "single", "two-phase-paper", "two-phase" and back.
absl::string_view NoiseModeName(v1::LflNoiseMode mode);
absl::StatusOr<v1::LflNoiseMode> ParseNoiseMode(absl::string_view name);

bool HasPhase1(const v1::LflSgdmfConfig& config);  // the two-phase modes
// ceil((1 - omega) cohort), at least 1.
int64_t MinContributors(int64_t cohort_size, double omega);

// L2 sensitivity of one user's phase-0 upload in real units: one rating's gradient bound
// 2 R^{3/2} plus sqrt(m p) / scale for the stochastic rounding of the m p coordinates.
double Sensitivity(const v1::LflSgdmfConfig& config);
int64_t UploadLength(const v1::LflSgdmfConfig& config);  // m p

// Per-user noise variances: v_1 of phase 0, v_2 of phase 1 given n_1 survivors of phase 0.
double Phase0Variance(const v1::LflSgdmfConfig& config);
double Phase1Variance(const v1::LflSgdmfConfig& config, int64_t phase1_survivors);
// Weight of S_2 in the gradient estimate S_1 + lambda S_2 (see above; 1 in the paper mode).
double ReplacementWeight(const v1::LflSgdmfConfig& config, int64_t phase1_survivors,
                         int64_t phase2_survivors);
// Noise std of the gradient sum in the server's view: after phase 0 alone (phase2 nullopt),
// or after both phases.
double ViewNoiseStddev(const v1::LflSgdmfConfig& config, int64_t phase1_survivors,
                       std::optional<int64_t> phase2_survivors);

// The run's budget: (epsilon, delta)-DP, or RDP at order 2 when delta is 0; user level.
dp::PrivacyBudget Budget(const v1::LflSgdmfConfig& config);
// The smallest sigma such that `rounds` releases whose view holds sigma^2 fit the budget (the
// worst case of the single and two-phase modes; the paper mode's Theorem 5 claims the same).
absl::StatusOr<double> CalibrateNoiseStddev(const v1::LflSgdmfConfig& config);

// The ledger entries: phase 0's S_1 (a Gaussian of std ViewNoiseStddev(n_1)), and phase 1's
// increment from it to the pair's Gaussian (RDP alpha Delta^2 / 2 (1/Var_pair - 1/Var_1)), so the
// entries of a round add up to the pair's RDP. The pair is charged as if all n_1 answered phase 1:
// its variance falls linearly as n_2 grows, so that is the worst case, known before phase 1 runs
// (the coordinator checks the budget before a phase). nullopt without noise.
absl::StatusOr<std::optional<dp::LedgerEntry>> PhaseRelease(const v1::LflSgdmfConfig& config,
                                                            int64_t round, int phase,
                                                            int64_t phase1_survivors,
                                                            const std::vector<double>& orders);
// What a whole round can cost, known before its phase 0: the view after its last phase is a
// Gaussian whose variance grows with n_1 in every mode (sigma^2 n_1 / n_min single,
// 2 sigma^2 n_1 / (n_1 + n_min) two-phase, half that in the paper's mode, nobody lost in phase
// 1), so the round costs at most its release at n_1 = n_min. nullopt without noise.
absl::StatusOr<std::optional<dp::LedgerEntry>> RoundReleaseBound(const v1::LflSgdmfConfig& config,
                                                                 int64_t round,
                                                                 const std::vector<double>& orders);

// Fixed point: every coordinate scaled by config.scale and rounded stochastically, mod 2^bits.
// SumBits: the modulus such that a sum of cohort_size uploads of either phase wraps with
// probability <= wrap_probability (dp/fixed_point.h).
absl::StatusOr<int> SumBits(const v1::LflSgdmfConfig& config);
absl::StatusOr<std::vector<uint64_t>> EncodeUpload(const v1::LflSgdmfConfig& config,
                                                   const Eigen::Ref<const Eigen::VectorXd>& values,
                                                   dp::Rng& rng);
// The decoded real sum; OutOfRange if it may have wrapped (the phase is then discarded).
absl::StatusOr<Eigen::VectorXd> DecodeSum(const v1::LflSgdmfConfig& config,
                                          absl::Span<const uint64_t> sum);

// Summed noise (config.simulation_summed_noise, fedmf-sim --plain_sum --summed_noise): the users
// upload their gradient only (sparse) and nothing in phase 1, and the coordinator draws what their
// shares would add, exactly in distribution: S_1's noise Xi ~ N(0, n_1 v_1) per coordinate
// (SummedPhase0Noise), and S_2's, given Xi, minus the phase-0 shares of the n_2 who answer phase 1
// (given their sum Xi, n_2 of n_1 i.i.d. shares sum to N(Xi n_2 / n_1, v_1 n_2 (n_1 - n_2) / n_1))
// plus their n_2 fresh N(0, v_2) (SummedPhase1Noise). The shares' fixed-point rounding is left
// out: variance below n / (4 scale^2) per coordinate, against the noise's n v.
Eigen::VectorXd SummedPhase0Noise(const v1::LflSgdmfConfig& config, int64_t contributors,
                                  int64_t dim, dp::Rng& rng);
Eigen::VectorXd SummedPhase1Noise(const v1::LflSgdmfConfig& config,
                                  const Eigen::Ref<const Eigen::VectorXd>& phase0_noise,
                                  int64_t phase1_survivors, int64_t phase2_survivors, dp::Rng& rng);

// V_0 (m x p) and u_i^0 (p) from the public seed, projected by Pi: data-independent.
Eigen::MatrixXd InitialItemFactors(const v1::LflSgdmfConfig& config);
Eigen::VectorXd InitialUserFactor(const v1::LflSgdmfConfig& config, uint32_t participant_id);

}  // namespace fedmf::algorithms::lfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_LFL_SGDMF_LFL_SGDMF_H_
