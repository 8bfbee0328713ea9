// hfl-sgdmf's fresh run (new_run.h): its options (fedmf.v1.HflSgdmfOptions, the noisy steps'
// settings nested as `sgd`, lib/fmf_sgd/sgd_options.h) and the runtime's RunSettings make an
// HflSgdmfConfig, whose updater starts the run. Linked only into the binaries that start runs
// (fedmf-coordinator, fedmf-sim). The run-level --rounds is T + 1 (T syncs, then the final stage;
// syn-sgd: T T' + 1); --epsilon/--delta the whole run's (epsilon, delta)-DP budget per user
// (delta > 0; --epsilon=0: no budget), to which the noise is calibrated unless
// sgd.noise_multiplier says otherwise; --rating_max is R; --secure_aggregation sums the parties'
// uploads through SecAgg. --participation and --min_clients do not apply: every round is all s
// parties.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/hfl_sgdmf/config.h"
#include "common/algorithms/hfl_sgdmf/privacy.h"
#include "common/algorithms/hfl_sgdmf/run_config.h"
#include "common/algorithms/hfl_sgdmf/updater.h"
#include "common/algorithms/lib/fmf_sgd/sgd_options.h"
#include "common/algorithms/new_run.h"
#include "common/util/event_log.h"
#include "fedmf/v1/hfl_sgdmf.pb.h"

namespace fedmf::algorithms::hfl_sgdmf {
namespace {

// The paper's settings (configs/hfl-sgdmf/default.textproto lists the same): 2 parties,
// pretrain-u with 100 stage-1 and stage-3 steps, T' = 10, theta 5, fmf_sgd's step defaults with
// the noise calibrated from the budget.
v1::HflSgdmfOptions DefaultOptions() {
  v1::HflSgdmfOptions o;
  o.set_parties(2);
  o.set_local_steps(10);
  o.set_pretrain_steps(100);
  o.set_finetune_steps(100);
  o.set_mode(v1::HflSgdmfOptions::MODE_PRETRAIN_U);
  o.set_theta(5);
  *o.mutable_sgd() = fmf_sgd::DefaultSgdOptions();
  return o;
}

absl::Status BadOption(absl::string_view field, double value, absl::string_view want) {
  return absl::InvalidArgumentError(
      absl::StrCat("hfl-sgdmf: ", field, "=", value, " must be ", want));
}

// The option's mode as HflSgdmfConfig.mode names it (ModeName); InvalidArgument when unset.
absl::StatusOr<Mode> ModeOf(v1::HflSgdmfOptions::Mode mode) {
  switch (mode) {
    case v1::HflSgdmfOptions::MODE_PRETRAIN_U:
      return Mode::kPretrainUsers;
    case v1::HflSgdmfOptions::MODE_TRAIN_BOTH:
      return Mode::kTrainBoth;
    case v1::HflSgdmfOptions::MODE_SYN_SGD:
      return Mode::kSynSgd;
    case v1::HflSgdmfOptions::MODE_LOCAL_ONLY:
      return Mode::kLocalOnly;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("hfl-sgdmf: mode=", v1::HflSgdmfOptions::Mode_Name(mode),
                       " must be pretrain-u, train-both or syn-sgd"));
  }
}

// InvalidArgument naming the first option out of its range.
absl::Status ValidateOptions(const v1::HflSgdmfOptions& o) {
  if (o.parties() < 1) return BadOption("parties", o.parties(), ">= 1");
  if (o.local_steps() < 1) {
    return BadOption("local_steps", static_cast<double>(o.local_steps()), ">= 1");
  }
  if (o.pretrain_steps() < 0) {
    return BadOption("pretrain_steps", static_cast<double>(o.pretrain_steps()), ">= 0");
  }
  if (o.finetune_steps() < 0) {
    return BadOption("finetune_steps", static_cast<double>(o.finetune_steps()), ">= 0");
  }
  if (o.theta() < 1) return BadOption("theta", o.theta(), ">= 1");
  return fmf_sgd::ValidateSgdOptions(o.sgd(), kAlgorithmName);
}

absl::StatusOr<v1::HflSgdmfConfig> ConfigFromOptions(const RunSettings& run,
                                                     const v1::HflSgdmfOptions& options) {
  absl::StatusOr<Mode> mode = ModeOf(options.mode());
  if (!mode.ok()) return mode.status();
  if (absl::Status s = ValidateOptions(options); !s.ok()) return s;
  if (run.rounds < 2) {
    return absl::InvalidArgumentError(absl::StrCat("hfl-sgdmf: --rounds=", run.rounds,
                                                   " must be >= 2 (T syncs and the final stage)"));
  }
  if (run.epsilon > 0 && run.delta.value_or(kDefaultDelta) <= 0) {
    return absl::InvalidArgumentError("hfl-sgdmf: a budget (--epsilon > 0) needs --delta > 0");
  }
  v1::HflSgdmfConfig c;
  c.set_num_users(static_cast<int32_t>(run.num_users));
  c.set_num_items(run.num_items);
  c.set_num_parties(options.parties());
  fmf_sgd::SetSgdFields(options.sgd(), c);
  c.set_rating_max(run.rating_scale.max);
  c.set_max_ratings_per_user(options.theta());
  const int64_t local_steps = options.local_steps();
  // syn-sgd's runtime rounds are its T T' one-step syncs.
  const bool syn = *mode == Mode::kSynSgd;
  if (syn && (run.rounds - 1) % local_steps != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("hfl-sgdmf syn-sgd: --rounds=", run.rounds,
                     " must be T T' + 1 with T' = local_steps=", local_steps,
                     " (one round per noisy step, then the final stage)"));
  }
  c.set_syncs(syn ? (run.rounds - 1) / local_steps : run.rounds - 1);
  c.set_local_steps(local_steps);
  c.set_pretrain_steps(options.pretrain_steps());
  c.set_finetune_steps(options.finetune_steps());
  c.set_mode(std::string(ModeName(*mode)));
  c.set_seed(run.seed);
  c.set_secure_sum(run.secure_aggregation);
  c.set_budget_epsilon(run.epsilon);
  c.set_budget_delta(run.epsilon > 0 ? run.delta.value_or(kDefaultDelta) : 0);
  const double z = options.sgd().noise_multiplier();
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

absl::StatusOr<NewRun> StartHflRun(const RunSettings& run, const v1::HflSgdmfOptions& options) {
  if (run.num_users > (int64_t{1} << 31) - 1) {
    return absl::InvalidArgumentError(absl::StrCat("hfl-sgdmf: ", run.num_users, " users"));
  }
  absl::StatusOr<v1::HflSgdmfConfig> c = ConfigFromOptions(run, options);
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

const NewRunRegistrar kNewRunRegistrar(kAlgorithmName, DefaultOptions(), StartHflRun);

}  // namespace
}  // namespace fedmf::algorithms::hfl_sgdmf
