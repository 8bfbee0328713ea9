// HFL-SGDMF's party computations (the FMF privacy paper, Sec. 5.1 and Fig. 3(c)), without the
// runtime. Party k holds its users' ratings on every item: stage 1 fits U_k to a fixed V without
// noise; a stage-2 sync runs T' noisy V-only DP-SGD steps from the coordinator's V with U_k fixed
// (train-both: a noiseless U step before each) and uploads (n_k / n) V^(k), so the sum over the
// parties is the paper's average V = sum_k (n_k / n) V^(k); stage 3 fine-tunes (U_k, V) without
// noise. Noiseless stages are full-batch steps (config.h LocalStageConfig) on untrimmed ratings.
#ifndef FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_LOCAL_STAGE_H_
#define FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_LOCAL_STAGE_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/hfl_sgdmf/config.h"
#include "common/algorithms/lib/fmf_sgd/dp_sgd_step.h"
#include "common/data/ratings_dataset.h"
#include "common/dp/rng.h"

namespace fedmf::algorithms::hfl_sgdmf {

// Stage 1: config.pretrain_steps noiseless full-batch steps of U alone on `train` (the party's
// untrimmed ratings), V fixed.
absl::Status PretrainUsers(const data::RatingsDataset& train, const HflConfig& config,
                           fmf_sgd::Embeddings& model);

// `steps` noiseless full-batch steps of (U, V) on `train`: stage 3, and local-only training.
absl::Status LocalTrain(const data::RatingsDataset& train, const HflConfig& config, int64_t steps,
                        fmf_sgd::Embeddings& model);

struct PartyUpload {
  Eigen::MatrixXd weighted_items;  // (n_k / n) V^(k), m x p
  std::vector<int64_t> sampled;    // users each noisy step sampled (the party's ledger entries)
};

// One stage-2 sync of party k: noisy V-only steps first_step .. first_step + T' - 1 of the stage's
// schedule on `trimmed` (theta ratings per user) from model.items = the coordinator's V, U_k fixed
// (train-both: a noiseless U step on `train` before each). model ends at (U_k, V^(k)).
// user_weight = n_k / n in (0, 1].
absl::StatusOr<PartyUpload> PartySync(const data::RatingsDataset& train,
                                      const data::RatingsDataset& trimmed, const HflConfig& config,
                                      int64_t first_step, double user_weight, dp::Rng& rng,
                                      fmf_sgd::Embeddings& model);

}  // namespace fedmf::algorithms::hfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_LOCAL_STAGE_H_
