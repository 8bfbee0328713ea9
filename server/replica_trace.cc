#include "server/replica_trace.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/util/event_log.h"
#include "google/protobuf/util/delimited_message_util.h"

namespace fedmf::server {

absl::StatusOr<std::unique_ptr<ReplicaTrace>> ReplicaTrace::Open(const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return absl::FailedPreconditionError(
        absl::StrCat("--insecure_replica_trace: cannot write ", path));
  }
  return std::unique_ptr<ReplicaTrace>(new ReplicaTrace(path, std::move(out)));
}

void ReplicaTrace::Up(absl::string_view front, const v1::FrontMessage& message) {
  v1::ReplicaTraceRecord record;
  record.set_front(std::string(front));
  *record.mutable_up() = message;
  Append(record);
}

void ReplicaTrace::Down(absl::string_view front, const v1::CombinerMessage& message) {
  v1::ReplicaTraceRecord record;
  record.set_front(std::string(front));
  *record.mutable_down() = message;
  Append(record);
}

void ReplicaTrace::Append(const v1::ReplicaTraceRecord& record) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!out_.is_open()) return;
  // Flushed record by record: a combiner killed mid-run leaves every record it sent or received.
  if (google::protobuf::util::SerializeDelimitedToOstream(record, &out_) && out_.flush()) return;
  EventLine("replica_trace_failed")
      .Add("path", path_)
      .Add("effect", "the trace stops here; the run goes on");
  out_.close();
}

}  // namespace fedmf::server
