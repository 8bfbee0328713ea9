// What the Admin service's run RPCs (SubmitRun, ListRuns, CancelRun) ask of the coordinator's
// runs: submitting, listing and cancelling, each by the caller's admin identity. Implemented by
// SharedRunQueue (shared_run_queue.h: the run queue behind a lock, validated) and by fakes in
// tests. Thread-safe: gRPC threads call it.
#ifndef FEDMF_SERVER_RUN_CONTROL_H_
#define FEDMF_SERVER_RUN_CONTROL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "fedmf/v1/federation.pb.h"
#include "fedmf/v1/run_queue.pb.h"
#include "fedmf/v1/run_spec.pb.h"

namespace fedmf::server {

class RunControl {
 public:
  virtual ~RunControl() = default;
  // Queues `spec`, submitted by `identity` (empty without mutual TLS): its record; InvalidArgument
  // naming every bad field and value.
  virtual absl::StatusOr<v1::RunRecord> Submit(const v1::RunSpec& spec,
                                               absl::string_view identity) = 0;
  // Every run, ascending id.
  virtual v1::ListRunsResponse List() const = 0;
  // Cancels run `id` (a running one stops at its next round boundary): its record; NotFound for an
  // unknown id, FailedPrecondition for a run that already ended.
  virtual absl::StatusOr<v1::RunRecord> Cancel(int64_t id, absl::string_view identity) = 0;
};

// Fills `status.runs` from `runs`' list; nothing when `runs` is null (a one-shot coordinator).
void AddRunCounts(const RunControl* runs, v1::StatusResponse& status);

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_RUN_CONTROL_H_
