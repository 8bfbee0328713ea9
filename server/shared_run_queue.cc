#include "server/shared_run_queue.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/algorithms/new_run.h"
#include "common/util/event_log.h"
#include "google/protobuf/message.h"
#include "server/coordinator_setup.h"
#include "server/run_spec.h"

namespace fedmf::server {

namespace {

constexpr char kSubmitted[] = "submitted run";

}  // namespace

absl::StatusOr<v1::RunRecord> SharedRunQueue::Submit(const v1::RunSpec& spec,
                                                     absl::string_view identity) {
  if (absl::Status valid = ValidateRunSpec(spec, kSubmitted); !valid.ok()) return valid;
  // ValidateRunSpec lets an algorithm without options through (its checkpoint may resume); a
  // submitted run starts fresh.
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> options = RunOptions(spec);
  if (!options.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kSubmitted, ": algorithm=", spec.algorithm(),
                     " cannot start a run here: ", options.status().message()));
  }
  if ((spec.num_users() == 0 && data_users_ <= 0) || (spec.num_items() == 0 && data_items_ <= 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        kSubmitted, ": num_users=", spec.num_users(), ", num_items=", spec.num_items(),
        " (need both > 0: this coordinator has no data (--eval_data) to take them from)"));
  }
  // The run is started once here and dropped, so that what only its start checks (e.g. an
  // `options` text that leaves an enum at zero) is named now, not when it leaves the queue.
  const int64_t users = spec.num_users() > 0 ? spec.num_users() : data_users_;
  const int32_t items = spec.num_items() > 0 ? spec.num_items() : data_items_;
  algorithms::RunSettings settings = RunSettingsOf(spec, users, items);
  // A warm start's model too, when nothing ahead of the run can publish another before it starts.
  if (spec.has_start_from_version() && models_ != nullptr && !RunAhead()) {
    absl::StatusOr<StartModel> start = StartItemFactors(spec, models_.get());
    if (!start.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(kSubmitted, ": ", start.status().message()));
    }
    settings.start_item_factors = std::move(start->item_factors);
  }
  if (absl::StatusOr<algorithms::NewRun> trial =
          algorithms::StartNewRun(spec.algorithm(), settings, **options);
      !trial.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(kSubmitted, ": ", trial.status().message()));
  }
  absl::StatusOr<v1::RunRecord> record;
  {
    std::lock_guard<std::mutex> lock(mu_);
    record = queue_.Submit(spec, identity, absl::Now());
    if (record.ok()) Changed();
  }
  EventLine line("run_submitted");
  if (record.ok()) {
    line.Add("id", record->id())
        .Add("run_id", record->spec().run_id())
        .Add("algorithm", record->spec().algorithm())
        .Add("identity", identity)
        .Add("run_spec", RunSpecId(record->spec()));
  } else {
    line.Add("identity", identity).Add("status", record.status().ToString());
  }
  return record;
}

bool SharedRunQueue::RunAhead() const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const v1::RunRecord& run : queue_.runs()) {
    if (run.state() == v1::RUN_STATE_QUEUED || run.state() == v1::RUN_STATE_RUNNING) return true;
  }
  return false;
}

v1::ListRunsResponse SharedRunQueue::List() const {
  v1::ListRunsResponse response;
  std::lock_guard<std::mutex> lock(mu_);
  *response.mutable_runs() = queue_.runs();
  return response;
}

absl::StatusOr<v1::RunRecord> SharedRunQueue::Cancel(int64_t id, absl::string_view identity) {
  absl::StatusOr<v1::RunRecord> record;
  {
    std::lock_guard<std::mutex> lock(mu_);
    record = queue_.Cancel(id, identity, absl::Now());
    if (record.ok()) Changed();
  }
  EventLine line("run_cancelled");
  line.Add("id", id).Add("identity", identity);
  if (record.ok()) {
    line.Add("state", RunStateName(record->state()));
  } else {
    line.Add("status", record.status().ToString());
  }
  return record;
}

absl::StatusOr<std::optional<v1::RunRecord>> SharedRunQueue::Next() {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.Next(absl::Now());
}

absl::Status SharedRunQueue::Finish(int64_t id, v1::RunState state, absl::string_view detail) {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.Finish(id, state, detail, absl::Now());
}

bool SharedRunQueue::CancelRequested(int64_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  const v1::RunRecord* run = queue_.Find(id);
  return run != nullptr && run->state() == v1::RUN_STATE_RUNNING && run->cancel_requested();
}

std::string SharedRunQueue::RunDir(int64_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.RunDir(id);
}

uint64_t SharedRunQueue::generation() const {
  std::lock_guard<std::mutex> lock(mu_);
  return generation_;
}

void SharedRunQueue::AwaitChange(uint64_t seen, absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait_for(lock, absl::ToChronoNanoseconds(timeout), [&] { return generation_ != seen; });
}

void SharedRunQueue::Wake() {
  std::lock_guard<std::mutex> lock(mu_);
  Changed();
}

void SharedRunQueue::Changed() {
  ++generation_;
  changed_.notify_all();
}

}  // namespace fedmf::server
