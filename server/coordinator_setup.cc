#include "server/coordinator_setup.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "common/algorithms/new_run.h"
#include "common/algorithms/noise_outlook.h"
#include "common/algorithms/options.h"
#include "common/algorithms/registry.h"
#include "common/data/dataset_source.h"
#include "common/data/split_spec.h"
#include "common/util/event_log.h"
#include "server/cohort.h"
#include "server/evaluation.h"
#include "wire/chunking.h"

namespace {
// The default of --algorithm; the algorithms themselves are registered (registry.h).
constexpr char kDefaultAlgorithm[] = "dpmf-rp";
}  // namespace

ABSL_FLAG(std::string, algorithm, kDefaultAlgorithm,
          "the federated algorithm to train (--help lists them); a resumed run must name its "
          "checkpoint's");
ABSL_FLAG(std::string, config, "",
          "the algorithm's options (fedmf.v1.<Name>Options) in protobuf text format, e.g. "
          "configs/dpmf-rp/paper.textproto; unset: its defaults. `describe NAME` lists them");
ABSL_FLAG(std::vector<std::string>, set, {},
          "FIELD=VALUE: one option of the algorithm, over --config's (repeatable; nested fields "
          "by dotted path; an enum by its short name, e.g. --set mechanism=pbm)");
ABSL_FLAG(std::string, state_dir, "", "checkpoint directory; resumes from it when it holds one");
ABSL_FLAG(std::string, split, "holdout:0.2",
          "train/test split of the data (must match the clients'); users train on the train part");
ABSL_FLAG(uint64_t, split_seed, 1, "seed of the split (must match the clients')");
ABSL_FLAG(std::optional<int64_t>, rounds, std::nullopt,
          "T: training rounds; unset: the algorithm's default (dp-als 2; dp-popularity, privirec "
          "and privirec-k 1, their one release; the others 100)");
ABSL_FLAG(std::optional<double>, participation, std::nullopt,
          "beta: fraction of users sampled per round; unset: the algorithm's default (dpmf-rp: "
          "its options' participation; the others 0.1)");
ABSL_FLAG(int64_t, min_clients, 0, "n_min: fewest inputs in a decoded sum (0: the whole cohort)");
ABSL_FLAG(double, dropout_fraction, 0.3,
          "fraction of a cohort SecAgg tolerates losing (threshold >= n_min regardless)");
ABSL_FLAG(double, stage_timeout_s, 20, "deadline of each SecAgg stage; late clients are dropped");
ABSL_FLAG(double, misbehaviour_log_period_s, 10,
          "tolerated SecAgg misbehaviour is logged at most once per participant per this many "
          "seconds, with the count of its events since its previous line");
ABSL_FLAG(int32_t, max_failed_rounds, 0,
          "rounds failing in a row before the run ends with ABORTED; 0: never (retry, pausing "
          "up to 30 s between attempts, and report the streak in Status)");
ABSL_FLAG(
    bool, secure_aggregation, true,
    "false: clients upload privatized vectors in the clear, each with the noise a lone client "
    "needs (the paper's non-SecAgg case)");
ABSL_FLAG(double, epsilon, 1,
          "privacy budget of the whole run, per user: (epsilon, --delta)-DP (dpmf-rp, "
          "dp-popularity), pure epsilon (ldp-gd, hdpmf, probe: docs/algorithms.md)");
ABSL_FLAG(double, rating_min, 1,
          "smallest rating of the scale: predicted ratings are clamped to [rating_min, "
          "rating_max] (hdpmf: Delta = rating_max - rating_min)");
ABSL_FLAG(double, rating_max, 5, "largest rating of the scale");
ABSL_FLAG(std::optional<double>, delta, std::nullopt,
          "delta of the whole run's (--epsilon, delta)-DP; unset: 1e-5 (dpmf-rp: its options' "
          "delta; pure-epsilon algorithms: 0); 0: --epsilon is RDP at order 2 (the DPMF-RP paper's "
          "convention, not (epsilon, delta)-DP)");
