// vfl-sgdmf's fresh run (new_run.h): its options (fedmf.v1.VflSgdmfOptions, the noisy steps'
// settings nested as `sgd`, lib/fmf_sgd/sgd_options.h) and the runtime's RunSettings make a
// VflSgdmfConfig, whose updater starts the run. Linked only into the binaries that start runs
// (fedmf-coordinator, fedmf-sim). The run-level --rounds is T + 1 (T syncs, then the final
// stage); --epsilon/--delta the whole run's (epsilon, delta)-DP budget (delta > 0; --epsilon=0:
// no budget), to which the noise is calibrated unless sgd.noise_multiplier says otherwise;
// --rating_max is R; --secure_aggregation sums the parties' uploads through SecAgg.
// --participation and --min_clients do not apply: every round is all s parties. mode=local-only
// is the paper's local-only baseline: --rounds=1 and local_steps = T T', each party's whole run.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/fmf_sgd/sgd_options.h"
#include "common/algorithms/new_run.h"
#include "common/algorithms/vfl_sgdmf/config.h"
#include "common/algorithms/vfl_sgdmf/privacy.h"
#include "common/algorithms/vfl_sgdmf/updater.h"
#include "common/util/event_log.h"
#include "fedmf/v1/vfl_sgdmf.pb.h"

namespace fedmf::algorithms::vfl_sgdmf {
namespace {

// The paper's settings (configs/vfl-sgdmf/default.textproto lists the same): 2 parties,
// federated, T' = 10, kappa = 0, per rating (theta 5 when per user), fmf_sgd's step defaults
// with the noise calibrated from the budget.
v1::VflSgdmfOptions DefaultOptions() {
  v1::VflSgdmfOptions o;
  o.set_parties(2);
  o.set_mode(v1::VflSgdmfOptions::MODE_FEDERATED);
  o.set_local_steps(10);
  o.set_item_only_steps(0);
  o.set_unit(v1::VflSgdmfOptions::UNIT_RATING);
  o.set_theta(5);
  *o.mutable_sgd() = fmf_sgd::DefaultSgdOptions();
  return o;
}

absl::Status BadOption(absl::string_view field, double value, absl::string_view want) {
  return absl::InvalidArgumentError(
      absl::StrCat("vfl-sgdmf: ", field, "=", value, " must be ", want));
}

// InvalidArgument naming the first option out of its range.
absl::Status ValidateOptions(const v1::VflSgdmfOptions& o) {
  if (o.parties() < 1) return BadOption("parties", o.parties(), ">= 1");
  if (o.mode() != v1::VflSgdmfOptions::MODE_FEDERATED &&
      o.mode() != v1::VflSgdmfOptions::MODE_LOCAL_ONLY) {
    return absl::InvalidArgumentError(
        absl::StrCat("vfl-sgdmf: mode=", v1::VflSgdmfOptions::Mode_Name(o.mode()),
                     " must be federated or local-only"));
  }
  if (o.local_steps() < 1) {
    return BadOption("local_steps", static_cast<double>(o.local_steps()), ">= 1");
  }
  if (o.item_only_steps() < 0) {
    return BadOption("item_only_steps", static_cast<double>(o.item_only_steps()), ">= 0");
  }
  if (o.unit() != v1::VflSgdmfOptions::UNIT_RATING && o.unit() != v1::VflSgdmfOptions::UNIT_USER) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vfl-sgdmf: unit=", v1::VflSgdmfOptions::Unit_Name(o.unit()), " must be rating or user"));
  }
  if (o.unit() == v1::VflSgdmfOptions::UNIT_USER && o.theta() < 1) {
    return BadOption("theta", o.theta(), ">= 1 with unit user");
  }
  return fmf_sgd::ValidateSgdOptions(o.sgd(), kAlgorithmName);
}

absl::StatusOr<v1::VflSgdmfConfig> ConfigFromOptions(const RunSettings& run,
                                                     const v1::VflSgdmfOptions& options) {
  if (absl::Status s = ValidateOptions(options); !s.ok()) return s;
  const bool local_only = options.mode() == v1::VflSgdmfOptions::MODE_LOCAL_ONLY;
  if (local_only && run.rounds != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("vfl-sgdmf: mode=local-only runs one round (--rounds=1, got ", run.rounds,
                     "); its steps are local_steps"));
  }
  if (!local_only && run.rounds < 2) {
    return absl::InvalidArgumentError(absl::StrCat("vfl-sgdmf: --rounds=", run.rounds,
                                                   " must be >= 2 (T syncs and the final stage)"));
  }
  if (run.epsilon > 0 && run.delta.value_or(kDefaultDelta) <= 0) {
    return absl::InvalidArgumentError("vfl-sgdmf: a budget (--epsilon > 0) needs --delta > 0");
  }
  v1::VflSgdmfConfig c;
  c.set_num_users(static_cast<int32_t>(run.num_users));
  c.set_num_items(run.num_items);
  c.set_num_parties(options.parties());
  fmf_sgd::SetSgdFields(options.sgd(), c);
  c.set_rating_max(run.rating_scale.max);
  c.set_per_user(options.unit() == v1::VflSgdmfOptions::UNIT_USER);
  c.set_max_ratings_per_user(options.theta());
  c.set_local_only(local_only);
  c.set_syncs(local_only ? 1 : run.rounds - 1);
  c.set_local_steps(options.local_steps());
  c.set_item_only_steps(options.item_only_steps());
  c.set_seed(run.seed);
  c.set_secure_sum(run.secure_aggregation);
  c.set_budget_epsilon(run.epsilon);
  c.set_budget_delta(run.epsilon > 0 ? run.delta.value_or(kDefaultDelta) : 0);
  const double z = options.sgd().noise_multiplier();
  if (z >= 0) {
    c.set_noise_multiplier(z);
  } else if (run.epsilon > 0) {
    absl::StatusOr<double> calibrated = CalibrateNoiseMultiplier(c);
    if (!calibrated.ok()) return calibrated.status();
    c.set_noise_multiplier(*calibrated);
  }
  return c;
}

absl::StatusOr<NewRun> StartVflRun(const RunSettings& run, const v1::VflSgdmfOptions& options) {
  if (run.num_users > (int64_t{1} << 31) - 1) {
    return absl::InvalidArgumentError(absl::StrCat("vfl-sgdmf: ", run.num_users, " users"));
  }
  absl::StatusOr<v1::VflSgdmfConfig> c = ConfigFromOptions(run, options);
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

const NewRunRegistrar kNewRunRegistrar(kAlgorithmName, DefaultOptions(), StartVflRun);

}  // namespace
}  // namespace fedmf::algorithms::vfl_sgdmf
