#include "server/run_queue.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/util/atomic_file.h"

namespace fedmf::server {
namespace {

int64_t UnixMillis(absl::Time t) { return absl::ToUnixMillis(t); }

bool Ended(v1::RunState state) {
  return state == v1::RUN_STATE_DONE || state == v1::RUN_STATE_FAILED ||
         state == v1::RUN_STATE_CANCELLED;
}

// OK, or what makes `state` not a queue (for DataLoss naming the file).
absl::Status CheckConsistent(const v1::RunQueueState& state) {
  int64_t previous = 0;
  int running = 0;
  for (const v1::RunRecord& run : state.runs()) {
    if (run.id() <= previous) {
      return absl::DataLossError(
          absl::StrCat("run id ", run.id(), " is not above the previous one (", previous, ")"));
    }
    if (run.id() >= state.next_id()) {
      return absl::DataLossError(
          absl::StrCat("run id ", run.id(), " is not below next_id ", state.next_id()));
    }
    if (!v1::RunState_IsValid(run.state()) || run.state() == v1::RUN_STATE_UNSPECIFIED) {
      return absl::DataLossError(absl::StrCat("run ", run.id(), " has no valid state (",
                                              static_cast<int>(run.state()), ")"));
    }
    if (run.state() == v1::RUN_STATE_RUNNING) ++running;
    previous = run.id();
  }
  if (running > 1) {
    return absl::DataLossError(absl::StrCat(running, " runs are running; at most one may be"));
  }
  return absl::OkStatus();
}

v1::RunRecord* FindIn(v1::RunQueueState& state, int64_t id) {
  for (v1::RunRecord& run : *state.mutable_runs()) {
    if (run.id() == id) return &run;
  }
  return nullptr;
}

}  // namespace

std::string RunStateName(v1::RunState state) {
  switch (state) {
    case v1::RUN_STATE_QUEUED:
      return "queued";
    case v1::RUN_STATE_RUNNING:
      return "running";
    case v1::RUN_STATE_DONE:
      return "done";
    case v1::RUN_STATE_FAILED:
      return "failed";
    case v1::RUN_STATE_CANCELLED:
      return "cancelled";
    default:
      return "unspecified";
  }
}

std::string RunRecordLine(const v1::RunRecord& record) {
  const auto time = [](int64_t unix_ms) {
    return unix_ms == 0 ? std::string("-")
                        : absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::FromUnixMillis(unix_ms),
                                           absl::UTCTimeZone());
  };
  const v1::RunSpec& spec = record.spec();
  std::string line = absl::StrCat(
      "run id=", record.id(), " state=", RunStateName(record.state()), " run_id=", spec.run_id(),
      " algorithm=", spec.algorithm(),
      " rounds=", spec.has_rounds() ? absl::StrCat(spec.rounds()) : std::string("default"),
      " submitted_by=", record.submitted_by().empty() ? "-" : record.submitted_by(),
      " submitted=", time(record.submitted_unix_ms()), " started=", time(record.started_unix_ms()),
      " finished=", time(record.finished_unix_ms()));
  if (record.cancel_requested()) absl::StrAppend(&line, " cancel_requested=true");
  if (!record.detail().empty()) {
    absl::StrAppend(&line, " detail=\"", absl::CEscape(record.detail()), "\"");
  }
  return line;
}

absl::StatusOr<RunQueue> RunQueue::Open(std::string state_dir) {
  v1::RunQueueState state;
  state.set_next_id(1);
  if (state_dir.empty()) return RunQueue("", std::move(state));
  std::string runs_dir = (std::filesystem::path(state_dir) / "runs").string();
  RunQueue queue(std::move(runs_dir), std::move(state));
  std::error_code error;
  if (!std::filesystem::exists(queue.path_, error)) {
    if (error) {
      return absl::InternalError(
          absl::StrCat("cannot look for ", queue.path_, ": ", error.message()));
    }
    return queue;
  }
  absl::StatusOr<std::string> bytes = ReadFile(queue.path_);
  if (!bytes.ok()) return bytes.status();
  if (!queue.state_.ParseFromString(*bytes)) {
    return absl::DataLossError(absl::StrCat(queue.path_, ": not a fedmf.v1.RunQueueState"));
  }
  if (absl::Status consistent = CheckConsistent(queue.state_); !consistent.ok()) {
    return absl::DataLossError(absl::StrCat(queue.path_, ": ", consistent.message()));
  }
  return queue;
}

