#include "tools/central/hfl_trainer.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/algorithms/hfl_sgdmf/in_process_run.h"
#include "common/algorithms/hfl_sgdmf/privacy.h"
#include "common/algorithms/lib/fmf_sgd/config.h"
#include "common/util/event_log.h"

namespace fedmf::central {

absl::StatusOr<metrics::UserScorer> TrainHflSgdMf(const data::TrainTest& split,
                                                  const TrainerConfig& config, int fold) {
  namespace hfl = algorithms::hfl_sgdmf;
  hfl::HflConfig c = config.hfl;
  c.step.noise_multiplier = 0;
  if (config.sgdmf_epsilon > 0 && c.mode != hfl::Mode::kLocalOnly) {
    absl::StatusOr<double> z =
        hfl::CalibrateNoiseMultiplier(c, config.sgdmf_epsilon, config.sgdmf_delta);
    if (!z.ok()) return z.status();
    c.step.noise_multiplier = *z;
  }
  // The parties' generators are keyed by --seed + 1 (not --seed: party 0's dp::Rng(seed, 1) would
  // be the public initialization's): a networked run whose parties run with
  // --insecure_noise_seed=SEED+1 matches this one (in_process_run.h).
  absl::StatusOr<hfl::HflRun> run =
      hfl::RunInProcess(split.train, c, config.sgdmf_seed, /*noise_seed=*/config.sgdmf_seed + 1);
  if (!run.ok()) return run.status();

  EventLine privacy("privacy");
  privacy.Add("fold", fold)
      .Add("mode", std::string(hfl::ModeName(c.mode)))
      .Add("unit", "user")
      .Add("noise_multiplier", c.step.noise_multiplier)
      .Add("sensitivity", algorithms::fmf_sgd::StepSensitivity(c.step, /*update_users=*/false))
      .Add("paper_sensitivity",
           algorithms::fmf_sgd::PaperStepSensitivity(c.step, /*update_users=*/false))
      .Add("noisy_steps_per_user", hfl::NoisyStepsPerUser(c));
  if (c.step.noise_multiplier > 0) {
    double spent = 0;  // the worst party's users'
    for (const dp::PrivacyLedger& ledger : run->ledgers) {
      absl::StatusOr<dp::PrivacyReport> report = ledger.Report(config.sgdmf_delta);
      if (!report.ok()) return report.status();
      spent = std::max(spent, report->improved.epsilon);
    }
    absl::StatusOr<hfl::RunEpsilon> epsilon = hfl::RunEpsilonAt(c, config.sgdmf_delta);
    if (!epsilon.ok()) return epsilon.status();
    privacy.Add("epsilon_budget", config.sgdmf_epsilon)
        .Add("delta", config.sgdmf_delta)
        .Add("epsilon_spent", spent)
        .Add("epsilon_ours", epsilon->ours)
        .Add("epsilon_paper", epsilon->paper);
  }
  const hfl::PartyError before = hfl::MeanSquaredError(run->parties, split.test, false);
  const hfl::PartyError after = hfl::MeanSquaredError(run->parties, split.test, true);
  const hfl::PartyError train = hfl::MeanSquaredError(run->parties, split.train, true);
  EventLine("hfl")
      .Add("fold", fold)
      .Add("mode", std::string(hfl::ModeName(c.mode)))
      .Add("parties", c.parties)
      .Add("test_mse_before_finetune", before.mse)
      .Add("test_mse_after_finetune", after.mse)
      .Add("test_ratings", after.ratings)
      .Add("train_mse", train.mse);

  // Each user's scores from its own party's fine-tuned embeddings.
  auto parties = std::make_shared<const std::vector<hfl::PartyModel>>(std::move(run->parties));
  auto owner = std::make_shared<std::vector<std::pair<int32_t, int32_t>>>(
      static_cast<size_t>(split.train.num_users()), std::pair<int32_t, int32_t>{-1, -1});
  for (size_t k = 0; k < parties->size(); ++k) {
    const std::vector<int32_t>& users = (*parties)[k].users;
    for (size_t u = 0; u < users.size(); ++u) {
      (*owner)[static_cast<size_t>(users[u])] = {static_cast<int32_t>(k), static_cast<int32_t>(u)};
    }
  }
  return metrics::UserScorer([parties, owner](int32_t user, absl::Span<double> scores) {
    const auto [k, local] = (*owner)[static_cast<size_t>(user)];
    const hfl::PartyModel& p = (*parties)[static_cast<size_t>(k)];
    Eigen::Map<Eigen::VectorXd>(scores.data(), static_cast<Eigen::Index>(scores.size())) =
        p.items_after * p.users_after.row(local).transpose();
  });
}

}  // namespace fedmf::central
