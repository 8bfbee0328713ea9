#include "server/coordinator_executor.h"

#include <utility>

namespace fedmf::server {

absl::Status CoordinatorExecutor::Execute(const v1::RunRecord& run, const std::string& dir) {
  absl::StatusOr<PreparedRun> prepared = prepare_(run, dir);
  if (!prepared.ok()) return prepared.status();
  {
    // Under mu_ with StartRun, so a Stop lands either before (seen here) or on the started run.
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_ == run.id()) return absl::CancelledError("stopped before it started");
    coordinator_.StartRun(std::move(prepared->options), std::move(prepared->state));
    started_ = run.id();
  }
  const absl::Status status = coordinator_.Run();
  std::lock_guard<std::mutex> lock(mu_);
  started_ = 0;
  return status;
}

void CoordinatorExecutor::Stop(int64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (started_ == id) {
    coordinator_.CancelRun();
  } else {
    stopped_ = id;
  }
}

}  // namespace fedmf::server
