// HFL-SGDMF's privacy through fedmf's accountant (issue 17, item 5), per user only (config.h says
// why not per rating). A user's ratings live on one party, so only that party's noisy steps touch
// them (parallel composition): every one of its T T' stage-2 steps, each a Poisson-subsampled
// Gaussian on V's gradient (rate eta, multiplier z, sensitivity g sqrt(theta):
// lib/fmf_sgd/config.h). The paper's Proposition 3 composes only T' local iterations (z^2 = c2
// eta^2 T' ln(1/delta) / epsilon^2); that undercounts by the T syncs, so it is reported next to
// ours, never used for noise. The noiseless stages 1 and 3 publish nothing.
#ifndef FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_PRIVACY_H_
#define FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_PRIVACY_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "common/algorithms/hfl_sgdmf/config.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/privacy_ledger.h"

namespace fedmf::algorithms::hfl_sgdmf {

// Noisy steps that touch one user's ratings: T T' (local-only: 0).
int64_t NoisyStepsPerUser(const HflConfig& config);

// The smallest z for which NoisyStepsPerUser steps fit (epsilon, delta)-DP per user.
absl::StatusOr<double> CalibrateNoiseMultiplier(const HflConfig& config, double epsilon,
                                                double delta,
                                                std::vector<double> orders = dp::DefaultOrders());

// The ledger entry of runtime round `round` (run_config.h) on `orders`: a sync's StepsPerSync noisy
// steps per user (HFL-synSGD: 1), not composed across parties (each user lives on one party),
// participants = `parties`; nullopt for the final round and for a run without noise. `parties` = 1
// gives one party's own cost (Contributor::ParticipantCost).
absl::StatusOr<std::optional<dp::LedgerEntry>> RoundEntry(const HflConfig& config, int64_t round,
                                                          int64_t parties,
                                                          const std::vector<double>& orders);

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
