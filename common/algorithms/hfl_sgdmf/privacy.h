// HFL-SGDMF's privacy through fedmf's accountant (issue 17, item 5), per user only (config.h says
// why not per rating). A user's ratings live on one party, so only that party's noisy steps touch
// them (parallel composition): every one of its T T' stage-2 steps, each a Poisson-subsampled
// Gaussian on V's gradient (rate eta, multiplier z, sensitivity g sqrt(theta): fmf_sgd/config.h).
// The paper's Proposition 3 composes only T' local iterations (z^2 = c2 eta^2 T' ln(1/delta) /
// epsilon^2); that undercounts by the T syncs, so it is reported next to ours, never used for
// noise. The noiseless stages 1 and 3 publish nothing.
#ifndef FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_PRIVACY_H_
#define FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_PRIVACY_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "common/algorithms/hfl_sgdmf/config.h"
#include "common/dp/dp_conversion.h"

namespace fedmf::algorithms::hfl_sgdmf {

// Noisy steps that touch one user's ratings: T T' (local-only: 0).
int64_t NoisyStepsPerUser(const HflConfig& config);

// The smallest z for which NoisyStepsPerUser steps fit (epsilon, delta)-DP per user.
absl::StatusOr<double> CalibrateNoiseMultiplier(const HflConfig& config, double epsilon,
                                                double delta,
                                                std::vector<double> orders = dp::DefaultOrders());

// The run's epsilon at `delta` with config.step.noise_multiplier > 0: ours (T T' steps composed)
// and the paper's Proposition 3 read through the same accountant (T' steps).
struct RunEpsilon {
  double ours = 0;
  double paper = 0;
};
absl::StatusOr<RunEpsilon> RunEpsilonAt(const HflConfig& config, double delta,
                                        std::vector<double> orders = dp::DefaultOrders());

}  // namespace fedmf::algorithms::hfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_PRIVACY_H_
