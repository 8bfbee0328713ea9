// The run's settings shared by fedmf-coordinator and fedmf-sim (tools/sim), as command-line flags
// defined once here (algorithm and its options (--config, --set; options.h), privacy, rounds,
// SecAgg tolerance, state directory, split), and what they
// build: the CoordinatorOptions, the initial CoordinatorState (resumed from --state_dir or a fresh
// run of --algorithm) and the simulation-only evaluation data.
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
#include "common/util/cli.h"
#include "server/checkpoint.h"
#include "server/coordinator.h"

namespace fedmf::server {

// `usage` followed by the registered algorithms, one line each: the usage message of --help, set
// before the flags are parsed.
std::string UsageWithAlgorithms(absl::string_view usage);

// The flags of the run that may be given many times (--set), for InitCommandLine.
std::vector<RepeatedFlag> RepeatedRunFlags();

// Whether --config and --set make options of --algorithm (the file parses, every field exists,
// every value has its field's type): called at start, before any data is loaded. Whether a value
// is in range is checked when the run starts, which needs the data's shape.
absl::Status CheckOptionsFromFlags();

// `describe NAME` (args = {"describe", NAME}): prints the options of algorithm NAME as --config
// and --set make them, their defaults and documentation (options.h DescribeOptions);
// InvalidArgument without a name or for a bad option, FailedPrecondition for an algorithm that
// cannot start a run here.
absl::Status PrintAlgorithmOptions(const std::vector<char*>& args);

// The algorithm --algorithm names; NotFound listing the registered ones that train.
absl::StatusOr<const algorithms::AlgorithmDefinition*> AlgorithmFromFlags();

// state_dir, dropout_fraction, stage timeout, run_id and federated evaluation from the flags, the
// evaluation's ranking options from the algorithm's (InvalidArgument for a bad value, NotFound
// for an unknown --algorithm); the caller sets the rest (enrollment token, num_users,
// wait_for_users, evaluate).
absl::StatusOr<CoordinatorOptions> CoordinatorOptionsFromFlags();

// The checkpoint in --state_dir if there is one (event=resume; FailedPrecondition when it is a run
// of another algorithm than --algorithm), else a fresh run of --algorithm from the flags
// (event=new_run with the algorithm's fields). `simulation_summed_noise` (fedmf-sim --summed_noise
// only): RunSettings::simulation_summed_noise of a fresh run; InvalidArgument when the algorithm
// has no such shortcut.
absl::StatusOr<CoordinatorState> InitialStateFromFlags(int64_t users, int32_t items,
                                                       bool simulation_summed_noise = false);

// Loads dataset `spec` and returns the first train/test pair of --split with --split_seed (what
// fedmf-client trains on and the simulation evaluates on).
absl::StatusOr<data::TrainTest> LoadSplitFromFlags(absl::string_view spec);

// Simulation only: scores the model on `split.test` after every round (evaluation.h); logs
// event=simulation_evaluation naming `data_spec` and the split.
void EvaluateEveryRound(std::shared_ptr<const data::TrainTest> split, absl::string_view data_spec,
                        CoordinatorOptions& options);

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_COORDINATOR_SETUP_H_
