// Privacy of the FMF paper's DP-SGD matrix factorization through fedmf's accountant: every noisy
// step is a Poisson-subsampled Gaussian (rate eta, noise multiplier z, add/remove one unit,
// dp::SubsampledGaussianCurve), and a run composes all of them (ledger entries, one per step). The
// paper's Proposition 2 (z^2 = c1 eta^2 T ln(1/delta) / epsilon^2, c1 unspecified) is reported as
// the c1 our calibrated z implies.
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_PRIVACY_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_PRIVACY_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "common/algorithms/lib/fmf_sgd/config.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/privacy_ledger.h"
#include "common/dp/rdp_curve.h"

namespace fedmf::algorithms::fmf_sgd {

inline constexpr char kStepMechanism[] = "subsampled-gaussian";

// Every step that adds noise: steps + item_only_steps.
int64_t NoisySteps(const DpSgdMfConfig& config);

// The smallest z for which NoisySteps(config) steps at config.sampling_rate stay within `budget`
// (whose unit must be config.unit: InvalidArgument otherwise).
absl::StatusOr<double> CalibrateNoiseMultiplier(const DpSgdMfConfig& config,
                                                const dp::PrivacyBudget& budget,
                                                std::vector<double> orders = dp::DefaultOrders());

// One step's RDP: dp::SubsampledGaussianCurve(eta, z, 1). InvalidArgument for z = 0 (no noise,
// no guarantee: such a run has no ledger).
absl::StatusOr<dp::RdpCurve> StepCurve(const DpSgdMfConfig& config,
                                       std::vector<double> orders = dp::DefaultOrders());

// The ledger entry of noisy step `step` that sampled `sampled` users: its unit, its curve and the
// parameters noise_multiplier, sensitivity, noise_stddev (= z * sensitivity, what the step adds to
// every coordinate) and sampling_rate. n_min is 0: the noise is the curator's, not the users'.
absl::StatusOr<dp::LedgerEntry> StepEntry(const DpSgdMfConfig& config, bool update_users,
                                          int64_t step, int64_t sampled,
                                          const dp::RdpCurve& step_curve);

// c1 = z^2 epsilon^2 / (eta^2 T ln(1/delta)) with T = NoisySteps: the constant Proposition 2
// would need to give our z for (epsilon, delta).
double PaperImpliedC1(const DpSgdMfConfig& config, double epsilon, double delta);

}  // namespace fedmf::algorithms::fmf_sgd

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_PRIVACY_H_
