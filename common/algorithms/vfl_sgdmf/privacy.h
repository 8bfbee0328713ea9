// VFL-SGDMF's privacy through fedmf's accountant (issue 17, item 5). Every noisy step of every
// party is a Poisson-subsampled Gaussian (rate eta, multiplier z: lib/fmf_sgd/privacy.h). Every
// party holds every user, so per user a round composes all s parties' steps: s T' per sync, s kappa
// in the final stage, s (T T' + kappa) in the run. A rating lives on one party only, so per rating
// a round costs one party's steps (parallel composition, the paper's Theorem 3). The paper's
// Theorem 4 gives per user sqrt(sum_k epsilon_k^2) for parties that each spend epsilon_k; that is
// not an upper bound on the composition, so it is reported next to ours, never used for noise.
// The local-only baseline runs the same steps and is charged the same.
#ifndef FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_PRIVACY_H_
#define FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_PRIVACY_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/privacy_ledger.h"
#include "fedmf/v1/vfl_sgdmf.pb.h"

namespace fedmf::algorithms::vfl_sgdmf {

// Noisy steps one party runs in `round`: T' in a sync, kappa in the final stage (T T' + kappa in
// local-only's one round), 0 after.
int64_t PartySteps(const v1::VflSgdmfConfig& config, int64_t round);

// The ledger entry of `round` on `orders`: all parties' steps per user, one party's per rating
// (participants = the parties); nullopt when the round adds no noise. `parties` = 1 gives one
// party's own cost (Contributor::ParticipantCost).
absl::StatusOr<std::optional<dp::LedgerEntry>> RoundEntry(const v1::VflSgdmfConfig& config,
                                                          int64_t round, int64_t parties,
                                                          const std::vector<double>& orders);

// The run's budget: (budget_epsilon, budget_delta)-DP per user or per rating; nullopt for none.
std::optional<dp::PrivacyBudget> Budget(const v1::VflSgdmfConfig& config);

// The smallest z for which the whole run fits Budget(config) (which must be set).
absl::StatusOr<double> CalibrateNoiseMultiplier(const v1::VflSgdmfConfig& config,
                                                std::vector<double> orders = dp::DefaultOrders());

// The (epsilon, delta)-DP epsilon of the whole run at `delta`: ours (every step composed as
// above) and the paper's (Theorem 3 per rating, which equals ours; Theorem 4 per user:
// sqrt(s) times one party's epsilon, all parties spending alike). Requires z > 0.
struct RunEpsilon {
  double ours = 0;
  double paper = 0;
};
absl::StatusOr<RunEpsilon> RunEpsilonAt(const v1::VflSgdmfConfig& config, double delta,
                                        std::vector<double> orders = dp::DefaultOrders());

}  // namespace fedmf::algorithms::vfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_PRIVACY_H_
