// Chunked uploads on the coordinator's streams, reassembled by each stream's reader outside the
// stream router's lock and bounded in memory by the plan: a message may declare (Chunk.total_bytes)
// at most the round's MessageBounds::max_bytes (message_bounds.h), refused at its first chunk
// before anything is reserved; each chunk's data then takes its bytes, as they arrive, from one
// UploadBudget shared by all streams, within the stream's fair share of it; the reassembled bytes
// are parsed only if their repeated fields stay within MessageBounds::max_elements. What a message
// took is given back when it is handled, refused or its stream ends. A sequence that does not
// complete in time is found by started() (the stream router ends its stream,
// DeviceStreams::EndStalledUploads).
#ifndef FEDMF_SERVER_CHUNKED_UPLOAD_H_
#define FEDMF_SERVER_CHUNKED_UPLOAD_H_

#include <atomic>
#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "fedmf/v1/federation.pb.h"
#include "server/message_bounds.h"
#include "wire/chunking.h"

namespace fedmf::server {

// Bytes all streams' partial uploads may hold at once, and one stream's share of them: the pool
// divided among the streams that may upload at once (the cohort's), so that a few streams
// holding their shares leave the others theirs. Thread-safe.
class UploadBudget {
 public:
  explicit UploadBudget(uint64_t max_bytes) : max_(max_bytes), share_(max_bytes) {}
  // Takes `bytes` from the pool; false (nothing taken) if fewer are left.
  bool TryReserve(uint64_t bytes);
  void Release(uint64_t bytes) { held_.fetch_sub(bytes); }
  // The pool is shared by up to `streams` uploaders from now on (at least one).
  void ShareAmong(uint64_t streams) { share_.store(max_ / (streams == 0 ? 1 : streams)); }
  uint64_t held() const { return held_.load(); }
  uint64_t max() const { return max_; }
  uint64_t share() const { return share_.load(); }

 private:
  const uint64_t max_;
  std::atomic<uint64_t> share_;
  std::atomic<uint64_t> held_{0};
};

// One stream's chunked upload in progress. Add and Abandon are called by the stream's reader
// only; started() from any thread.
class ChunkedUpload {
 public:
  using Complete = wire::Reassembler<v1::ClientMessage>::Complete;

  // Takes the next chunk envelope: nullopt while the message is incomplete, the parsed message
  // after its last chunk, whose bytes the caller gives back with Release once it handled it (the
  // parsed form may be larger than the bytes). InvalidArgument, naming the field and value, for a
  // first chunk declaring more than bounds.max_bytes (nothing reserved), a reassembly with more
  // than bounds.max_elements repeated elements (not parsed) or a sequence the Reassembler refuses;
  // ResourceExhausted when a chunk's data would take the stream over its share of `budget` or the
  // pool is spent. After an error nothing is held.
  absl::StatusOr<std::optional<Complete>> Add(const v1::ClientMessage& envelope,
                                              UploadBudget& budget, const MessageBounds& bounds,
                                              absl::Time now);
  // Gives back the bytes of the message Add completed.
  void Release(UploadBudget& budget);
  // Gives back what a sequence in progress holds (its stream ended).
  void Abandon(UploadBudget& budget);
  // When the sequence in progress got its first chunk; nullopt when none is in progress.
  std::optional<absl::Time> started() const;

 private:
  // Takes the bytes of one chunk's data from `budget`, within the stream's share.
  absl::Status Reserve(uint64_t bytes, UploadBudget& budget);

  wire::Reassembler<v1::ClientMessage> reassembler_;
  uint64_t reserved_ = 0;
  std::atomic<int64_t> started_ns_{0};  // absl::ToUnixNanos; 0: none in progress
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_CHUNKED_UPLOAD_H_
