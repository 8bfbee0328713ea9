// The flags of vfl-sgdmf and the factory of its fresh runs (new_run.h). Linked only into the
// binaries that start runs (fedmf-coordinator, fedmf-sim). The run-level --rounds is T + 1 (T
// syncs, then the final stage); --epsilon/--delta the whole run's (epsilon, delta)-DP budget
// (delta > 0; --epsilon=0: no budget), to which the noise is calibrated unless
// --vfl_noise_multiplier says otherwise; --rating_max is R; --secure_aggregation sums the parties'
// uploads through SecAgg. --participation and --min_clients do not apply: every round is all s
// parties. --vfl_mode=local-only is the paper's local-only baseline: --rounds=1 and
// --vfl_local_steps = T T', each party's whole run.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "google/protobuf/empty.pb.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/fmf_sgd/config.h"
#include "common/algorithms/new_run.h"
#include "common/algorithms/vfl_sgdmf/config.h"
#include "common/algorithms/vfl_sgdmf/privacy.h"
#include "common/algorithms/vfl_sgdmf/updater.h"
#include "common/dp/privacy_unit.h"
#include "common/util/event_log.h"

namespace {
const fedmf::algorithms::fmf_sgd::DpSgdMfConfig kDefaults;
}  // namespace

ABSL_FLAG(int32_t, vfl_parties, 2, "vfl-sgdmf: s, the parties (participant ids 1..s)");
ABSL_FLAG(std::string, vfl_mode, "federated",
          "vfl-sgdmf: federated (T syncs averaging U) or local-only (the paper's baseline: each "
          "party trains alone, --rounds=1 and --vfl_local_steps = T T'; only the test error is "
          "summed)");
ABSL_FLAG(int64_t, vfl_local_steps, 10,
          "vfl-sgdmf: T', each party's noisy steps per sync (local-only: all its steps)");
ABSL_FLAG(int64_t, vfl_item_only_steps, 0,
          "vfl-sgdmf: kappa, each party's noisy V-only steps in the final round");
ABSL_FLAG(int32_t, vfl_rank, kDefaults.rank, "vfl-sgdmf: p, the embeddings' size");
ABSL_FLAG(std::string, vfl_unit, "rating",
          "vfl-sgdmf: rating or user, what the budget protects (user: each party trims its "
          "ratings to --vfl_theta per user)");
ABSL_FLAG(int32_t, vfl_theta, 5, "vfl-sgdmf: theta^(k), ratings kept per user at each party");
ABSL_FLAG(double, vfl_sampling_rate, kDefaults.sampling_rate,
          "vfl-sgdmf: eta, each user's chance to be in a party's step");
ABSL_FLAG(double, vfl_noise_multiplier, -1,
          "vfl-sgdmf: z; negative: the smallest z whose run fits --epsilon/--delta (none when "
          "--epsilon=0)");
ABSL_FLAG(double, vfl_learning_rate, kDefaults.learning_rate, "vfl-sgdmf: gamma_0");
ABSL_FLAG(double, vfl_final_learning_rate_fraction, kDefaults.final_learning_rate_fraction,
          "vfl-sgdmf: the rate after the linear decay over the first 80% of the steps, as a "
          "fraction of gamma_0");
ABSL_FLAG(double, vfl_init_prediction, kDefaults.init_prediction,
          "vfl-sgdmf: every initial prediction <u, v> is about this (public)");