absl::Status RunQueue::Commit(v1::RunQueueState next) {
  if (!runs_dir_.empty()) {
    std::error_code error;
    std::filesystem::create_directories(runs_dir_, error);
    if (error) {
      return absl::InternalError(absl::StrCat("cannot create ", runs_dir_, ": ", error.message()));
    }
    if (absl::Status written = WriteFileAtomically(path_, next.SerializeAsString());
        !written.ok()) {
      return written;
    }
  }
  state_ = std::move(next);
  return absl::OkStatus();
}

absl::StatusOr<v1::RunRecord> RunQueue::Submit(v1::RunSpec spec, absl::string_view submitted_by,
                                               absl::Time now) {
  const int64_t id = state_.next_id();
  if (!spec.has_run_id()) spec.set_run_id(absl::StrCat("run-", id));
  for (const v1::RunRecord& run : state_.runs()) {
    if (run.spec().run_id() == spec.run_id()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "run_id=\"", spec.run_id(), "\" is run ", run.id(),
          "'s: each run binds its own run id into its SecAgg sessions (leave it unset for "
          "\"run-<id>\")"));
    }
  }
  v1::RunQueueState next = state_;
  v1::RunRecord& run = *next.add_runs();
  run.set_id(id);
  *run.mutable_spec() = std::move(spec);
  run.set_state(v1::RUN_STATE_QUEUED);
  run.set_submitted_by(std::string(submitted_by));
  run.set_submitted_unix_ms(UnixMillis(now));
  next.set_next_id(id + 1);
  v1::RunRecord submitted = run;
  if (absl::Status s = Commit(std::move(next)); !s.ok()) return s;
  return submitted;
}

absl::StatusOr<v1::RunRecord> RunQueue::Cancel(int64_t id, absl::string_view cancelled_by,
                                               absl::Time now) {
  v1::RunQueueState next = state_;
  v1::RunRecord* run = FindIn(next, id);
  if (run == nullptr) return absl::NotFoundError(absl::StrCat("no run ", id));
  if (Ended(run->state())) {
    return absl::FailedPreconditionError(
        absl::StrCat("run ", id, " already ended: ", RunStateName(run->state())));
  }
  const std::string by =
      cancelled_by.empty() ? std::string("cancelled") : absl::StrCat("cancelled by ", cancelled_by);
  if (run->state() == v1::RUN_STATE_QUEUED) {
    run->set_state(v1::RUN_STATE_CANCELLED);
    run->set_finished_unix_ms(UnixMillis(now));
    run->set_detail(by);
  } else {
    run->set_cancel_requested(true);
    run->set_detail(absl::StrCat(by, " while running"));
  }
  v1::RunRecord record = *run;
  if (absl::Status s = Commit(std::move(next)); !s.ok()) return s;
  return record;
}

absl::StatusOr<std::optional<v1::RunRecord>> RunQueue::Next(absl::Time now) {
  if (const v1::RunRecord* running = Running()) return *running;
  v1::RunQueueState next = state_;
  for (v1::RunRecord& run : *next.mutable_runs()) {
    if (run.state() != v1::RUN_STATE_QUEUED) continue;
    run.set_state(v1::RUN_STATE_RUNNING);
    run.set_started_unix_ms(UnixMillis(now));
    v1::RunRecord started = run;
    if (absl::Status s = Commit(std::move(next)); !s.ok()) return s;
    return started;
  }
  return std::nullopt;
}

absl::Status RunQueue::Finish(int64_t id, v1::RunState state, absl::string_view detail,
                              absl::Time now) {
  if (!Ended(state)) {
    return absl::InvalidArgumentError(
        absl::StrCat("a run ends done, failed or cancelled, not ", RunStateName(state)));
  }
  v1::RunQueueState next = state_;
  v1::RunRecord* run = FindIn(next, id);
  if (run == nullptr || run->state() != v1::RUN_STATE_RUNNING) {
    return absl::FailedPreconditionError(absl::StrCat("run ", id, " is not running"));
  }
  run->set_state(state);
  run->set_finished_unix_ms(UnixMillis(now));
  if (!detail.empty()) run->set_detail(std::string(detail));
  return Commit(std::move(next));
}

const v1::RunRecord* RunQueue::Find(int64_t id) const {
  for (const v1::RunRecord& run : state_.runs()) {
    if (run.id() == id) return &run;
  }
  return nullptr;
}

const v1::RunRecord* RunQueue::Running() const {
  for (const v1::RunRecord& run : state_.runs()) {
    if (run.state() == v1::RUN_STATE_RUNNING) return &run;
  }
  return nullptr;
}

std::string RunQueue::RunDir(int64_t id) const {
  if (runs_dir_.empty()) return "";
  return (std::filesystem::path(runs_dir_) / absl::StrCat(id)).string();
}

}  // namespace fedmf::server
