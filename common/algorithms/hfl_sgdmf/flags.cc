// The flags of hfl-sgdmf and the factory of its fresh runs (new_run.h). Linked only into the
// binaries that start runs (fedmf-coordinator, fedmf-sim). The run-level --rounds is T + 1 (T
// syncs, then the final stage; syn-sgd: T T' + 1); --epsilon/--delta the whole run's (epsilon,
// delta)-DP budget per user (delta > 0; --epsilon=0: no budget), to which the noise is calibrated
// unless
// --hfl_noise_multiplier says otherwise; --rating_max is R; --secure_aggregation sums the parties'
// uploads through SecAgg. --participation and --min_clients do not apply: every round is all s
// parties.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "google/protobuf/empty.pb.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/fmf_sgd/config.h"
#include "common/algorithms/hfl_sgdmf/privacy.h"
#include "common/algorithms/hfl_sgdmf/run_config.h"
#include "common/algorithms/hfl_sgdmf/updater.h"
#include "common/algorithms/new_run.h"
#include "common/dp/privacy_unit.h"
#include "common/util/event_log.h"

namespace {
const fedmf::algorithms::fmf_sgd::DpSgdMfConfig kDefaults;
}  // namespace

ABSL_FLAG(int32_t, hfl_parties, 2, "hfl-sgdmf: s, the parties (participant ids 1..s)");
ABSL_FLAG(int64_t, hfl_local_steps, 10, "hfl-sgdmf: T', each party's noisy V steps per sync");
ABSL_FLAG(int64_t, hfl_pretrain_steps, 100,
          "hfl-sgdmf: stage 1 (round 0), each party's noiseless full-batch U-only steps");
ABSL_FLAG(int64_t, hfl_finetune_steps, 100,
          "hfl-sgdmf: stage 3 (final round), each party's noiseless full-batch (U, V) steps "
          "(never published)");
ABSL_FLAG(std::string, hfl_mode, "pretrain-u",
          "hfl-sgdmf: pretrain-u (the paper's HFL-SGDMF), train-both (no stage 1; U moves, "
          "without noise, before each noisy V step) or syn-sgd (HFL-synSGD: T T' syncs of one "
          "step on the parties' summed noisy gradients; --rounds is T T' + 1); local-only runs "
          "in process only (fedmf-central --model=hfl-sgdmf)");
ABSL_FLAG(int32_t, hfl_rank, kDefaults.rank, "hfl-sgdmf: p, the embeddings' size");
ABSL_FLAG(std::string, hfl_unit, "user",
          "hfl-sgdmf: what the budget protects; user only (each party trims its ratings to "
          "--hfl_theta per user)");
ABSL_FLAG(int32_t, hfl_theta, 5, "hfl-sgdmf: theta, ratings kept per user in the noisy steps");
ABSL_FLAG(double, hfl_sampling_rate, kDefaults.sampling_rate,
          "hfl-sgdmf: eta, each user's chance to be in its party's step");
ABSL_FLAG(double, hfl_noise_multiplier, -1,
          "hfl-sgdmf: z; negative: the smallest z whose run fits --epsilon/--delta (none when "
          "--epsilon=0)");
ABSL_FLAG(double, hfl_learning_rate, kDefaults.learning_rate, "hfl-sgdmf: gamma_0");
ABSL_FLAG(double, hfl_final_learning_rate_fraction, kDefaults.final_learning_rate_fraction,
          "hfl-sgdmf: the rate after the linear decay over the first 80% of the noisy steps, as "
          "a fraction of gamma_0");
ABSL_FLAG(double, hfl_init_prediction, kDefaults.init_prediction,
          "hfl-sgdmf: every initial prediction <u, v> is about this (public)");

