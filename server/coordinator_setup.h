// What fedmf-coordinator and fedmf-sim (tools/sim) build from their run (a RunSpec: --run=FILE or
// the one-shot flags, run_spec.h) and the process flags they share (state directory, split, stage
// deadline, plan bound): the CoordinatorOptions, the initial CoordinatorState (resumed from
// --state_dir or a fresh run of the run's algorithm) and the simulation-only evaluation data.
#ifndef FEDMF_SERVER_COORDINATOR_SETUP_H_
#define FEDMF_SERVER_COORDINATOR_SETUP_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/registry.h"
#include "common/data/splits.h"
#include "common/mf/factor_model.h"
#include "common/util/cli.h"
#include "fedmf/v1/run_queue.pb.h"
#include "server/checkpoint.h"
#include "server/coordinator.h"
#include "server/coordinator_executor.h"
#include "server/model_store.h"
#include "server/run_spec.h"

namespace fedmf::server {

// `usage` followed by the registered algorithms, one line each: the usage message of --help, set
// before the flags are parsed.
std::string UsageWithAlgorithms(absl::string_view usage);

// The flags of the run that may be given many times (--set), for InitCommandLine.
std::vector<RepeatedFlag> RepeatedRunFlags();

// `describe NAME` (args = {"describe", NAME}): prints the options of algorithm NAME as --config
// and --set make them, their defaults and documentation (options.h DescribeOptions);
// InvalidArgument without a name or for a bad option, FailedPrecondition for an algorithm that
// cannot start a run here.
absl::Status PrintAlgorithmOptions(const std::vector<char*>& args);

// `describe-run` (args = {"describe-run"}): prints the process's run in text format, a file for
// --run=FILE; RunOfProcess' errors.
absl::Status PrintRunSpec(const std::vector<char*>& args);

// The options of `spec`'s run (its cohort rules, start condition, evaluation, run id, publishing,
// SecAgg choices and population size) with the process flags (state_dir, stage timeout, model
// retention, plan bound; InvalidArgument naming a bad one) and the evaluation's ranking options
// of the algorithm (NotFound for an unknown one); the caller sets the rest (enrollment token,
// num_users when the spec leaves it to the data, evaluate). `spec` is valid (ValidateRunSpec).
absl::StatusOr<CoordinatorOptions> CoordinatorOptionsForRun(const v1::RunSpec& spec);
// The same with `state_dir` as the run's checkpoint directory instead of --state_dir (a queued
// run's STATE_DIR/runs/<id>/, run_queue.h) and `models` as its model store (the service's one for
// all its runs; null: one opened in STATE_DIR/models as above).
absl::StatusOr<CoordinatorOptions> CoordinatorOptionsForRun(const v1::RunSpec& spec,
                                                            const std::string& state_dir,
                                                            std::shared_ptr<ModelStore> models);
// The model store in STATE_DIR/models (empty `state_dir`: in memory) keeping --model_retention
// versions; ModelStore::Open's errors, naming the flags.
absl::StatusOr<std::shared_ptr<ModelStore>> OpenModelStore(const std::string& state_dir);
// CoordinatorOptionsForRun of RunOfProcess().
absl::StatusOr<CoordinatorOptions> CoordinatorOptionsFromFlags();

// The checkpoint in --state_dir if there is one (event=resume; FailedPrecondition when it is a run
// of another algorithm, with other options, or, for a run from a file, another recorded run:
// RecordedRunSpec), else a fresh run of `run` on `users` x `items` (event=new_run with the
// algorithm's fields, the options, run=flags|FILE and run_spec=RunSpecId of the recorded run,
// which the state holds). `simulation_summed_noise` (fedmf-sim --summed_noise only):
// RunSettings::simulation_summed_noise of a fresh run; InvalidArgument when the algorithm has no
// such shortcut. A fresh run with start_from_version starts from that model of `models`
// (StartItemFactors' errors; FailedPrecondition without a store).
absl::StatusOr<CoordinatorState> InitialStateForRun(const ProcessRun& run, int64_t users,
                                                    int32_t items,
                                                    bool simulation_summed_noise = false,
                                                    const ModelStore* models = nullptr);
// The same with the checkpoint in `state_dir` instead of --state_dir (empty: a fresh run).
absl::StatusOr<CoordinatorState> InitialStateInDir(const ProcessRun& run, int64_t users,
                                                   int32_t items, const std::string& state_dir,
                                                   bool simulation_summed_noise = false,
                                                   const ModelStore* models = nullptr);
// The item factors of the model `spec.start_from_version` names in `models` (0: the newest final
// model), and that model's version: NotFound when the store does not hold it (naming the versions
// it keeps), FailedPrecondition when `models` is null, PublishedItemFactors' errors naming the
// version.
struct StartModel {
  mf::FactorMatrix item_factors;
  v1::ModelVersion version;
};
absl::StatusOr<StartModel> StartItemFactors(const v1::RunSpec& spec, const ModelStore* models);
// InitialStateForRun of RunOfProcess().
absl::StatusOr<CoordinatorState> InitialStateFromFlags(int64_t users, int32_t items,
                                                       bool simulation_summed_noise = false);

// What the long-running service's runs take from the process: its model store, and, when it has
// data (--eval_data), the shape of a run that leaves num_users or num_items 0 and the split the
// simulation scores each round on.
struct ServiceData {
  std::shared_ptr<ModelStore> models;
  int64_t users = 0;
  int32_t items = 0;
  std::shared_ptr<const data::TrainTest> eval_split;  // null: no scoring
  std::string eval_spec;                              // the dataset of eval_split, for the log
};
// Queued run `run`'s options (CoordinatorOptionsForRun in `dir`, the run's directory, with the
// service's store) and state (its checkpoint in `dir`, resumed, or a fresh run:
// InitialStateInDir); their errors, and InvalidArgument when the run's shape is unknown.
absl::StatusOr<PreparedRun> PrepareQueuedRun(const v1::RunRecord& run, const std::string& dir,
                                             const ServiceData& data);

// Loads dataset `spec` and returns the first train/test pair of --split with --split_seed (what
// fedmf-client trains on and the simulation evaluates on).
absl::StatusOr<data::TrainTest> LoadSplitFromFlags(absl::string_view spec);

// Simulation only: scores the model on `split.test` after every round (evaluation.h); logs
// event=simulation_evaluation naming `data_spec` and the split.
void EvaluateEveryRound(std::shared_ptr<const data::TrainTest> split, absl::string_view data_spec,
                        CoordinatorOptions& options);

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_COORDINATOR_SETUP_H_
