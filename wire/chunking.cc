#include "wire/chunking.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "wire/repeated_fields.h"
#include "wire/utf8_fields.h"

namespace fedmf::wire {
namespace {

template <typename Message>
std::vector<Message> SplitMessage(Message message, size_t chunk_bytes) {
  chunk_bytes = std::clamp(chunk_bytes, kMinChunkBytes, kMaxChunkBytes);
  std::vector<Message> out;
  if (message.ByteSizeLong() <= chunk_bytes) {
    out.push_back(std::move(message));
    return out;
  }
  const std::string serialized = message.SerializeAsString();
  const size_t data_bytes = chunk_bytes - kChunkOverheadBytes;
  const size_t count = (serialized.size() + data_bytes - 1) / data_bytes;
  const Tag tag = TagOf(message);
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    v1::Chunk* chunk = out.emplace_back().mutable_chunk();
    chunk->set_round(tag.round);
    chunk->set_participant_id(tag.participant_id);
    chunk->set_phase(tag.phase);
    chunk->set_index(static_cast<uint32_t>(i));
    chunk->set_count(static_cast<uint32_t>(count));
    chunk->set_total_bytes(serialized.size());
    chunk->set_data(serialized.substr(i * data_bytes, data_bytes));
  }
  return out;
}

}  // namespace

absl::Status ValidateChunkBytes(int64_t chunk_bytes) {
  if (chunk_bytes < static_cast<int64_t>(kMinChunkBytes) ||
      chunk_bytes > static_cast<int64_t>(kMaxChunkBytes)) {
    return absl::InvalidArgumentError(absl::StrCat("chunk size ", chunk_bytes,
                                                   " bytes is outside [", kMinChunkBytes, ", ",
                                                   kMaxChunkBytes, "]"));
  }
  return absl::OkStatus();
}

absl::Status ValidateTransferBytes(absl::string_view setting, int64_t bytes) {
  if (bytes < static_cast<int64_t>(kMinTransferBytes) ||
      bytes > static_cast<int64_t>(kMaxParseBytes)) {
    return absl::InvalidArgumentError(absl::StrCat(setting, "=", bytes, ": need ",
                                                   kMinTransferBytes, " to ", kMaxParseBytes,
                                                   " bytes (protobuf's message limit)"));
  }
  return absl::OkStatus();
}

Tag TagOf(const v1::ServerMessage& message) {
  switch (message.message_case()) {
    case v1::ServerMessage::kTask:
      return {message.task().round(), 0, message.task().plan().phase()};
    case v1::ServerMessage::kSecagg:
      return {message.secagg().round(), message.secagg().participant_id(),
              message.secagg().phase()};
    case v1::ServerMessage::kResult:
      return {message.result().round(), 0, message.result().phase()};
    case v1::ServerMessage::kChunk:
      return {message.chunk().round(), message.chunk().participant_id(), message.chunk().phase()};
    default:
      return {};
  }
}

Tag TagOf(const v1::ClientMessage& message) {
  switch (message.message_case()) {
    case v1::ClientMessage::kSecagg:
      return {message.secagg().round(), message.secagg().participant_id(),
              message.secagg().phase()};
    case v1::ClientMessage::kClearUpload:
      return {message.clear_upload().round(), message.clear_upload().participant_id(),
              message.clear_upload().phase()};
    case v1::ClientMessage::kChunk:
      return {message.chunk().round(), message.chunk().participant_id(), message.chunk().phase()};
    default:
      return {};
  }
}

std::vector<v1::ServerMessage> Split(v1::ServerMessage message, size_t chunk_bytes) {
  return SplitMessage(std::move(message), chunk_bytes);
}

std::vector<v1::ClientMessage> Split(v1::ClientMessage message, size_t chunk_bytes) {
  return SplitMessage(std::move(message), chunk_bytes);
}

template <typename Message>
void Reassembler<Message>::Reset() {
  in_progress_ = false;
  header_.Clear();
  next_index_ = 0;
  wire_bytes_ = 0;
  std::string().swap(buffer_);  // releases the memory of a large partial message
}