ABSL_FLAG(uint64_t, seed, 1,
          "model initialization, public projection seeds and cohort sampling (fedmf-sim: also "
          "every user's noise, which is then predictable)");
ABSL_FLAG(std::string, eval_every, "auto",
          "federated evaluation: secure-sum the clients' test metrics after every N-th round and "
          "after the last; 0: off. The sums are released without DP noise (not charged to the "
          "privacy ledger), so auto is 10 for a run without noise (--set mechanism=none) and off "
          "for a private run");
ABSL_FLAG(double, eval_participation, 0,
          "fraction of the users in each federated evaluation round (0: the training cohort size)");
ABSL_FLAG(std::string, run_id, "fedmf",
          "bound into every SecAgg session context and recorded with the published models");
ABSL_FLAG(int64_t, publish_every, 0,
          "publish the model for devices to download after every N-th round (0: only the run's "
          "final model; docs/runtime.md, \"Published models\")");
ABSL_FLAG(int32_t, model_retention, 3,
          "published model versions kept (>= 1), besides the newest final model; with "
          "--state_dir they persist in STATE_DIR/models");
ABSL_FLAG(std::string, secagg_graph, "auto",
          "auto (SecAgg+ Harary graph with k, t from the parameter finder once a neighborhood is "
          "at most half the cohort, else complete), complete or harary");
ABSL_FLAG(double, corrupt_fraction, 0.05,
          "fraction of a cohort assumed corrupt (colluding with the server), for the finder");
ABSL_FLAG(int32_t, secagg_degree, 0,
          "with --secagg_graph=harary: this even degree k instead of the finder's (tests, "
          "experiments: no statistical guarantee computed)");
ABSL_FLAG(bool, secagg_signatures, true,
          "clients sign SecAgg advertisements of training rounds with their registered Ed25519 "
          "keys (the coordinator relays the cohort's keys); evaluation rounds stay unsigned");
ABSL_FLAG(bool, secagg_consistency_check, true,
          "with signatures and the complete graph: Bonawitz's consistency round (clients sign "
          "the survivor list before unmasking)");
ABSL_FLAG(int64_t, max_plan_bytes, static_cast<int64_t>(fedmf::wire::kMaxTransferBytes),
          "largest round task (plan plus 1 MiB of SecAgg parameters) sent to clients, in bytes; "
          "a larger plan stops the run with RESOURCE_EXHAUSTED. Raise it (64 MiB to 2147483647, "
          "protobuf's limit) only with the clients' --max_download_bytes, which must be at "
          "least as large (fedmf-sim's in-process clients take this bound)");

