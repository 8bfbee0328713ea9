#include "server/chunked_upload.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace fedmf::server {

bool UploadBudget::TryReserve(uint64_t bytes) {
  uint64_t held = held_.load();
  while (bytes <= max_ - std::min(held, max_)) {
    if (held_.compare_exchange_weak(held, held + bytes)) return true;
  }
  return false;
}

absl::Status ChunkedUpload::Reserve(uint64_t bytes, UploadBudget& budget) {
  if (reserved_ + bytes > budget.share()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "this stream's share of the upload buffers is ", budget.share(), " bytes (", budget.max(),
        " among the cohort's streams); ", reserved_ + bytes, " do not fit"));
  }
  if (!budget.TryReserve(bytes)) {
    return absl::ResourceExhaustedError(
        absl::StrCat("upload buffers are full (", budget.held(), " of ", budget.max(),
                     " bytes held); a chunk of ", bytes, " bytes does not fit"));
  }
  reserved_ += bytes;
  return absl::OkStatus();
}

absl::StatusOr<std::optional<ChunkedUpload::Complete>> ChunkedUpload::Add(
    const v1::ClientMessage& envelope, UploadBudget& budget, const MessageBounds& bounds,
    absl::Time now) {
  if (!reassembler_.in_progress()) {
    // The declared size is checked before the Reassembler stores a byte; this round's bounds
    // hold for the whole sequence.
    const uint64_t total = envelope.chunk().total_bytes();
    if (total > bounds.max_bytes) {
      return absl::InvalidArgumentError(absl::StrCat("Chunk.total_bytes ", total,
                                                     " exceeds the plan's largest message of ",
                                                     bounds.max_bytes, " bytes"));
    }
    reassembler_ = wire::Reassembler<v1::ClientMessage>(bounds.max_bytes, bounds.max_elements);
    started_ns_.store(absl::ToUnixNanos(now));
  }
  if (absl::Status reserved = Reserve(envelope.chunk().data().size(), budget); !reserved.ok()) {
    Abandon(budget);
    return reserved;
  }
  absl::StatusOr<std::optional<Complete>> added = reassembler_.Add(envelope);
  if (!added.ok()) Release(budget);
  if (added.ok() && added->has_value()) started_ns_.store(0);  // complete: not stalled
  return added;
}

void ChunkedUpload::Release(UploadBudget& budget) {
  budget.Release(reserved_);
  reserved_ = 0;
  started_ns_.store(0);
}

void ChunkedUpload::Abandon(UploadBudget& budget) {
  reassembler_.Reset();
  Release(budget);
}

std::optional<absl::Time> ChunkedUpload::started() const {
  const int64_t ns = started_ns_.load();
  if (ns == 0) return std::nullopt;
  return absl::FromUnixNanos(ns);
}

}  // namespace fedmf::server
