// lfl-sgdmf's fresh run (new_run.h): its options (fedmf.v1.LflSgdmfOptions) and the runtime's
// RunSettings make an LflSgdmfConfig, whose updater starts the run. Linked only into the binaries
// that start runs (fedmf-coordinator, fedmf-sim). The run-level --rounds is T, --epsilon and
// --delta the whole run's user-level budget, --participation the cohort n of each round; n_min
// comes from the option omega (--min_clients must stay 0). Secure aggregation is required.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lfl_sgdmf/lfl_sgdmf.h"
#include "common/algorithms/lfl_sgdmf/updater.h"
#include "common/algorithms/new_run.h"
#include "common/util/event_log.h"
#include "fedmf/v1/lfl_sgdmf.pb.h"

namespace fedmf::algorithms::lfl_sgdmf {
namespace {

// The paper's settings (configs/lfl-sgdmf/default.textproto lists the same): two-phase noise
// tolerating 30% dropout, p = 20, rate 1, 20 pre-training epochs at 0.05, initial predictions
// about 3, 2^16 fixed-point units, the scorer's lambda 0.25 and kappa 5.
v1::LflSgdmfOptions DefaultOptions() {
  v1::LflSgdmfOptions o;
  o.set_noise(v1::LFL_NOISE_TWO_PHASE);
  o.set_omega(0.3);
  o.set_rank(20);
  o.set_learning_rate(1);
  o.set_pretrain_epochs(20);
  o.set_pretrain_learning_rate(0.05);
  o.set_init_prediction(3);
  o.set_scale(1 << 16);
  o.set_score_lambda(0.25);
  o.set_score_kappa(5);
  return o;
}

// The run's configuration; InvalidArgument naming the option and its value when out of range
// (ValidateConfig names the LflSgdmfConfig field, which has the option's name).
absl::StatusOr<v1::LflSgdmfConfig> ConfigFromOptions(const RunSettings& run,
                                                     const v1::LflSgdmfOptions& options) {
  const v1::LflNoiseMode noise = options.noise();
  if (NoiseModeName(noise) == "unspecified") {
    return absl::InvalidArgumentError(
        absl::StrCat("lfl-sgdmf: noise=", v1::LflNoiseMode_Name(noise),
                     " must be none, single, two-phase-paper or two-phase"));
  }
  if (!run.secure_aggregation) {
    return absl::InvalidArgumentError(
        "lfl-sgdmf: --secure_aggregation=false would show each user's gradient with a share of "
        "the noise only");
  }
  if (run.min_clients != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("lfl-sgdmf: --min_clients=", run.min_clients,
                     " must stay 0: n_min = ceil((1 - omega) n) comes from the option omega"));
  }
  if (run.rating_scale.min < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("lfl-sgdmf needs ratings in [0, R] (embedding clipping), the data's scale "
                     "starts at ",
                     run.rating_scale.min));
  }
  v1::LflSgdmfConfig c;
  c.set_num_users(run.num_users);
  c.set_num_items(run.num_items);
  c.set_rank(options.rank());
  c.set_rating_max(run.rating_scale.max);
  c.set_rounds(run.rounds);
  c.set_cohort_size(SampledCohort(run));
  c.set_omega(options.omega());
  c.set_min_contributors(MinContributors(c.cohort_size(), c.omega()));
  c.set_noise(noise);
  if (noise != v1::LFL_NOISE_NONE) {
    c.set_epsilon(run.epsilon);
    c.set_delta(run.delta.value_or(kDefaultDelta));
  }
  c.set_learning_rate(options.learning_rate());
  c.set_pretrain_epochs(options.pretrain_epochs());
  c.set_pretrain_learning_rate(options.pretrain_learning_rate());
  c.set_seed(run.seed);
  c.set_init_prediction(options.init_prediction());
  c.set_scale(options.scale());
  c.set_wrap_probability(1e-9);
  c.set_score_lambda(options.score_lambda());
  c.set_score_kappa(options.score_kappa());
  c.set_simulation_summed_noise(run.simulation_summed_noise && noise != v1::LFL_NOISE_NONE);
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  return c;
}

absl::StatusOr<NewRun> StartLflSgdmfRun(const RunSettings& run,
                                        const v1::LflSgdmfOptions& options) {
  absl::StatusOr<v1::LflSgdmfConfig> c = ConfigFromOptions(run, options);
  if (!c.ok()) return c.status();
  absl::StatusOr<std::unique_ptr<LflSgdmfUpdater>> updater = LflSgdmfUpdater::Create(*c);
  if (!updater.ok()) return updater.status();
  const v1::LflSgdmfConfig& calibrated = (*updater)->config();
  absl::StatusOr<v1::RoundPlan> plan = (*updater)->Plan();
  if (!plan.ok()) return plan.status();
  const int64_t n = calibrated.cohort_size();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"noise", std::string(NoiseModeName(calibrated.noise()))},
      {"noise_draw", calibrated.simulation_summed_noise() ? "summed" : "per_user"},
      {"epsilon", EventValue(calibrated.epsilon())},
      {"delta", EventValue(calibrated.delta())},
      {"cohort", absl::StrCat(n)},
      {"omega", EventValue(calibrated.omega())},
      {"n_min", absl::StrCat(calibrated.min_contributors())},
      {"noise_std", EventValue(calibrated.noise_std())},
      {"l2_sensitivity", EventValue(Sensitivity(calibrated))},
      {"upload_length", absl::StrCat(plan->length())},
      {"sum_bits", absl::StrCat(plan->bits())}};
  if (HasPhase1(calibrated)) {
    // What the server's view of both sums holds with nobody lost (the best case for an
    // attacker), next to the paper's claim of sigma for the final sum.
    fields.emplace_back("view_noise_std_no_dropout", EventValue(ViewNoiseStddev(calibrated, n, n)));
    fields.emplace_back("paper_claimed_noise_std", EventValue(calibrated.noise_std()));
  }
  return NewRun{*std::move(updater), std::move(fields), calibrated.simulation_summed_noise()};
}

const NewRunRegistrar kNewRunRegistrar(kAlgorithmName, DefaultOptions(), StartLflSgdmfRun);

}  // namespace
}  // namespace fedmf::algorithms::lfl_sgdmf