namespace fedmf::server {

namespace {

// The run-level settings every algorithm shares, from their flags.
algorithms::RunSettings RunSettingsFromFlags(absl::string_view algorithm, int64_t users,
                                             int32_t items) {
  return {.num_users = users,
          .num_items = items,
          .rounds = absl::GetFlag(FLAGS_rounds)
                        .value_or(algorithms::RegisteredNewRunDefaults(algorithm).rounds),
          .participation = absl::GetFlag(FLAGS_participation),
          .min_clients = absl::GetFlag(FLAGS_min_clients),
          .secure_aggregation = absl::GetFlag(FLAGS_secure_aggregation),
          .epsilon = absl::GetFlag(FLAGS_epsilon),
          .delta = absl::GetFlag(FLAGS_delta),
          .seed = absl::GetFlag(FLAGS_seed),
          .rating_scale = {.min = absl::GetFlag(FLAGS_rating_min),
                           .max = absl::GetFlag(FLAGS_rating_max)}};
}

// The noise outlook of a fresh run (noise_outlook.h): an event line, and a warning when the
// measurements predict its private model will not beat DP popularity. Informational: a failure
// to compute it is reported and the run goes on.
void ReportNoiseOutlook(absl::string_view algorithm, const algorithms::Updater& updater) {
  const auto outlook = [&]() -> absl::StatusOr<std::optional<algorithms::NoiseOutlook>> {
    absl::StatusOr<v1::RoundPlan> plan = updater.Plan();
    if (!plan.ok()) return plan.status();
    const int64_t cohort = plan->max_contributors();
    absl::StatusOr<std::optional<dp::LedgerEntry>> release = updater.RoundPrivacy(cohort, {2.0});
    if (!release.ok()) return release.status();
    return algorithms::ComputeNoiseOutlook(
        *release, static_cast<int64_t>(plan->length()), cohort,
        algorithms::RegisteredNewRunDefaults(algorithm).outlook_points);
  }();
  if (!outlook.ok()) {
    EventLine("noise_outlook").Add("error", outlook.status().ToString());
    return;
  }
  if (!outlook->has_value()) return;  // no noise, or a local-DP release
  const algorithms::NoiseOutlook& o = **outlook;
  {
    EventLine line("noise_outlook");
    line.Add("noise_multiplier", o.noise_multiplier)
        .Add("dimension", o.dimension)
        .Add("cohort", o.cohort)
        .Add("noise_to_signal", o.noise_to_signal);
    if (o.f1_over_dp_popularity.has_value()) {
      line.Add("predicted_f1_over_dp_popularity", *o.f1_over_dp_popularity)
          .Add("extrapolated", o.extrapolated ? "true" : "false");
    }
  }
  if (o.f1_over_dp_popularity.has_value() && *o.f1_over_dp_popularity < 1) {
    std::fprintf(stderr,
                 "WARNING: at this budget and population the noise of the first release is %.3g "
                 "times the cohort's largest signal; runs measured at this ratio predict F1@10 "
                 "%.2f x DP popularity's (%s): the private model is not expected to beat "
                 "--algorithm=dp-popularity (docs/results/privacy-utility.md)\n",
                 o.noise_to_signal, *o.f1_over_dp_popularity,
                 o.extrapolated ? "beyond the measured range" : "interpolated");
  }
}

}  // namespace

absl::StatusOr<const algorithms::AlgorithmDefinition*> AlgorithmFromFlags() {
  return algorithms::FindTrainingAlgorithm(absl::GetFlag(FLAGS_algorithm));
}

std::string UsageWithAlgorithms(absl::string_view usage) {
  return absl::StrCat(usage, "\n\nAlgorithms (--algorithm=NAME, default ", kDefaultAlgorithm,
                      "; `describe NAME` lists its options, for --config and --set):\n",
                      absl::StripSuffix(algorithms::DescribeAlgorithms(), "\n"));
}

std::vector<RepeatedFlag> RepeatedRunFlags() { return {{.name = "set", .flag = &FLAGS_set}}; }

absl::Status CheckOptionsFromFlags() {
  absl::StatusOr<const algorithms::AlgorithmDefinition*> algorithm = AlgorithmFromFlags();
  if (!algorithm.ok()) return algorithm.status();
  return algorithms::ResolveOptions((*algorithm)->name, absl::GetFlag(FLAGS_config),
                                    absl::GetFlag(FLAGS_set))
      .status();
}

absl::Status PrintAlgorithmOptions(const std::vector<char*>& args) {
  if (args.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "describe takes one algorithm name; these have options: ",
        absl::StrJoin(algorithms::NewRunAlgorithms(), ", ")));
  }
  absl::StatusOr<std::string> described = algorithms::DescribeOptions(
      args[1], absl::GetFlag(FLAGS_config), absl::GetFlag(FLAGS_set));
  if (!described.ok()) return described.status();
  std::fputs(described->c_str(), stdout);
  return absl::OkStatus();
}

