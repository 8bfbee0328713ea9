// plan_payload: sets a round plan's payload to a serialized broadcast, refusing one protobuf cannot
// serialize (over 2 GiB - 1 bytes): SerializeAsString then fails silently and returns an empty or
// partial string, which the clients would take for a corrupted plan far from the cause.
#pragma once

#include <climits>
#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "fedmf/v1/algorithm.pb.h"
#include "google/protobuf/message_lite.h"

namespace fedmf::algorithms {

// ResourceExhausted naming the algorithm, the broadcast's size and `what_to_lower` (the setting
// that makes it large) when the broadcast exceeds protobuf's limit; otherwise sets the payload.
inline absl::Status SetPlanPayload(const google::protobuf::MessageLite& broadcast,
                                   absl::string_view algorithm, absl::string_view what_to_lower,
                                   v1::RoundPlan& plan) {
  if (const size_t bytes = broadcast.ByteSizeLong(); bytes > size_t{INT_MAX}) {
    return absl::ResourceExhaustedError(absl::StrCat(algorithm, " round plan: a broadcast of ",
                                                     bytes, " bytes exceeds protobuf's ", INT_MAX,
                                                     "-byte message limit; lower ", what_to_lower));
  }
  plan.set_payload(broadcast.SerializeAsString());
  return absl::OkStatus();
}

}  // namespace fedmf::algorithms
