// The long-running coordinator's submitted runs, one at a time in submission order: Submit gives a
// RunSpec an id (1, 2, ...) and queues it, Next starts the oldest queued run (or returns the one
// already running: a restarted service resumes it), Finish ends it done, failed or cancelled, and
// Cancel ends a queued run at once or asks a running one to stop. Every change is persisted before
// it returns (STATE_DIR/runs/queue.pb, replaced atomically: a change that cannot be written is not
// made); each run keeps its checkpoint, ledger and models in its own STATE_DIR/runs/<id>/. Sans-IO
// apart from that one file: no threads, no clock (callers pass the time); not thread-safe.
#ifndef FEDMF_SERVER_RUN_QUEUE_H_
#define FEDMF_SERVER_RUN_QUEUE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "fedmf/v1/run_queue.pb.h"
#include "fedmf/v1/run_spec.pb.h"

namespace fedmf::server {

class RunQueue {
 public:
  // The queue persisted under `state_dir` (STATE_DIR/runs/queue.pb), or an empty one when there is
  // no such file yet; `state_dir` empty: in memory only (nothing survives the process). DataLoss
  // naming the file when it does not parse or is inconsistent (an id repeated, out of order or not
  // below next_id, a state unspecified, more than one run running).
  static absl::StatusOr<RunQueue> Open(std::string state_dir);

  // Queues `spec` (not validated here: the caller validates, run_spec.h) as the next id, with
  // spec.run_id set to "run-<id>" when unset; InvalidArgument naming the run_id when another run
  // of the queue has it (each run binds its own into its SecAgg sessions).
  absl::StatusOr<v1::RunRecord> Submit(v1::RunSpec spec, absl::string_view submitted_by,
                                       absl::Time now);
  // A queued run is cancelled at once; a running one gets cancel_requested (its runner stops it
  // and calls Finish with RUN_STATE_CANCELLED); NotFound for an unknown id, FailedPrecondition
  // for a run that already ended. The record as it is now.
  absl::StatusOr<v1::RunRecord> Cancel(int64_t id, absl::string_view cancelled_by, absl::Time now);
  // The run to execute now: the running one, if any (after a restart: resume it), else the oldest
  // queued one, now running; nullopt when nothing is queued.
  absl::StatusOr<std::optional<v1::RunRecord>> Next(absl::Time now);
  // Ends the running run `id` as `state` (done, failed or cancelled) with `detail`;
  // FailedPrecondition when `id` is not the running run, InvalidArgument for another state.
  absl::Status Finish(int64_t id, v1::RunState state, absl::string_view detail, absl::Time now);

  // Every run, ascending id.
  const google::protobuf::RepeatedPtrField<v1::RunRecord>& runs() const { return state_.runs(); }
  // Run `id`, or null.
  const v1::RunRecord* Find(int64_t id) const;
  // The running run, or null.
  const v1::RunRecord* Running() const;
  // STATE_DIR/runs/<id>: run `id`'s checkpoint directory (empty in memory only).
  std::string RunDir(int64_t id) const;
  // STATE_DIR/runs/queue.pb (empty in memory only).
  const std::string& path() const { return path_; }

  // The file's name inside STATE_DIR/runs.
  static constexpr char kFileName[] = "queue.pb";

 private:
  RunQueue(std::string runs_dir, v1::RunQueueState state)
      : runs_dir_(std::move(runs_dir)),
        path_(runs_dir_.empty() ? "" : runs_dir_ + "/" + kFileName),
        state_(std::move(state)) {}
  // Writes `next` atomically (when persisted), then makes it the state.
  absl::Status Commit(v1::RunQueueState next);

  std::string runs_dir_;  // STATE_DIR/runs, or empty
  std::string path_;
  v1::RunQueueState state_;
};

// "queued", "running", "done", "failed", "cancelled" (what `fedmf-coordinator runs` prints).
std::string RunStateName(v1::RunState state);

// `record` on one line of key=value pairs, as `fedmf-coordinator runs` prints it: id, state,
// run_id, algorithm, rounds (or "default"), submitted_by, the times (RFC 3339 UTC, "-" before the
// event), cancel_requested when set and detail (quoted) when not empty.
std::string RunRecordLine(const v1::RunRecord& record);

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_RUN_QUEUE_H_
