#include "common/algorithms/vfl_sgdmf/local_stage.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/fmf_sgd/dp_sgd_step.h"

namespace fedmf::algorithms::vfl_sgdmf {

absl::StatusOr<PartyUpload> PartySync(const data::RatingsDataset& train,
                                      const Eigen::MatrixXd& users, Eigen::MatrixXd& items,
                                      const fmf_sgd::DpSgdMfConfig& config, int64_t first_step,
                                      int64_t local_steps, double item_weight, dp::Rng& rng) {
  if (first_step < 0 || local_steps < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vfl-sgdmf: first_step=", first_step, " and local_steps=", local_steps, " must be >= 0"));
  }
  fmf_sgd::Embeddings model{users, std::move(items)};
  PartyUpload upload;
  const absl::Status s = fmf_sgd::RunNoisySteps(
      train, config, first_step, local_steps, /*update_users=*/true, item_weight, rng, model,
      [&](int64_t, const fmf_sgd::NoisyGradient& g) {
        upload.sampled.push_back(static_cast<int64_t>(g.sampled.size()));
        return absl::OkStatus();
      });
  items = std::move(model.items);
  if (!s.ok()) return s;
  upload.weighted_users = item_weight * model.users;
  return upload;
}

}  // namespace fedmf::algorithms::vfl_sgdmf
