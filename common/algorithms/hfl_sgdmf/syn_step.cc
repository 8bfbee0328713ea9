#include "common/algorithms/hfl_sgdmf/syn_step.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace fedmf::algorithms::hfl_sgdmf {

absl::StatusOr<fmf_sgd::NoisyGradient> PartySynGradient(const data::RatingsDataset& trimmed,
                                                        const HflConfig& config,
                                                        const fmf_sgd::Embeddings& model,
                                                        dp::Rng& rng) {
  const fmf_sgd::DpSgdMfConfig noisy = NoisyStageConfig(config);
  if (absl::Status s = fmf_sgd::CheckTrainingData(trimmed, model, noisy); !s.ok()) return s;
  return fmf_sgd::NoisyGradientSum(trimmed, model, noisy, /*update_users=*/false, rng);
}

absl::Status ApplySynStep(const Eigen::MatrixXd& gradient_sum, const HflConfig& config,
                          int64_t step, int32_t num_users, Eigen::MatrixXd& items) {
  if (gradient_sum.rows() != items.rows() || gradient_sum.cols() != items.cols()) {
    return absl::InvalidArgumentError(absl::StrCat("hfl-synSGD: gradient sum ", gradient_sum.rows(),
                                                   "x", gradient_sum.cols(), " for V ",
                                                   items.rows(), "x", items.cols()));
  }
  fmf_sgd::NoisyGradient sum;
  sum.items = gradient_sum;
  // ApplyStep reads U only for its row count: the batch eta n of the whole federation.
  fmf_sgd::Embeddings global{Eigen::MatrixXd::Zero(num_users, items.cols()), std::move(items)};
  absl::Status s =
      fmf_sgd::ApplyStep(sum, NoisyStageConfig(config), step, /*item_weight=*/1, global);
  items = std::move(global.items);
  return s;
}

}  // namespace fedmf::algorithms::hfl_sgdmf
