#include "common/algorithms/hfl_sgdmf/local_stage.h"

#include "absl/strings/str_cat.h"

namespace fedmf::algorithms::hfl_sgdmf {
namespace {

// One noiseless full-batch step of U alone (V's gradient dropped: V stays where it is).
absl::Status UserStep(const data::RatingsDataset& train, const fmf_sgd::DpSgdMfConfig& local,
                      int64_t step, dp::Rng& rng, fmf_sgd::Embeddings& model) {
  absl::StatusOr<fmf_sgd::NoisyGradient> gradient =
      fmf_sgd::NoisyGradientSum(train, model, local, /*update_users=*/true, rng);
  if (!gradient.ok()) return gradient.status();
  gradient->items.setZero();
  return fmf_sgd::ApplyStep(*gradient, local, step, /*item_weight=*/1, model);
}

// The noiseless stages draw nothing (eta = 1, z = 0); the generator only fills the signature.
dp::Rng Unused() { return dp::Rng(0, 0); }

}  // namespace

absl::Status PretrainUsers(const data::RatingsDataset& train, const HflConfig& config,
                           fmf_sgd::Embeddings& model) {
  if (config.pretrain_steps == 0) return absl::OkStatus();
  const fmf_sgd::DpSgdMfConfig local = LocalStageConfig(config, config.pretrain_steps);
  if (absl::Status s = fmf_sgd::CheckTrainingData(train, model, local); !s.ok()) return s;
  dp::Rng rng = Unused();
  for (int64_t step = 0; step < config.pretrain_steps; ++step) {
    if (absl::Status s = UserStep(train, local, step, rng, model); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status LocalTrain(const data::RatingsDataset& train, const HflConfig& config, int64_t steps,
                        fmf_sgd::Embeddings& model) {
  if (steps == 0) return absl::OkStatus();
  const fmf_sgd::DpSgdMfConfig local = LocalStageConfig(config, steps);
  if (absl::Status s = fmf_sgd::CheckTrainingData(train, model, local); !s.ok()) return s;
  dp::Rng rng = Unused();
  return fmf_sgd::RunNoisySteps(train, local, 0, steps, /*update_users=*/true, /*item_weight=*/1,
                                rng, model, {});
}

absl::StatusOr<PartyUpload> PartySync(const data::RatingsDataset& train,
                                      const data::RatingsDataset& trimmed, const HflConfig& config,
                                      int64_t first_step, double user_weight, dp::Rng& rng,
                                      fmf_sgd::Embeddings& model) {
  if (!(user_weight > 0 && user_weight <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("hfl-sgdmf: user_weight=", user_weight, " must be in (0, 1]"));
  }
  const fmf_sgd::DpSgdMfConfig noisy = NoisyStageConfig(config);
  if (absl::Status s = fmf_sgd::CheckTrainingData(trimmed, model, noisy); !s.ok()) return s;
  const int64_t total = noisy.steps;
  const fmf_sgd::DpSgdMfConfig users = LocalStageConfig(config, total);
  dp::Rng unused = Unused();
  PartyUpload upload;
  for (int64_t step = first_step; step < first_step + config.local_steps; ++step) {
    if (config.mode == Mode::kTrainBoth) {
      if (absl::Status s = UserStep(train, users, step, unused, model); !s.ok()) return s;
    }
    if (absl::Status s = fmf_sgd::RunNoisySteps(
            trimmed, noisy, step, 1, /*update_users=*/false, /*item_weight=*/1, rng, model,
            [&](int64_t, const fmf_sgd::NoisyGradient& g) {
              upload.sampled.push_back(static_cast<int64_t>(g.sampled.size()));
              return absl::OkStatus();
            });
        !s.ok()) {
      return s;
    }
  }
  upload.weighted_items = user_weight * model.items;
  return upload;
}

}  // namespace fedmf::algorithms::hfl_sgdmf
