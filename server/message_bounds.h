// The most a participant may send in one message of an aggregation, derived from its task (plan
// and SecAgg parameters): the serialized bytes of its largest message and the repeated-field
// elements one message may hold. The coordinator refuses a declared or actual size above either
// before it reserves or parses anything (chunked_upload.h, connection.h DeliverClientMessage), so
// what a stream costs follows from the plan.
#ifndef FEDMF_SERVER_MESSAGE_BOUNDS_H_
#define FEDMF_SERVER_MESSAGE_BOUNDS_H_

#include <cstdint>

#include "fedmf/v1/federation.pb.h"

namespace fedmf::server {

struct MessageBounds {
  uint64_t max_bytes = 0;     // serialized ClientMessage, whole or reassembled from chunks
  uint64_t max_elements = 0;  // of all its repeated fields (wire/repeated_fields.h)
};

// Room for what every message carries whatever the plan (envelope, tags, keys, signatures, an
// Abort's reason): the bounds before any task was sent.
inline constexpr MessageBounds kUnplannedBounds{.max_bytes = 4096, .max_elements = 16};

// A secure sum (task.secagg set, m neighbors, d values of b bits): unplanned room plus
// ceil(d b / 8) bytes of MaskedInput and, per neighbor and the participant itself, room for the
// largest per-neighbor part of any stage (a share ciphertext in ShareKeysResponse, two revealed
// shares in UnmaskingResponse, an id in MaskedInput.unusable_shares_from, commitments) and 4
// elements. A clear upload (COMBINATION_CLEAR or simulation_plain_sum): unplanned room plus two
// 10-byte varints (value and index) per each of plan.length coordinates, 2 elements each.
// Saturates instead of overflowing; capped by `max_upload_bytes`.
MessageBounds BoundsOf(const v1::RoundTask& task, uint64_t max_upload_bytes);

// The larger of each bound (of two tasks: a message of either fits).
MessageBounds Larger(const MessageBounds& a, const MessageBounds& b);

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_MESSAGE_BOUNDS_H_
