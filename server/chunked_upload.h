// Chunked uploads on the coordinator's streams, reassembled by each stream's reader outside the
// stream router's lock and bounded in memory: the first chunk of a message reserves the size it
// declares (Chunk.total_bytes) against one UploadBudget shared by all streams, and gives it back
// when the message completes, is refused or its stream ends. A sequence that does not complete in
// time is found by started() (the stream router ends its stream, StreamRouter::EndStalledUploads).
#ifndef FEDMF_SERVER_CHUNKED_UPLOAD_H_
#define FEDMF_SERVER_CHUNKED_UPLOAD_H_

#include <atomic>
#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "fedmf/v1/federation.pb.h"
#include "wire/chunking.h"

namespace fedmf::server {

// Bytes all streams' partial uploads may hold at once (thread-safe).
class UploadBudget {
 public:
  explicit UploadBudget(uint64_t max_bytes) : max_(max_bytes) {}
  // Takes `bytes` from the budget; false (nothing taken) if fewer are left.
  bool TryReserve(uint64_t bytes);
  void Release(uint64_t bytes) { held_.fetch_sub(bytes); }
  uint64_t held() const { return held_.load(); }
  uint64_t max() const { return max_; }

 private:
  const uint64_t max_;
  std::atomic<uint64_t> held_{0};
};

// One stream's chunked upload in progress. Add and Abandon are called by the stream's reader
// only; started() from any thread.
class ChunkedUpload {
 public:
  using Complete = wire::Reassembler<v1::ClientMessage>::Complete;

  // Takes the next chunk envelope: nullopt while the message is incomplete, the parsed message
  // after its last chunk, whose reservation the caller gives back with Release once it handled
  // it (the parsed form may be larger than the bytes). The first chunk of a message reserves its
  // total_bytes from `budget`: ResourceExhausted if the budget is spent, InvalidArgument above
  // `max_bytes` or for a sequence the Reassembler refuses. After an error nothing is held.
  absl::StatusOr<std::optional<Complete>> Add(const v1::ClientMessage& envelope,
                                              UploadBudget& budget, uint64_t max_bytes,
                                              absl::Time now);
  // Gives back the reservation of the message Add completed.
  void Release(UploadBudget& budget);
  // Gives back what a sequence in progress holds (its stream ended).
  void Abandon(UploadBudget& budget);
  // When the sequence in progress got its first chunk; nullopt when none is in progress.
  std::optional<absl::Time> started() const;

 private:
  wire::Reassembler<v1::ClientMessage> reassembler_;
  uint64_t reserved_ = 0;
  std::atomic<int64_t> started_ns_{0};  // absl::ToUnixNanos; 0: none in progress
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_CHUNKED_UPLOAD_H_
