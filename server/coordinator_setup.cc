#include "server/coordinator_setup.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/algorithms/new_run.h"
#include "common/algorithms/noise_outlook.h"
#include "common/algorithms/options.h"
#include "common/algorithms/registry.h"
#include "common/algorithms/start_model.h"
#include "common/data/dataset_source.h"
#include "common/data/split_spec.h"
#include "common/util/event_log.h"
#include "google/protobuf/util/message_differencer.h"
#include "server/cohort.h"
#include "server/evaluation.h"
#include "server/run_spec.h"
#include "wire/chunking.h"

ABSL_DECLARE_FLAG(std::string, config);
ABSL_DECLARE_FLAG(std::vector<std::string>, set);

ABSL_FLAG(std::string, state_dir, "", "checkpoint directory; resumes from it when it holds one");
ABSL_FLAG(std::string, split, "holdout:0.2",
          "train/test split of the data (must match the clients'); users train on the train part");
ABSL_FLAG(uint64_t, split_seed, 1, "seed of the split (must match the clients')");
ABSL_FLAG(double, stage_timeout_s, 20, "deadline of each SecAgg stage; late clients are dropped");
ABSL_FLAG(double, misbehaviour_log_period_s, 10,
          "tolerated SecAgg misbehaviour is logged at most once per participant per this many "
          "seconds, with the count of its events since its previous line");
ABSL_FLAG(int32_t, model_retention, 3,
          "published model versions kept (>= 1), besides the newest final model; with "
          "--state_dir they persist in STATE_DIR/models");
ABSL_FLAG(int64_t, max_plan_bytes, static_cast<int64_t>(fedmf::wire::kMaxTransferBytes),
          "largest round task (plan plus 1 MiB of SecAgg parameters) sent to clients, in bytes; "
          "a larger plan stops the run with RESOURCE_EXHAUSTED. Raise it (64 MiB to 2147483647, "
          "protobuf's limit) only with the clients' --max_download_bytes, which must be at "
          "least as large (fedmf-sim's in-process clients take this bound)");