template <typename Message>
absl::Status Reassembler<Message>::Check(const v1::Chunk& chunk) const {
  if (!in_progress_) {
    if (chunk.index() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("chunk index ", chunk.index(), " starts a message (expected index 0)"));
    }
    if (chunk.count() == 0) return absl::InvalidArgumentError("chunk count 0");
    if (chunk.total_bytes() == 0 || chunk.total_bytes() > max_bytes_) {
      return absl::InvalidArgumentError(absl::StrCat("chunk total_bytes ", chunk.total_bytes(),
                                                     " outside [1, ", max_bytes_, "]"));
    }
    if (chunk.count() > chunk.total_bytes()) {
      return absl::InvalidArgumentError(absl::StrCat("chunk count ", chunk.count(),
                                                     " exceeds total_bytes ", chunk.total_bytes()));
    }
  } else {
    if (chunk.index() != next_index_) {
      return absl::InvalidArgumentError(
          absl::StrCat("chunk index ", chunk.index(), ", expected ", next_index_));
    }
    if (chunk.count() != header_.count() || chunk.total_bytes() != header_.total_bytes() ||
        chunk.round() != header_.round() || chunk.participant_id() != header_.participant_id() ||
        chunk.phase() != header_.phase()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "chunk ", chunk.index(), " header (round ", chunk.round(), ", participant ",
          chunk.participant_id(), ", phase ", chunk.phase(), ", count ", chunk.count(),
          ", total_bytes ", chunk.total_bytes(), ") differs from chunk 0's (round ",
          header_.round(), ", participant ", header_.participant_id(), ", phase ", header_.phase(),
          ", count ", header_.count(), ", total_bytes ", header_.total_bytes(), ")"));
    }
  }
  const uint64_t total = chunk.total_bytes();
  const uint64_t after = buffer_.size() + chunk.data().size();
  if (chunk.data().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("chunk ", chunk.index(), " has no data"));
  }
  if (after > total) {
    return absl::InvalidArgumentError(absl::StrCat("chunk ", chunk.index(),
                                                   " brings the message to ", after,
                                                   " bytes, over total_bytes ", total));
  }
  const bool last = chunk.index() + 1 == chunk.count();
  if (last && after != total) {
    return absl::InvalidArgumentError(absl::StrCat("last chunk ", chunk.index(), " ends at ", after,
                                                   " bytes, short of total_bytes ", total));
  }
  if (!last && after == total) {
    return absl::InvalidArgumentError(absl::StrCat("chunk ", chunk.index(), " of ", chunk.count(),
                                                   " completes all ", total, " bytes early"));
  }
  return absl::OkStatus();
}

template <typename Message>
absl::StatusOr<std::optional<typename Reassembler<Message>::Complete>> Reassembler<Message>::Add(
    const Message& envelope) {
  if (!envelope.has_chunk()) {
    Reset();
    return absl::InvalidArgumentError("expected a chunk");
  }
  const v1::Chunk& chunk = envelope.chunk();
  if (absl::Status s = Check(chunk); !s.ok()) {
    Reset();
    return s;
  }
  if (!in_progress_) {
    in_progress_ = true;
    header_.set_round(chunk.round());  // the header without its data
    header_.set_participant_id(chunk.participant_id());
    header_.set_phase(chunk.phase());
    header_.set_count(chunk.count());
    header_.set_total_bytes(chunk.total_bytes());
  }
  buffer_.append(chunk.data());
  wire_bytes_ += envelope.ByteSizeLong();
  ++next_index_;
  if (next_index_ < header_.count()) return std::nullopt;

  Complete complete;
  complete.wire_bytes = wire_bytes_;
  // Checked first: libprotobuf's parser would log an invalid string to stderr (utf8_fields.h).
  if (absl::Status utf8 = CheckStringFieldsAreUtf8(*complete.message.GetDescriptor(), buffer_);
      !utf8.ok()) {
    Reset();
    return absl::InvalidArgumentError(
        absl::StrCat("the reassembled message: ", utf8.message()));
  }
  // Counted first: the parsed form of many small elements is many times their bytes.
  if (absl::Status elements =
          CheckRepeatedElements(*complete.message.GetDescriptor(), buffer_, max_elements_);
      !elements.ok()) {
    Reset();
    return absl::InvalidArgumentError(
        absl::StrCat("the reassembled message: ", elements.message()));
  }
  const bool parsed = complete.message.ParseFromString(buffer_);
  const v1::Chunk header = std::move(header_);
  Reset();
  if (!parsed) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ", header.total_bytes(), " reassembled bytes do not parse"));
  }
  if (complete.message.has_chunk()) {
    return absl::InvalidArgumentError("the reassembled message is itself a chunk");
  }
  const Tag tag = TagOf(complete.message);
  if (tag.round != header.round() || tag.participant_id != header.participant_id() ||
      tag.phase != header.phase()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the reassembled message is of round ", tag.round, ", participant ", tag.participant_id,
        ", phase ", tag.phase, "; its chunks said round ", header.round(), ", participant ",
        header.participant_id(), ", phase ", header.phase()));
  }
  return complete;
}

template class Reassembler<v1::ServerMessage>;
template class Reassembler<v1::ClientMessage>;

}  // namespace fedmf::wire
