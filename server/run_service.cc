#include "server/run_service.h"

#include <optional>
#include <utility>

#include "absl/status/statusor.h"
#include "common/util/event_log.h"
#include "server/run_queue.h"

namespace fedmf::server {

absl::Status RunService::Serve() {
  while (true) {
    // Read before shutdown_: Shutdown sets shutdown_ and then bumps the generation, so either the
    // flag is seen here or AwaitChange below returns at once.
    const uint64_t seen = queue_.generation();
    if (shutdown_.load()) break;
    absl::StatusOr<std::optional<v1::RunRecord>> next = queue_.Next();
    if (!next.ok()) return next.status();
    if (!next->has_value()) {
      queue_.AwaitChange(seen, kIdleRecheck);
      continue;
    }
    if (absl::Status s = ExecuteOne(**next); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status RunService::ExecuteOne(const v1::RunRecord& run) {
  const std::string dir = queue_.RunDir(run.id());
  cancelled_id_.store(0);
  running_id_.store(run.id());
  EventLine("run_start")
      .Add("id", run.id())
      .Add("run_id", run.spec().run_id())
      .Add("algorithm", run.spec().algorithm())
      .Add("dir", dir.empty() ? "-" : dir);
  // A cancel that came between Next and now (or before a restart) stops the run at once; a
  // Shutdown that saw no run in progress is seen here.
  Poll();
  const absl::Status executed =
      shutdown_.load() ? absl::CancelledError("shut down") : executor_.Execute(run, dir);
  running_id_.store(0);
  const bool cancelled = cancelled_id_.load() == run.id();
  if (shutdown_.load() && !cancelled) {
    EventLine("run_interrupted")
        .Add("id", run.id())
        .Add("effect", "the run stays running; a restarted service resumes it");
    return absl::OkStatus();
  }
  v1::RunState state = v1::RUN_STATE_DONE;
  std::string detail;
  if (cancelled) {
    state = v1::RUN_STATE_CANCELLED;
  } else if (!executed.ok()) {
    state = v1::RUN_STATE_FAILED;
    detail = executed.ToString();
  }
  EventLine line("run_end");
  line.Add("id", run.id()).Add("state", RunStateName(state));
  if (!detail.empty()) line.Add("detail", detail);
  return queue_.Finish(run.id(), state, detail);
}

void RunService::Poll() {
  const int64_t id = running_id_.load();
  if (id == 0 || cancelled_id_.load() == id || !queue_.CancelRequested(id)) return;
  if (cancelled_id_.exchange(id) != id) executor_.Stop(id);
}

void RunService::Shutdown() {
  shutdown_.store(true);
  queue_.Wake();
  if (const int64_t id = running_id_.load(); id != 0) executor_.Stop(id);
}

}  // namespace fedmf::server