namespace fedmf::algorithms::hfl_sgdmf {
namespace {

absl::StatusOr<v1::HflSgdmfConfig> ConfigFromFlags(const RunSettings& run) {
  if (run.rounds < 2) {
    return absl::InvalidArgumentError(absl::StrCat("hfl-sgdmf: --rounds=", run.rounds,
                                                   " must be >= 2 (T syncs and the final stage)"));
  }
  if (run.epsilon > 0 && run.delta.value_or(kDefaultDelta) <= 0) {
    return absl::InvalidArgumentError("hfl-sgdmf: a budget (--epsilon > 0) needs --delta > 0");
  }
  absl::StatusOr<dp::PrivacyUnit> unit = dp::ParsePrivacyUnit(absl::GetFlag(FLAGS_hfl_unit));
  if (!unit.ok()) return unit.status();
  if (*unit != dp::PrivacyUnit::kUser) {
    return absl::InvalidArgumentError(
        "--hfl_unit: hfl-sgdmf protects users only (a party fits u_i on all of user i's ratings, "
        "so one rating moves every V gradient of the user: per-rating sensitivity is unsound)");
  }
  v1::HflSgdmfConfig c;
  c.set_num_users(static_cast<int32_t>(run.num_users));
  c.set_num_items(run.num_items);
  c.set_num_parties(absl::GetFlag(FLAGS_hfl_parties));
  c.set_rank(absl::GetFlag(FLAGS_hfl_rank));
  c.set_rating_max(run.rating_scale.max);
  c.set_max_ratings_per_user(absl::GetFlag(FLAGS_hfl_theta));
  c.set_sampling_rate(absl::GetFlag(FLAGS_hfl_sampling_rate));
  const int64_t local_steps = absl::GetFlag(FLAGS_hfl_local_steps);
  // syn-sgd's runtime rounds are its T T' one-step syncs.
  const bool syn = absl::GetFlag(FLAGS_hfl_mode) == ModeName(Mode::kSynSgd);
  if (syn && (local_steps < 1 || (run.rounds - 1) % local_steps != 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("hfl-sgdmf syn-sgd: --rounds=", run.rounds,
                     " must be T T' + 1 with T' = --hfl_local_steps=", local_steps,
                     " (one round per noisy step, then the final stage)"));
  }
  c.set_syncs(syn ? (run.rounds - 1) / local_steps : run.rounds - 1);
  c.set_local_steps(local_steps);
  c.set_pretrain_steps(absl::GetFlag(FLAGS_hfl_pretrain_steps));
  c.set_finetune_steps(absl::GetFlag(FLAGS_hfl_finetune_steps));
  c.set_mode(absl::GetFlag(FLAGS_hfl_mode));
  c.set_learning_rate(absl::GetFlag(FLAGS_hfl_learning_rate));
  c.set_final_learning_rate_fraction(absl::GetFlag(FLAGS_hfl_final_learning_rate_fraction));
  c.set_init_prediction(absl::GetFlag(FLAGS_hfl_init_prediction));
  c.set_seed(run.seed);
  c.set_secure_sum(run.secure_aggregation);
  c.set_budget_epsilon(run.epsilon);
  c.set_budget_delta(run.epsilon > 0 ? run.delta.value_or(kDefaultDelta) : 0);
  const double z = absl::GetFlag(FLAGS_hfl_noise_multiplier);
  if (z >= 0) {
    c.set_noise_multiplier(z);
  } else if (run.epsilon > 0) {
    if (absl::Status s = ValidateRunConfig(c); !s.ok()) return s;
    absl::StatusOr<double> calibrated =
        CalibrateNoiseMultiplier(ToHflConfig(c), c.budget_epsilon(), c.budget_delta());
    if (!calibrated.ok()) return calibrated.status();
    c.set_noise_multiplier(*calibrated);
  }
  return c;
}

absl::StatusOr<NewRun> StartHflRun(const RunSettings& run, const google::protobuf::Empty& /*options*/) {
  if (run.num_users > (int64_t{1} << 31) - 1) {
    return absl::InvalidArgumentError(absl::StrCat("hfl-sgdmf: ", run.num_users, " users"));
  }
  absl::StatusOr<v1::HflSgdmfConfig> c = ConfigFromFlags(run);
  if (!c.ok()) return c.status();
  absl::StatusOr<std::unique_ptr<HflSgdmfUpdater>> updater = HflSgdmfUpdater::Create(*c);
  if (!updater.ok()) return updater.status();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"parties", absl::StrCat(c->num_parties())},
      {"mode", c->mode()},
      {"syncs", absl::StrCat(c->syncs())},
      {"local_steps", absl::StrCat(c->local_steps())},
      {"unit", "user"},
      {"noise_multiplier", EventValue(c->noise_multiplier())}};
  if (c->noise_multiplier() > 0 && run.delta.value_or(kDefaultDelta) > 0) {
    absl::StatusOr<RunEpsilon> epsilon =
        RunEpsilonAt(ToHflConfig(*c), run.delta.value_or(kDefaultDelta));
    if (!epsilon.ok()) return epsilon.status();
    fields.emplace_back("hfl_epsilon", EventValue(epsilon->ours));
    fields.emplace_back("hfl_paper_epsilon", EventValue(epsilon->paper));
  }
  return NewRun{*std::move(updater), std::move(fields)};
}

const NewRunRegistrar kNewRunRegistrar(kAlgorithmName, google::protobuf::Empty(), StartHflRun);

}  // namespace
}  // namespace fedmf::algorithms::hfl_sgdmf
