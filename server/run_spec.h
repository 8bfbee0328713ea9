// A training run as one typed message, fedmf.v1.RunSpec (proto/fedmf/v1/run_spec.proto), made from
// the one-shot command-line flags (RunSpecFromFlags: exactly what they meant before a run was a
// message) or read from a text-format file (ReadRunSpec, --run=FILE), and checked whole before any
// data is loaded (ValidateRunSpec names the field and value of every bad value at once).
// coordinator_setup.h builds the coordinator's options and initial state from it.
#ifndef FEDMF_SERVER_RUN_SPEC_H_
#define FEDMF_SERVER_RUN_SPEC_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/new_run.h"
#include "fedmf/v1/run_spec.pb.h"
#include "google/protobuf/message.h"
#include "server/cohort.h"

namespace fedmf::server {

// The default of --algorithm; the algorithms themselves are registered (registry.h).
inline constexpr char kDefaultAlgorithm[] = "dpmf-rp";

// The run of this process: --run=FILE's spec, or the one the flags make (file empty).
struct ProcessRun {
  v1::RunSpec spec;
  std::string file;
  // "flags" or the file, for messages and event=new_run.
  std::string source() const { return file.empty() ? "flags" : file; }
};

// The flags that make a run (without their dashes), one per RunSpec field.
const std::vector<std::string>& RunFlagNames();

// The run the flags make, field by field (a field is named as its flag): --config and --set
// resolved into `options` whole (`set` empty), rounds, participation, delta and eval_every (auto)
// unset when their flags are, every other field set to its flag's value. NotFound for an unknown
// --algorithm; InvalidArgument naming --secagg_graph or --eval_every for a value that does not
// parse, and ResolveOptions' errors. An algorithm that cannot start a run leaves `options` unset
// (its checkpoint may still be resumed).
absl::StatusOr<v1::RunSpec> RunSpecFromFlags();

// The RunSpec in text format in file `path`, not validated: NotFound when it cannot be read,
// InvalidArgument "PATH:LINE:COLUMN: MESSAGE" (naming an unknown field) when it does not parse.
absl::StatusOr<v1::RunSpec> ReadRunSpec(absl::string_view path);

// --run=FILE (InvalidArgument naming every run flag also given, i.e. not at its default) or the
// flags; NotFound for an unknown algorithm; then ValidateRunSpec.
absl::StatusOr<ProcessRun> RunOfProcess();
// A process that takes no run of its own (fedmf-coordinator --service): InvalidArgument "`why`:
// drop --NAME=VALUE, ..." naming every run flag given and --run.
absl::Status CheckNoRun(absl::string_view why);

// OK, or InvalidArgument naming every bad value of `spec` as "FIELD=VALUE (need RANGE)" (flags:
// "--FIELD=VALUE"), after "FILE: " when `file` is given; the options are checked by the options
// machinery (options.h: every field exists and has its type). Ranges that depend on the data are
// the algorithm's to check when the run starts.
absl::Status ValidateRunSpec(const v1::RunSpec& spec, absl::string_view file = "");

// The algorithm's options of the run: `options` whole (unset: the algorithm's defaults), then
// each `set` override. options.h's errors (FailedPrecondition for an algorithm that cannot start
// a run).
absl::StatusOr<std::unique_ptr<google::protobuf::Message>> RunOptions(const v1::RunSpec& spec);

// `spec` with every unset field whose default does not depend on the algorithm's options set to
// it (rounds to the algorithm's default, epsilon, dropout_fraction, run_id, the SecAgg choices,
// the rating range, seed); participation, delta and eval_every stay unset when they are.
v1::RunSpec EffectiveRunSpec(const v1::RunSpec& spec);

// The run-level settings every algorithm shares (new_run.h) of EffectiveRunSpec(spec).
algorithms::RunSettings RunSettingsOf(const v1::RunSpec& spec, int64_t users, int32_t items);

// `spec` as the checkpoint records it and a resumed --run must match it: EffectiveRunSpec with
// `options_text` (the resolved options, OptionsText) as its options, no overrides, num_users and
// num_items as trained, no start condition (wait_for_users).
v1::RunSpec RecordedRunSpec(const v1::RunSpec& spec, const std::string& options_text, int64_t users,
                            int32_t items);

// The SecAgg graph mode (cohort.h) of spec.secagg_graph.
GraphMode SecAggGraphMode(const v1::RunSpec& spec);

// `spec` in text format: one field a line, or all on one line.
std::string RunSpecText(const v1::RunSpec& spec, bool single_line = false);

// A short name of `spec`: the first 16 hex digits of the SHA-256 of its one-line text.
std::string RunSpecId(const v1::RunSpec& spec);

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_RUN_SPEC_H_
