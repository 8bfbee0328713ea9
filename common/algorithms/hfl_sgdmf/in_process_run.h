// An HFL-SGDMF run over s parties in one process (the paper's Fig. 3(c) and its comparison
// points, config.h), for experiments and tests: party k holds the k-th block of users
// (party_split.h HorizontalParty) with every item. The coordinator's V is the sum of the parties'
// uploads (n_k / n) V^(k) (HFL-synSGD: V steps by the sum of the parties' noisy gradients). The
// reference of the networked algorithm (contributor.h, updater.h), which adds secure aggregation
// and persisted party state; local-only runs only here.
#ifndef FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_IN_PROCESS_RUN_H_
#define FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_IN_PROCESS_RUN_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/hfl_sgdmf/config.h"
#include "common/data/ratings_dataset.h"
#include "common/dp/privacy_ledger.h"

namespace fedmf::algorithms::hfl_sgdmf {

struct PartyModel {
  std::vector<int32_t> users;                  // the party's global user indices, ascending
  Eigen::MatrixXd users_before, items_before;  // U_k and V after stage 2 (published V)
  Eigen::MatrixXd users_after, items_after;    // after stage-3 fine-tuning (never published)
};

struct HflRun {
  std::vector<PartyModel> parties;
  // Party k's noisy steps, one entry each: the cost to its users. A user's cost is its own
  // party's (parallel composition), so the run's is the largest over the ledgers.
  std::vector<dp::PrivacyLedger> ledgers;
};

// `seed` fixes the public initialization and each party's trimming (initial_embeddings.h). Party
// k draws from its own generator dp::Rng(noise_seed, k + 1), as a networked party (contributor.h)
// started with fedmf-client --insecure_noise_seed=noise_seed does: its secret noise key is the
// first two words and sync t's sampling and noise come from fmf_party::RoundNoiseRng(key, t) (in
// HFL-synSGD a sync is one step), so both runs agree.
absl::StatusOr<HflRun> RunInProcess(const data::RatingsDataset& train, const HflConfig& config,
                                    uint64_t seed, uint64_t noise_seed);

// The MSE of party models on `ratings` (the train or test side of the split the run trained on):
// each user's ratings predicted by its own party's U and V (before or after fine-tuning); with
// the number of ratings scored.
struct PartyError {
  double mse = 0;
  int64_t ratings = 0;
};
PartyError MeanSquaredError(const std::vector<PartyModel>& parties,
                            const data::RatingsDataset& ratings, bool after_finetune);

}  // namespace fedmf::algorithms::hfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_IN_PROCESS_RUN_H_
