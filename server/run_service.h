// The long-running coordinator's service loop (issue 43, "runs as a resource"): executes the
// submitted runs one at a time in queue order (SharedRunQueue::Next, so that after a restart the
// run that was running resumes first), each through the RunExecutor with the run's own directory
// (STATE_DIR/runs/<id>/: its checkpoint, ledger and models), and records how it ended: done
// (Execute returned OK), failed (its error) or cancelled (CancelRun while it ran: Poll stops it).
// Shutdown stops the run in progress without ending it, so the restarted service resumes it.
// Between runs it sleeps until a submission. What lives as long as the process (the transport:
// registrations, streams, published models) is the executor's, not this loop's.
#ifndef FEDMF_SERVER_RUN_SERVICE_H_
#define FEDMF_SERVER_RUN_SERVICE_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "fedmf/v1/run_queue.pb.h"
#include "server/shared_run_queue.h"

namespace fedmf::server {

// Executes one run; the process's coordinator, or a fake in tests.
class RunExecutor {
 public:
  virtual ~RunExecutor() = default;
  // Trains `run` with its state in `dir` (resuming the checkpoint there, if any) until it ends:
  // OK when its rounds are done or its budget is spent, an error when it failed; or, after Stop,
  // soon with any status (the service knows why it stopped it).
  virtual absl::Status Execute(const v1::RunRecord& run, const std::string& dir) = 0;
  // Any thread: the Execute of run `id`, in progress or about to begin, returns soon; nothing for
  // another run's (a stop that comes late does not stop the next run).
  virtual void Stop(int64_t id) = 0;
};

class RunService {
 public:
  // Both outlive the service.
  RunService(SharedRunQueue& queue, RunExecutor& executor) : queue_(queue), executor_(executor) {}

  // Executes runs until Shutdown: OK then; the queue's error when its file cannot be written.
  // Logs event=run_start, event=run_end (id, state, detail) and event=run_interrupted.
  absl::Status Serve();
  // Any thread, e.g. once a second: stops the run in progress when CancelRun asked for it.
  void Poll();
  // Any thread: Serve returns once the run in progress (left running in the queue) stopped.
  void Shutdown();

  // The id of the run in progress; 0 between runs.
  int64_t running_id() const { return running_id_.load(); }

  // Between runs, how long Serve sleeps before looking at the queue again without a change.
  static constexpr absl::Duration kIdleRecheck = absl::Seconds(1);

 private:
  // Executes `run` and records its end (unless the service shuts down).
  absl::Status ExecuteOne(const v1::RunRecord& run);

  SharedRunQueue& queue_;
  RunExecutor& executor_;
  std::atomic<int64_t> running_id_{0};
  std::atomic<int64_t> cancelled_id_{0};  // the run Poll stopped for CancelRun
  std::atomic<bool> shutdown_{false};
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_RUN_SERVICE_H_
