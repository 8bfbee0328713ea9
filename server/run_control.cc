#include "server/run_control.h"

namespace fedmf::server {

void AddRunCounts(const RunControl* runs, v1::StatusResponse& status) {
  if (runs == nullptr) return;
  v1::RunCounts& counts = *status.mutable_runs();
  const v1::ListRunsResponse list = runs->List();
  for (const v1::RunRecord& run : list.runs()) {
    switch (run.state()) {
      case v1::RUN_STATE_QUEUED:
        counts.set_queued(counts.queued() + 1);
        break;
      case v1::RUN_STATE_RUNNING:
        counts.set_running(counts.running() + 1);
        counts.set_running_id(run.id());
        break;
      case v1::RUN_STATE_DONE:
        counts.set_done(counts.done() + 1);
        break;
      case v1::RUN_STATE_FAILED:
        counts.set_failed(counts.failed() + 1);
        break;
      case v1::RUN_STATE_CANCELLED:
        counts.set_cancelled(counts.cancelled() + 1);
        break;
      default:
        break;
    }
  }
}

}  // namespace fedmf::server
