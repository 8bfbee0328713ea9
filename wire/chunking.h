// Chunking of large federation messages (federation.proto, Chunk): a sender splits a ServerMessage
// or ClientMessage whose serialization exceeds its chunk size into Chunk messages, the receiver's
// Reassembler checks the sequence strictly and returns the whole message. Transport-free: the gRPC
// stream, an in-process transport and tests use the same code.
#ifndef FEDMF_WIRE_CHUNKING_H_
#define FEDMF_WIRE_CHUNKING_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "fedmf/v1/federation.pb.h"
#include "wire/limits.h"

namespace fedmf::wire {

// A chunk size bounds the serialized size of every message a sender puts on the wire, whole or a
// chunk (header, envelope and data): the default is gRPC's default receive limit in every
// language (4 MiB), so a peer with default settings takes any message, whatever the model size.
inline constexpr size_t kDefaultChunkBytes = size_t{4} << 20;
// A chunk's header and its envelope take at most 63 bytes (Chunk's varints at their widest).
inline constexpr size_t kChunkOverheadBytes = 64;
inline constexpr size_t kMinChunkBytes = 2 * kChunkOverheadBytes;
inline constexpr size_t kMaxChunkBytes = size_t{kMaxMessageBytes};
// The largest message a receiver reassembles by default (and the coordinator's bound on a plan).
inline constexpr uint64_t kMaxTransferBytes = uint64_t{1} << 30;
// The range an operator may set that bound to (coordinator and sim --max_plan_bytes, client
// --max_download_bytes): at least the largest chunk size, since a message up to the sender's chunk
// size arrives whole; at most protobuf's limit, INT_MAX bytes, above which a message neither
// serializes nor parses.
inline constexpr uint64_t kMinTransferBytes = kMaxChunkBytes;
inline constexpr uint64_t kMaxParseBytes = uint64_t{std::numeric_limits<int>::max()};

// InvalidArgument unless kMinChunkBytes <= chunk_bytes <= kMaxChunkBytes (for flag checks).
absl::Status ValidateChunkBytes(int64_t chunk_bytes);
// InvalidArgument, naming `setting` (e.g. "--max_plan_bytes") and the value, unless
// kMinTransferBytes <= bytes <= kMaxParseBytes (for the settings that change kMaxTransferBytes).
absl::Status ValidateTransferBytes(absl::string_view setting, int64_t bytes);

// What a message is about: the round, participant id and phase its chunks repeat in their header
// (participant 0 for a task or a result).
struct Tag {
  int64_t round = 0;
  uint32_t participant_id = 0;
  int32_t phase = 0;
};
Tag TagOf(const v1::ServerMessage& message);
Tag TagOf(const v1::ClientMessage& message);

// `message` itself if its serialization is at most `chunk_bytes`, else its chunks in order, each
// carrying chunk_bytes - kChunkOverheadBytes bytes of it (the last one the rest), so that no
// returned message serializes to more than `chunk_bytes`. `chunk_bytes` is clamped to
// [kMinChunkBytes, kMaxChunkBytes]; `message` must not be a chunk itself.
std::vector<v1::ServerMessage> Split(v1::ServerMessage message, size_t chunk_bytes);
std::vector<v1::ClientMessage> Split(v1::ClientMessage message, size_t chunk_bytes);

// Reassembles the chunk sequences of one stream direction (Message = v1::ServerMessage or
// v1::ClientMessage), one message at a time.
template <typename Message>
class Reassembler {
 public:
  struct Complete {
    Message message;
    uint64_t wire_bytes = 0;  // serialized size of all its chunk envelopes
  };

  // Messages above `max_bytes` (serialized) are refused at their first chunk, messages whose
  // repeated fields hold more than `max_elements` elements in all (repeated_fields.h) before
  // they are parsed.
  explicit Reassembler(uint64_t max_bytes = kMaxTransferBytes,
                       uint64_t max_elements = std::numeric_limits<uint64_t>::max())
      : max_bytes_(max_bytes), max_elements_(max_elements) {}

  // Takes the next envelope holding a chunk. Returns nullopt while the message is incomplete and
  // the message after its last chunk. InvalidArgument, naming the field and value, for an envelope
  // without a chunk, a chunk that does not continue the sequence (index, header fields that differ
  // from the first chunk's), empty data, more or fewer bytes than total_bytes, a total above the
  // bound, a reassembly over the element bound or that does not parse, is itself a chunk or has
  // another round or participant than the header. After an error the partial message is discarded and the next sequence starts
  // afresh.
  absl::StatusOr<std::optional<Complete>> Add(const Message& envelope);

  bool in_progress() const { return in_progress_; }
  // Data bytes held for the incomplete message.
  size_t pending_bytes() const { return buffer_.size(); }
  void Reset();

 private:
  absl::Status Check(const v1::Chunk& chunk) const;

  uint64_t max_bytes_;  // not const: a host replaces its Reassembler to change the bounds
  uint64_t max_elements_;
  bool in_progress_ = false;
  v1::Chunk header_;  // the first chunk's fields (data cleared)
  uint32_t next_index_ = 0;
  uint64_t wire_bytes_ = 0;
  std::string buffer_;
};

extern template class Reassembler<v1::ServerMessage>;
extern template class Reassembler<v1::ClientMessage>;

}  // namespace fedmf::wire

#endif  // FEDMF_WIRE_CHUNKING_H_
