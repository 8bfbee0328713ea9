// Central DP-SGD matrix factorization: the FMF paper's VFL-SGDMF with one party (s = 1, Sec. 4.3,
// Fig. 4 and 5): config.steps noisy steps of (U, V) then config.item_only_steps of V alone on the
// whole training set, trimmed to theta ratings per user for per-user privacy, every noisy step
// recorded in the run's privacy ledger.
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_CENTRAL_DP_SGD_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_CENTRAL_DP_SGD_H_

#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "common/algorithms/lib/fmf_sgd/config.h"
#include "common/algorithms/lib/fmf_sgd/dp_sgd_step.h"
#include "common/data/ratings_dataset.h"
#include "common/dp/privacy_ledger.h"
#include "common/dp/rng.h"

namespace fedmf::algorithms::fmf_sgd {

struct CentralRun {
  Embeddings model;
  dp::PrivacyLedger ledger;     // one entry per noisy step; none when noise_multiplier = 0
  int64_t trained_ratings = 0;  // after trimming
};

// `seed` fixes the public initialization and the trimming; sampling and noise come from
// `noise_rng` (dp::Rng::FromOsEntropy() for a real release, a seeded one for experiments).
// `on_step(step, model)` after every step.
absl::StatusOr<CentralRun> TrainCentralDpSgdMf(
    const data::RatingsDataset& train, const DpSgdMfConfig& config, uint64_t seed,
    dp::Rng& noise_rng, const std::function<void(int64_t, const Embeddings&)>& on_step = {});

}  // namespace fedmf::algorithms::fmf_sgd

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_CENTRAL_DP_SGD_H_