absl::StatusOr<CoordinatorOptions> CoordinatorOptionsFromFlags() {
  absl::StatusOr<const algorithms::AlgorithmDefinition*> algorithm = AlgorithmFromFlags();
  if (!algorithm.ok()) return algorithm.status();
  CoordinatorOptions options;
  options.eval_ranking = (*algorithm)->ranking;
  options.state_dir = absl::GetFlag(FLAGS_state_dir);
  options.dropout_fraction = absl::GetFlag(FLAGS_dropout_fraction);
  options.stage_timeout = absl::Seconds(absl::GetFlag(FLAGS_stage_timeout_s));
  const double log_period_s = absl::GetFlag(FLAGS_misbehaviour_log_period_s);
  if (!(log_period_s > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--misbehaviour_log_period_s=", log_period_s, ": need > 0"));
  }
  options.misbehaviour_log_period = absl::Seconds(log_period_s);
  options.max_failed_rounds = absl::GetFlag(FLAGS_max_failed_rounds);
  if (options.max_failed_rounds < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max_failed_rounds=", options.max_failed_rounds, ": need >= 0"));
  }
  // The ledger is reported at the run's delta when it has one, else at the default 1e-5.
  if (const std::optional<double> delta = absl::GetFlag(FLAGS_delta); delta.has_value()) {
    if (!(*delta >= 0 && *delta < 1)) {
      return absl::InvalidArgumentError(absl::StrCat("--delta must be in [0, 1), got ", *delta));
    }
    if (*delta > 0) options.report_delta = *delta;
  }
  options.run_id = absl::GetFlag(FLAGS_run_id);
  options.publish_every = absl::GetFlag(FLAGS_publish_every);
  if (options.publish_every < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--publish_every=", options.publish_every, ": need >= 0"));
  }
  absl::StatusOr<std::unique_ptr<ModelStore>> models = ModelStore::Open(
      {.dir = options.state_dir.empty() ? ""
                                        : (std::filesystem::path(options.state_dir) / "models").string(),
       .keep = absl::GetFlag(FLAGS_model_retention)});
  if (!models.ok()) {
    return absl::Status(models.status().code(),
                        absl::StrCat("--model_retention, --state_dir: ", models.status().message()));
  }
  options.models = *std::move(models);
  absl::StatusOr<GraphMode> graph = ParseGraphMode(absl::GetFlag(FLAGS_secagg_graph));
  if (!graph.ok()) return graph.status();
  options.secagg_graph = *graph;
  options.corrupt_fraction = absl::GetFlag(FLAGS_corrupt_fraction);
  options.harary_degree = absl::GetFlag(FLAGS_secagg_degree);
  options.signatures = absl::GetFlag(FLAGS_secagg_signatures);
  options.consistency_check = absl::GetFlag(FLAGS_secagg_consistency_check);
  if (!(options.corrupt_fraction >= 0 && options.corrupt_fraction < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--corrupt_fraction must be in [0, 1), got ", options.corrupt_fraction));
  }
  const std::string eval_every = absl::GetFlag(FLAGS_eval_every);
  if (eval_every == "auto") {
    options.eval_every = CoordinatorOptions::kEvalEveryAuto;
  } else if (!absl::SimpleAtoi(eval_every, &options.eval_every) || options.eval_every < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--eval_every must be auto or a whole number >= 0, got '", eval_every, "'"));
  }
  options.eval_participation = absl::GetFlag(FLAGS_eval_participation);
  if (!(options.eval_participation >= 0 && options.eval_participation <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--eval_participation must be in [0, 1], got ", options.eval_participation));
  }
  const int64_t max_plan_bytes = absl::GetFlag(FLAGS_max_plan_bytes);
  if (absl::Status s = wire::ValidateTransferBytes("--max_plan_bytes", max_plan_bytes); !s.ok()) {
    return s;
  }
  options.max_plan_bytes = static_cast<uint64_t>(max_plan_bytes);
  return options;
}

namespace {

// A run resumes with the options it started with: FailedPrecondition naming both when --config and
// --set now make others (a checkpoint from before options were recorded is not checked).
absl::Status CheckResumedOptions(absl::string_view algorithm, const CoordinatorState& resumed,
                                 absl::string_view checkpoint) {
  if (resumed.options.empty()) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> options = algorithms::ResolveOptions(
      algorithm, absl::GetFlag(FLAGS_config), absl::GetFlag(FLAGS_set));
  if (!options.ok()) return options.status();
  const std::string now = algorithms::OptionsText(**options);
  if (now == resumed.options) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      checkpoint, " is a run started with options {", resumed.options, "}; --config and --set now "
      "make {", now, "}: a run keeps its options, so resume it with the flags it started with"));
}

}  // namespace

absl::StatusOr<CoordinatorState> InitialStateFromFlags(int64_t users, int32_t items,
                                                       bool simulation_summed_noise) {
  absl::StatusOr<const algorithms::AlgorithmDefinition*> algorithm = AlgorithmFromFlags();
  if (!algorithm.ok()) return algorithm.status();
  const std::string& name = (*algorithm)->name;
  if (const std::string state_dir = absl::GetFlag(FLAGS_state_dir); !state_dir.empty()) {
    absl::StatusOr<std::optional<CoordinatorState>> loaded = LoadCheckpoint(state_dir);
    if (!loaded.ok()) return loaded.status();
    if (*loaded) {
      if ((*loaded)->algorithm != name) {
        return absl::FailedPreconditionError(absl::StrCat(
            CheckpointPath(state_dir), " is a run of algorithm '", (*loaded)->algorithm,
            "', not of --algorithm=", name, "; resume it with --algorithm=", (*loaded)->algorithm));
      }
      if (absl::Status s = CheckResumedOptions(name, **loaded, CheckpointPath(state_dir));
          !s.ok()) {
        return s;
      }
      EventLine("resume")
          .Add("state_dir", state_dir)
          .Add("rounds_done", (*loaded)->updater->round())
          .Add("ledger_entries", (*loaded)->ledger.entries().size());
      return std::move(**loaded);
    }
  }
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> options = algorithms::ResolveOptions(
      name, absl::GetFlag(FLAGS_config), absl::GetFlag(FLAGS_set));
  if (!options.ok()) return options.status();
  algorithms::RunSettings settings = RunSettingsFromFlags(name, users, items);
  settings.simulation_summed_noise = simulation_summed_noise;
  absl::StatusOr<algorithms::NewRun> run = algorithms::StartNewRun(name, settings, **options);
  if (!run.ok()) return run.status();
  const std::string options_text = algorithms::OptionsText(**options);
  if (simulation_summed_noise && !run->summed_noise) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--summed_noise: algorithm '", name, "' with these settings has no summed-noise shortcut "
        "(dpmf-rp with --set mechanism=gaussian has)"));
  }
  absl::StatusOr<dp::PrivacyLedger> ledger = dp::PrivacyLedger::Create();
  if (!ledger.ok()) return ledger.status();
  {
    EventLine line("new_run");
    for (const auto& [key, value] : run->log_fields) line.Add(key, value);
    line.Add("options", options_text);
  }
  ReportNoiseOutlook(name, *run->updater);
  return CoordinatorState{name,
                          std::move(run->updater),
                          std::move(*ledger),
                          settings.seed,
                          settings.rounds,
                          FixedPopulation(),
                          options_text};
}

absl::StatusOr<data::TrainTest> LoadSplitFromFlags(absl::string_view spec) {
  absl::StatusOr<data::RatingsDataset> data = data::LoadDataset(spec);
  if (!data.ok()) return data.status();
  absl::StatusOr<std::vector<data::TrainTest>> splits =
      data::MakeSplits(*data, absl::GetFlag(FLAGS_split), absl::GetFlag(FLAGS_split_seed));
  if (!splits.ok()) return splits.status();
  return std::move((*splits)[0]);
}

void EvaluateEveryRound(std::shared_ptr<const data::TrainTest> split, absl::string_view data_spec,
                        CoordinatorOptions& options) {
  options.evaluate = [split = std::move(split)](const algorithms::Updater& u) {
    return Evaluate(u, *split);
  };
  EventLine("simulation_evaluation")
      .Add("data", data_spec)
      .Add("split", absl::GetFlag(FLAGS_split));
}

}  // namespace fedmf::server
