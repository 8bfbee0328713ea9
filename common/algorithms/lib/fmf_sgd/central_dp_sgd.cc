#include "common/algorithms/lib/fmf_sgd/central_dp_sgd.h"

#include <optional>
#include <utility>

#include "common/algorithms/lib/fmf_sgd/privacy.h"
#include "common/data/splits.h"

namespace fedmf::algorithms::fmf_sgd {

absl::StatusOr<CentralRun> TrainCentralDpSgdMf(
    const data::RatingsDataset& train, const DpSgdMfConfig& config, uint64_t seed,
    dp::Rng& noise_rng, const std::function<void(int64_t, const Embeddings&)>& on_step) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  std::optional<data::RatingsDataset> trimmed;
  if (config.unit == dp::PrivacyUnit::kUser) {
    absl::StatusOr<data::RatingsDataset> t =
        data::TrimPerUser(train, config.max_ratings_per_user, seed);
    if (!t.ok()) return t.status();
    trimmed = *std::move(t);
  }
  const data::RatingsDataset& data = trimmed ? *trimmed : train;

  dp::Rng init_rng(seed, /*stream=*/1);
  absl::StatusOr<Eigen::MatrixXd> users = InitialEmbeddings(data.num_users(), config, init_rng);
  if (!users.ok()) return users.status();
  absl::StatusOr<Eigen::MatrixXd> items = InitialEmbeddings(data.num_items(), config, init_rng);
  if (!items.ok()) return items.status();
  absl::StatusOr<dp::PrivacyLedger> ledger = dp::PrivacyLedger::Create();
  if (!ledger.ok()) return ledger.status();
  CentralRun run{{*std::move(users), *std::move(items)}, *std::move(ledger), data.num_ratings()};
  if (absl::Status s = CheckTrainingData(data, run.model, config); !s.ok()) return s;

  std::optional<dp::RdpCurve> step_curve;
  if (config.noise_multiplier > 0) {
    absl::StatusOr<dp::RdpCurve> curve = StepCurve(config, run.ledger.orders());
    if (!curve.ok()) return curve.status();
    step_curve = *std::move(curve);
  }
  const auto record = [&](int64_t step, const NoisyGradient& gradient) -> absl::Status {
    if (step_curve) {
      absl::StatusOr<dp::LedgerEntry> entry =
          StepEntry(config, /*update_users=*/step < config.steps, step,
                    static_cast<int64_t>(gradient.sampled.size()), *step_curve);
      if (!entry.ok()) return entry.status();
      if (absl::Status s = run.ledger.Append(*std::move(entry)); !s.ok()) return s;
    }
    if (on_step) on_step(step, run.model);
    return absl::OkStatus();
  };
  if (absl::Status s = RunNoisySteps(data, config, 0, config.steps, /*update_users=*/true,
                                     /*item_weight=*/1, noise_rng, run.model, record);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          RunNoisySteps(data, config, config.steps, config.item_only_steps,
                        /*update_users=*/false, /*item_weight=*/1, noise_rng, run.model, record);
      !s.ok()) {
    return s;
  }
  return run;
}

}  // namespace fedmf::algorithms::fmf_sgd
