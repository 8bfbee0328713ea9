// One noisy step of the FMF paper's DP-SGD matrix factorization (Li et al., VLDB 2022, eq. 7) on
// one party's ratings: sample every user with probability eta (Poisson), sum the sampled users'
// rating gradients of (U, V) (or of V alone), bounded by embedding clipping or clipped per unit,
// add N(0, (z Delta)^2) to every coordinate of the sum (config.h StepSensitivity), then step with
// the paper's learning rate and project the embeddings back with Pi.
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_DP_SGD_STEP_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_DP_SGD_STEP_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/algorithms/lib/fmf_sgd/config.h"
#include "common/data/ratings_dataset.h"
#include "common/dp/rng.h"

namespace fedmf::algorithms::fmf_sgd {

struct Embeddings {
  Eigen::MatrixXd users;  // U: num_users x p
  Eigen::MatrixXd items;  // V: num_items x p
};

// `rows` x p embeddings whose pairwise products are about config.init_prediction (entries
// sqrt(init_prediction / p) times U[0.5, 1.5)), projected by Pi under embedding clipping. Public
// and data-independent: `rng` may be seeded publicly.
absl::StatusOr<Eigen::MatrixXd> InitialEmbeddings(int32_t rows, const DpSgdMfConfig& config,
                                                  dp::Rng& rng);

// OK iff `train` fits `model` and `config`: shapes, every rating in [0, R] under embedding
// clipping (the sensitivity needs it), at most theta ratings per user for per-user privacy.
// InvalidArgument / FailedPrecondition naming the user, item and value otherwise.
absl::Status CheckTrainingData(const data::RatingsDataset& train, const Embeddings& model,
                               const DpSgdMfConfig& config);

struct NoisyGradient {
  Eigen::MatrixXd users;         // summed gradient of U plus noise; empty for a V-only step
  Eigen::MatrixXd items;         // summed gradient of V plus noise
  std::vector<int32_t> sampled;  // the users the step sampled (ascending); secret, for tests
  double noise_stddev = 0;       // z * StepSensitivity, the noise per coordinate
};

// The step's sum over the sampled users of their (clipped) rating gradients of (r - <u, v>)^2,
// plus the noise. Sampling and noise come from `rng`. Requires CheckTrainingData.
absl::StatusOr<NoisyGradient> NoisyGradientSum(const data::RatingsDataset& train,
                                               const Embeddings& model, const DpSgdMfConfig& config,
                                               bool update_users, dp::Rng& rng);

// Eq. 7 at step `step`: U <- Pi(U - gamma_t / B G_U), V <- Pi(V - gamma_t w / B G_V), with
// B = eta * num_users the expected number of sampled users (public: the noise needs a
// data-independent normalizer), w = item_weight (m_k / m in VFL, 1 for one party), and Pi only
// under embedding clipping.
absl::Status ApplyStep(const NoisyGradient& gradient, const DpSgdMfConfig& config, int64_t step,
                       double item_weight, Embeddings& model);

// Steps first_step .. first_step + count - 1 (NoisyGradientSum then ApplyStep; U and V, or V
// alone when !update_users), calling on_step(step, gradient) after each, e.g. for its ledger
// entry. Requires CheckTrainingData.
absl::Status RunNoisySteps(
    const data::RatingsDataset& train, const DpSgdMfConfig& config, int64_t first_step,
    int64_t count, bool update_users, double item_weight, dp::Rng& rng, Embeddings& model,
    const std::function<absl::Status(int64_t, const NoisyGradient&)>& on_step);

// Mean of (r - <u, v>)^2 over `ratings` (0 for none): the paper's MSE.
double MeanSquaredError(const data::RatingsDataset& ratings, const Embeddings& model);

}  // namespace fedmf::algorithms::fmf_sgd

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_DP_SGD_STEP_H_