namespace fedmf::server {

namespace {

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

std::string UsageWithAlgorithms(absl::string_view usage) {
  return absl::StrCat(usage, "\n\nAlgorithms (--algorithm=NAME, default ", kDefaultAlgorithm,
                      "; `describe NAME` lists its options, for --config and --set):\n",
                      absl::StripSuffix(algorithms::DescribeAlgorithms(), "\n"));
}

std::vector<RepeatedFlag> RepeatedRunFlags() { return {{.name = "set", .flag = &FLAGS_set}}; }

absl::Status PrintAlgorithmOptions(const std::vector<char*>& args) {
  if (args.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("describe takes one algorithm name; these have options: ",
                     absl::StrJoin(algorithms::NewRunAlgorithms(), ", ")));
  }
  absl::StatusOr<std::string> described =
      algorithms::DescribeOptions(args[1], absl::GetFlag(FLAGS_config), absl::GetFlag(FLAGS_set));
  if (!described.ok()) return described.status();
  std::fputs(described->c_str(), stdout);
  return absl::OkStatus();
}

absl::Status PrintRunSpec(const std::vector<char*>& args) {
  if (args.size() != 1) {
    return absl::InvalidArgumentError(
        "describe-run takes no argument: it prints the run the flags (or --run) make");
  }
  absl::StatusOr<ProcessRun> run = RunOfProcess();
  if (!run.ok()) return run.status();
  std::fputs(RunSpecText(run->spec).c_str(), stdout);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<ModelStore>> OpenModelStore(const std::string& state_dir) {
  absl::StatusOr<std::unique_ptr<ModelStore>> opened = ModelStore::Open(
      {.dir = state_dir.empty() ? "" : (std::filesystem::path(state_dir) / "models").string(),
       .keep = absl::GetFlag(FLAGS_model_retention)});
  if (!opened.ok()) {
    return absl::Status(opened.status().code(), absl::StrCat("--model_retention, --state_dir: ",
                                                             opened.status().message()));
  }
  return std::shared_ptr<ModelStore>(*std::move(opened));
}

absl::StatusOr<CoordinatorOptions> CoordinatorOptionsForRun(const v1::RunSpec& given) {
  return CoordinatorOptionsForRun(given, absl::GetFlag(FLAGS_state_dir), nullptr);
}

absl::StatusOr<CoordinatorOptions> CoordinatorOptionsForRun(const v1::RunSpec& given,
                                                            const std::string& state_dir,
                                                            std::shared_ptr<ModelStore> models) {
  absl::StatusOr<const algorithms::AlgorithmDefinition*> algorithm =
      algorithms::FindTrainingAlgorithm(given.algorithm());
  if (!algorithm.ok()) return algorithm.status();
  const v1::RunSpec spec = EffectiveRunSpec(given);
  CoordinatorOptions options;
  options.eval_ranking = (*algorithm)->ranking;
  options.state_dir = state_dir;
  options.dropout_fraction = spec.dropout_fraction();
  options.stage_timeout = absl::Seconds(absl::GetFlag(FLAGS_stage_timeout_s));
  const double log_period_s = absl::GetFlag(FLAGS_misbehaviour_log_period_s);
  if (!(log_period_s > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--misbehaviour_log_period_s=", log_period_s, ": need > 0"));
  }
  options.misbehaviour_log_period = absl::Seconds(log_period_s);
  options.max_failed_rounds = spec.max_failed_rounds();
  options.wait_for_users = spec.wait_for_users();
  options.num_users = spec.num_users();
  // The ledger is reported at the run's delta when it has one, else at the default 1e-5.
  if (spec.has_delta() && spec.delta() > 0) options.report_delta = spec.delta();
  options.run_id = spec.run_id();
  options.publish_every = spec.publish_every();
  if (models == nullptr) {
    absl::StatusOr<std::shared_ptr<ModelStore>> opened = OpenModelStore(state_dir);
    if (!opened.ok()) return opened.status();
    models = *std::move(opened);
  }
  options.models = std::move(models);
  options.secagg_graph = SecAggGraphMode(spec);
  options.corrupt_fraction = spec.corrupt_fraction();
  options.harary_degree = spec.secagg_degree();
  options.signatures = spec.secagg_signatures();
  options.consistency_check = spec.secagg_consistency_check();
  options.eval_every =
      spec.has_eval_every() ? spec.eval_every() : CoordinatorOptions::kEvalEveryAuto;
  options.eval_participation = spec.eval_participation();
  const int64_t max_plan_bytes = absl::GetFlag(FLAGS_max_plan_bytes);
  if (absl::Status s = wire::ValidateTransferBytes("--max_plan_bytes", max_plan_bytes); !s.ok()) {
    return s;
  }
  options.max_plan_bytes = static_cast<uint64_t>(max_plan_bytes);
  return options;
}

absl::StatusOr<CoordinatorOptions> CoordinatorOptionsFromFlags() {
  absl::StatusOr<ProcessRun> run = RunOfProcess();
  if (!run.ok()) return run.status();
  return CoordinatorOptionsForRun(run->spec);
}

namespace {

// A run resumes with the options it started with: FailedPrecondition naming both when the run now
// makes others (a checkpoint from before options were recorded is not checked); a run from a file
// must be the checkpoint's recorded run (a checkpoint from before runs were recorded is not
// checked), fields that differ named.
absl::Status CheckResumedRun(const ProcessRun& run, const CoordinatorState& resumed,
                             absl::string_view checkpoint, int64_t users, int32_t items) {
  if (resumed.options.empty()) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> options = RunOptions(run.spec);
  if (!options.ok()) return options.status();
  const std::string now = algorithms::OptionsText(**options);
  if (now != resumed.options) {
    return absl::FailedPreconditionError(absl::StrCat(
        checkpoint, " is a run started with options {", resumed.options, "}; ",
        run.file.empty() ? "--config and --set now make" : absl::StrCat(run.file, " makes"), " {",
        now, "}: a run keeps its options, so resume it with the ",
        run.file.empty() ? "flags" : "run", " it started with"));
  }
  if (run.file.empty() || !resumed.run_spec.has_value()) return absl::OkStatus();
  std::string differences;
  google::protobuf::util::MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&differences);
  if (differencer.Compare(*resumed.run_spec, RecordedRunSpec(run.spec, now, users, items))) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(
      absl::StrCat(checkpoint, " is another run than --run=", run.file, " (recorded, then now): ",
                   absl::StrJoin(absl::StrSplit(absl::StripSuffix(differences, "\n"), '\n'), "; "),
                   "; resume it with the run it started with"));
}

}  // namespace

absl::StatusOr<StartModel> StartItemFactors(const v1::RunSpec& spec, const ModelStore* models) {
  const int64_t wanted = spec.start_from_version();
  const std::string field = absl::StrCat("start_from_version=", wanted);
  if (models == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(field, ": this process has no model store to start from"));
  }
  std::shared_ptr<const ModelStore::Published> published =
      wanted == 0 ? models->LatestFinal() : models->Find(wanted);
  if (published == nullptr) {
    const std::vector<int64_t> kept = models->Versions();
    return absl::NotFoundError(absl::StrCat(
        field, ": the model store holds no ", wanted == 0 ? "final model" : "such version",
        " (it keeps ", kept.empty() ? "none" : absl::StrCat("versions ", absl::StrJoin(kept, ", ")),
        ")"));
  }
  v1::RoundPlan plan;
  if (!plan.ParseFromString(published->model)) {
    return absl::DataLossError(absl::StrCat(field, ": model version ", published->version.version(),
                                            " is not a round plan"));
  }
  absl::StatusOr<mf::FactorMatrix> factors = algorithms::PublishedItemFactors(plan);
  if (!factors.ok()) {
    return absl::Status(factors.status().code(),
                        absl::StrCat(field, ": model version ", published->version.version(), ": ",
                                     factors.status().message()));
  }
  return StartModel{.item_factors = *std::move(factors), .version = published->version};
}

absl::StatusOr<CoordinatorState> InitialStateForRun(const ProcessRun& run, int64_t users,
                                                    int32_t items, bool simulation_summed_noise,
                                                    const ModelStore* models) {
  return InitialStateInDir(run, users, items, absl::GetFlag(FLAGS_state_dir),
                           simulation_summed_noise, models);
}

absl::StatusOr<CoordinatorState> InitialStateInDir(const ProcessRun& run, int64_t users,
                                                   int32_t items, const std::string& state_dir,
                                                   bool simulation_summed_noise,
                                                   const ModelStore* models) {
  absl::StatusOr<const algorithms::AlgorithmDefinition*> algorithm =
      algorithms::FindTrainingAlgorithm(run.spec.algorithm());
  if (!algorithm.ok()) return algorithm.status();
  const std::string& name = (*algorithm)->name;
  if (!state_dir.empty()) {
    absl::StatusOr<std::optional<CoordinatorState>> loaded = LoadCheckpoint(state_dir);
    if (!loaded.ok()) return loaded.status();
    if (*loaded) {
      if ((*loaded)->algorithm != name) {
        const std::string given = run.file.empty()
                                      ? absl::StrCat("--algorithm=", name)
                                      : absl::StrCat("algorithm ", name, " (--run=", run.file, ")");
        return absl::FailedPreconditionError(
            absl::StrCat(CheckpointPath(state_dir), " is a run of algorithm '",
                         (*loaded)->algorithm, "', not of ", given, "; resume it with ",
                         run.file.empty() ? "--algorithm=" : "algorithm ", (*loaded)->algorithm));
      }
      if (absl::Status s = CheckResumedRun(run, **loaded, CheckpointPath(state_dir), users, items);
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
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> options = RunOptions(run.spec);
  if (!options.ok()) return options.status();
  algorithms::RunSettings settings = RunSettingsOf(run.spec, users, items);
  settings.simulation_summed_noise = simulation_summed_noise;
  std::optional<v1::ModelVersion> start_version;
  if (run.spec.has_start_from_version()) {
    absl::StatusOr<StartModel> start = StartItemFactors(run.spec, models);
    if (!start.ok()) return start.status();
    settings.start_item_factors = std::move(start->item_factors);
    start_version = std::move(start->version);
  }
  absl::StatusOr<algorithms::NewRun> started = algorithms::StartNewRun(name, settings, **options);
  if (!started.ok()) return started.status();
  const std::string options_text = algorithms::OptionsText(**options);
  if (simulation_summed_noise && !started->summed_noise) {
    return absl::InvalidArgumentError(
        absl::StrCat("--summed_noise: algorithm '", name,
                     "' with these settings has no summed-noise shortcut "
                     "(dpmf-rp with --set mechanism=gaussian has, lfl-sgdmf with noise, and "
                     "hdpmf except its noiseless variant mf)"));
  }
  absl::StatusOr<dp::PrivacyLedger> ledger = dp::PrivacyLedger::Create();
  if (!ledger.ok()) return ledger.status();
  v1::RunSpec recorded = RecordedRunSpec(run.spec, options_text, users, items);
  {
    EventLine line("new_run");
    for (const auto& [key, value] : started->log_fields) line.Add(key, value);
    if (start_version.has_value()) {
      line.Add("start_model_version", start_version->version())
          .Add("start_model_run_id", start_version->run_id())
          .Add("start_model_algorithm", start_version->algorithm());
    }
    line.Add("options", options_text).Add("run", run.source()).Add("run_spec", RunSpecId(recorded));
  }
  ReportNoiseOutlook(name, *started->updater);
  return CoordinatorState{name,
                          std::move(started->updater),
                          std::move(*ledger),
                          settings.seed,
                          settings.rounds,
                          FixedPopulation(),
                          options_text,
                          std::move(recorded)};
}

absl::StatusOr<CoordinatorState> InitialStateFromFlags(int64_t users, int32_t items,
                                                       bool simulation_summed_noise) {
  absl::StatusOr<ProcessRun> run = RunOfProcess();
  if (!run.ok()) return run.status();
  return InitialStateForRun(*run, users, items, simulation_summed_noise);
}

absl::StatusOr<data::TrainTest> LoadSplitFromFlags(absl::string_view spec) {
  absl::StatusOr<data::RatingsDataset> data = data::LoadDataset(spec);
  if (!data.ok()) return data.status();
  absl::StatusOr<std::vector<data::TrainTest>> splits =
      data::MakeSplits(*data, absl::GetFlag(FLAGS_split), absl::GetFlag(FLAGS_split_seed));
  if (!splits.ok()) return splits.status();
  return std::move((*splits)[0]);
}

absl::StatusOr<PreparedRun> PrepareQueuedRun(const v1::RunRecord& run, const std::string& dir,
                                             const ServiceData& data) {
  absl::StatusOr<CoordinatorOptions> options =
      CoordinatorOptionsForRun(run.spec(), dir, data.models);
  if (!options.ok()) return options.status();
  const int64_t users = run.spec().num_users() > 0 ? run.spec().num_users() : data.users;
  const int32_t items = run.spec().num_items() > 0 ? run.spec().num_items() : data.items;
  if (users <= 0 || items <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("run ", run.id(),
                     ": num_users and num_items are unset and the coordinator has no data "
                     "(--eval_data) to take them from"));
  }
  options->num_users = users;
  if (data.eval_split != nullptr) EvaluateEveryRound(data.eval_split, data.eval_spec, *options);
  const ProcessRun process_run{.spec = run.spec(), .file = absl::StrCat("queued run ", run.id())};
  absl::StatusOr<CoordinatorState> state = InitialStateInDir(
      process_run, users, items, dir, /*simulation_summed_noise=*/false, data.models.get());
  if (!state.ok()) return state.status();
  return PreparedRun{.options = *std::move(options), .state = *std::move(state)};
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
