// --insecure_replica_trace=FILE on the combiner: every message of every replica link, both ways,
// appended to FILE as length-delimited ReplicaTraceRecords (replica.proto). It is what the
// combiner receives and sends anyway, written down so that a test (scaleout_wire,
// tests/integration/replica_trace_check.cc) or an audit can check on the wire what the combiner
// could compute from it; the file holds every key advertisement, encrypted share, revealed share
// and partial sum of the run, so it is for test deployments only. Thread-safe: the links' threads
// append one record at a time. A failed write is logged once and ends the trace; the run goes on.
#ifndef FEDMF_SERVER_REPLICA_TRACE_H_
#define FEDMF_SERVER_REPLICA_TRACE_H_

#include <fstream>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "fedmf/v1/replica.pb.h"

namespace fedmf::server {

class ReplicaTrace {
 public:
  // Creates (truncates) `path`; FAILED_PRECONDITION naming it when it cannot be written.
  static absl::StatusOr<std::unique_ptr<ReplicaTrace>> Open(const std::string& path);

  // What front `front` (its hello name) sent the combiner, and what the combiner sent it.
  void Up(absl::string_view front, const v1::FrontMessage& message);
  void Down(absl::string_view front, const v1::CombinerMessage& message);

 private:
  ReplicaTrace(std::string path, std::ofstream out)
      : path_(std::move(path)), out_(std::move(out)) {}
  void Append(const v1::ReplicaTraceRecord& record);

  const std::string path_;
  std::mutex mu_;
  std::ofstream out_;  // guarded by mu_; closed after a failed write
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_REPLICA_TRACE_H_
