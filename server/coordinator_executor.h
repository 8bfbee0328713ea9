// The RunExecutor of fedmf-coordinator's long-running service (run_service.h): prepares a queued
// run (its options and state: the checkpoint in the run's directory, or a fresh run), starts it on
// the process's Coordinator, whose router and streams outlive runs, and trains it on the calling
// thread. Stop cancels the run (Coordinator::CancelRun: its clients are told it is over), also a
// Stop that comes while the run is still being prepared. A service shutdown that must leave the
// run for its restart stops the Coordinator first (Coordinator::Stop), which a cancel never
// overrides.
#ifndef FEDMF_SERVER_COORDINATOR_EXECUTOR_H_
#define FEDMF_SERVER_COORDINATOR_EXECUTOR_H_

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fedmf/v1/run_queue.pb.h"
#include "server/checkpoint.h"
#include "server/coordinator.h"
#include "server/coordinator_options.h"
#include "server/run_service.h"

namespace fedmf::server {

// What Coordinator::StartRun takes.
struct PreparedRun {
  CoordinatorOptions options;
  CoordinatorState state;
};

class CoordinatorExecutor final : public RunExecutor {
 public:
  // `prepare(run, dir)`: the run's options and state (PrepareQueuedRun; a fake in tests); its
  // error fails the run. `coordinator` outlives the executor.
  using Prepare =
      std::function<absl::StatusOr<PreparedRun>(const v1::RunRecord& run, const std::string& dir)>;
  CoordinatorExecutor(Coordinator& coordinator, Prepare prepare)
      : coordinator_(coordinator), prepare_(std::move(prepare)) {}

  // Prepare's error; Cancelled when stopped before it started; else Coordinator::Run's status.
  absl::Status Execute(const v1::RunRecord& run, const std::string& dir) override;
  void Stop(int64_t id) override;

 private:
  Coordinator& coordinator_;
  const Prepare prepare_;
  std::mutex mu_;
  int64_t started_ = 0;  // the run StartRun began, until its Run returned; guarded by mu_
  int64_t stopped_ = 0;  // a run stopped before it started; guarded by mu_
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_COORDINATOR_EXECUTOR_H_
