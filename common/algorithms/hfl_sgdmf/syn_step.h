// HFL-synSGD's two halves (the FMF privacy paper's comparison point, config.h), shared by the
// in-process run and the runtime: in sync t each party k computes its noisy V gradient sum G~_k on
// its own users at (U_k, the coordinator's V), and the coordinator steps
// V <- Pi(V - gamma_t / (eta n) sum_k G~_k) over the whole federation's n users.
#ifndef FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_SYN_STEP_H_
#define FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_SYN_STEP_H_

#include <cstdint>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/hfl_sgdmf/config.h"
#include "common/algorithms/lib/fmf_sgd/dp_sgd_step.h"
#include "common/data/ratings_dataset.h"
#include "common/dp/rng.h"

namespace fedmf::algorithms::hfl_sgdmf {

// Party k's G~_k (m x p in .items) on `trimmed` (theta ratings per user), sampling and noise from
// `rng`. Errors of fmf_sgd::CheckTrainingData.
absl::StatusOr<fmf_sgd::NoisyGradient> PartySynGradient(const data::RatingsDataset& trimmed,
                                                        const HflConfig& config,
                                                        const fmf_sgd::Embeddings& model,
                                                        dp::Rng& rng);

// The coordinator's step `step` of the schedule (horizon T T') with the parties' summed gradient
// (m x p) over `num_users` users in all.
absl::Status ApplySynStep(const Eigen::MatrixXd& gradient_sum, const HflConfig& config,
                          int64_t step, int32_t num_users, Eigen::MatrixXd& items);

}  // namespace fedmf::algorithms::hfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_SYN_STEP_H_