namespace fedmf::algorithms::vfl_sgdmf {
namespace {

absl::StatusOr<v1::VflSgdmfConfig> ConfigFromFlags(const RunSettings& run) {
  const std::string mode = absl::GetFlag(FLAGS_vfl_mode);
  if (mode != "federated" && mode != "local-only") {
    return absl::InvalidArgumentError(
        absl::StrCat("vfl-sgdmf: --vfl_mode=", mode, " must be federated or local-only"));
  }
  const bool local_only = mode == "local-only";
  if (local_only && run.rounds != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("vfl-sgdmf: --vfl_mode=local-only runs one round (--rounds=1, got ",
                     run.rounds, "); its steps are --vfl_local_steps"));
  }
  if (!local_only && run.rounds < 2) {
    return absl::InvalidArgumentError(absl::StrCat("vfl-sgdmf: --rounds=", run.rounds,
                                                   " must be >= 2 (T syncs and the final stage)"));
  }
  if (run.epsilon > 0 && run.delta.value_or(kDefaultDelta) <= 0) {
    return absl::InvalidArgumentError("vfl-sgdmf: a budget (--epsilon > 0) needs --delta > 0");
  }
  absl::StatusOr<dp::PrivacyUnit> unit = dp::ParsePrivacyUnit(absl::GetFlag(FLAGS_vfl_unit));
  if (!unit.ok()) return unit.status();
  v1::VflSgdmfConfig c;
  c.set_num_users(static_cast<int32_t>(run.num_users));
  c.set_num_items(run.num_items);
  c.set_num_parties(absl::GetFlag(FLAGS_vfl_parties));
  c.set_rank(absl::GetFlag(FLAGS_vfl_rank));
  c.set_rating_max(run.rating_scale.max);
  c.set_per_user(*unit == dp::PrivacyUnit::kUser);
  c.set_max_ratings_per_user(absl::GetFlag(FLAGS_vfl_theta));
  c.set_sampling_rate(absl::GetFlag(FLAGS_vfl_sampling_rate));
  c.set_local_only(local_only);
  c.set_syncs(local_only ? 1 : run.rounds - 1);
  c.set_local_steps(absl::GetFlag(FLAGS_vfl_local_steps));
  c.set_item_only_steps(absl::GetFlag(FLAGS_vfl_item_only_steps));
  c.set_learning_rate(absl::GetFlag(FLAGS_vfl_learning_rate));
  c.set_final_learning_rate_fraction(absl::GetFlag(FLAGS_vfl_final_learning_rate_fraction));
  c.set_init_prediction(absl::GetFlag(FLAGS_vfl_init_prediction));
  c.set_seed(run.seed);
  c.set_secure_sum(run.secure_aggregation);
  c.set_budget_epsilon(run.epsilon);
  c.set_budget_delta(run.epsilon > 0 ? run.delta.value_or(kDefaultDelta) : 0);
  const double z = absl::GetFlag(FLAGS_vfl_noise_multiplier);
  if (z >= 0) {
    c.set_noise_multiplier(z);
  } else if (run.epsilon > 0) {
    absl::StatusOr<double> calibrated = CalibrateNoiseMultiplier(c);
    if (!calibrated.ok()) return calibrated.status();
    c.set_noise_multiplier(*calibrated);
  }
  return c;
}

absl::StatusOr<NewRun> StartVflRun(const RunSettings& run, const google::protobuf::Empty& /*options*/) {
  if (run.num_users > (int64_t{1} << 31) - 1) {
    return absl::InvalidArgumentError(absl::StrCat("vfl-sgdmf: ", run.num_users, " users"));
  }
  absl::StatusOr<v1::VflSgdmfConfig> c = ConfigFromFlags(run);
  if (!c.ok()) return c.status();
  absl::StatusOr<std::unique_ptr<VflSgdmfUpdater>> updater = VflSgdmfUpdater::Create(*c);
  if (!updater.ok()) return updater.status();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"parties", absl::StrCat(c->num_parties())},
      {"vfl_mode", c->local_only() ? "local-only" : "federated"},
      {"syncs", absl::StrCat(c->syncs())},
      {"local_steps", absl::StrCat(c->local_steps())},
      {"item_only_steps", absl::StrCat(c->item_only_steps())},
      {"unit", c->per_user() ? "user" : "rating"},
      {"noise_multiplier", EventValue(c->noise_multiplier())}};
  if (c->noise_multiplier() > 0 && run.delta.value_or(kDefaultDelta) > 0) {
    absl::StatusOr<RunEpsilon> epsilon = RunEpsilonAt(*c, run.delta.value_or(kDefaultDelta));
    if (!epsilon.ok()) return epsilon.status();
    fields.emplace_back("vfl_epsilon", EventValue(epsilon->ours));
    fields.emplace_back("vfl_paper_epsilon", EventValue(epsilon->paper));
  }
  return NewRun{*std::move(updater), std::move(fields)};
}

const NewRunRegistrar kNewRunRegistrar(kAlgorithmName, google::protobuf::Empty(), StartVflRun);

}  // namespace
}  // namespace fedmf::algorithms::vfl_sgdmf
