// VFL-SGDMF's party computation (the FMF privacy paper, Sec. 4.1 and Fig. 3(b)), without the
// runtime: one sync at party k runs T' noisy DP-SGD steps of (U^(k), V_Fk) on the party's ratings
// (every user, its own block of items) from the coordinator's U, with V's step weighted by
// m_k / m (eq. 7), and uploads (m_k / m) U^(k): the coordinator's sum of the uploads is the
// paper's weighted average U = sum_k (m_k / m) U^(k). After the T syncs each party runs kappa noisy
// steps of V_Fk alone (fmf_sgd::RunNoisySteps with update_users false). The federated algorithm
// (--algorithm=vfl-sgdmf on fedmf-client --party) is not wired yet: docs/results/fmf.md.
#ifndef FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_LOCAL_STAGE_H_
#define FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_LOCAL_STAGE_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/lib/fmf_sgd/config.h"
#include "common/data/ratings_dataset.h"
#include "common/dp/rng.h"

namespace fedmf::algorithms::vfl_sgdmf {

struct PartyUpload {
  Eigen::MatrixXd weighted_users;  // (m_k / m) U^(k), n x p
  std::vector<int64_t> sampled;    // users each local step sampled (the party's ledger entries)
};

// Steps first_step .. first_step + local_steps - 1 of the schedule at party k. `train`: the party's
// ratings (all n users, its m_k items, local item indices); `users`: the coordinator's U (n x p);
// `items`: V_Fk (m_k x p), updated in place; item_weight = m_k / m in (0, 1]. Requires
// fmf_sgd::CheckTrainingData on the party's data.
absl::StatusOr<PartyUpload> PartySync(const data::RatingsDataset& train,
                                      const Eigen::MatrixXd& users, Eigen::MatrixXd& items,
                                      const fmf_sgd::DpSgdMfConfig& config, int64_t first_step,
                                      int64_t local_steps, double item_weight, dp::Rng& rng);

}  // namespace fedmf::algorithms::vfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_LOCAL_STAGE_H_
