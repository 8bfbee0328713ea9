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

absl::StatusOr<std::optional<ChunkedUpload::Complete>> ChunkedUpload::Add(
    const v1::ClientMessage& envelope, UploadBudget& budget, uint64_t max_bytes, absl::Time now) {
  if (!reassembler_.in_progress()) {
    // Reserved before the Reassembler stores any byte of it; so the size is checked here too, not
    // only by the Reassembler, lest a huge declared size be reserved first.
    const uint64_t total = envelope.chunk().total_bytes();
    if (total > max_bytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("Chunk.total_bytes ", total, " exceeds the limit of ", max_bytes));
    }
    if (!budget.TryReserve(total)) {
      return absl::ResourceExhaustedError(
          absl::StrCat("upload buffers are full (", budget.held(), " of ", budget.max(),
                       " bytes held); a message of ", total, " bytes does not fit"));
    }
    reserved_ = total;
    started_ns_.store(absl::ToUnixNanos(now));
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
