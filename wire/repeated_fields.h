// Counts the elements of a serialized message's repeated fields before libprotobuf parses it, so
// that a receiver can refuse a message whose parsed form would be out of proportion to its bytes:
// an empty submessage is 2 bytes on the wire and a heap object of ~50 parsed, a packed 1-byte
// varint a uint64 of 8. Bounding the elements bounds the parse at bytes + elements * object size.
#ifndef FEDMF_WIRE_REPEATED_FIELDS_H_
#define FEDMF_WIRE_REPEATED_FIELDS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/zero_copy_stream.h"

namespace fedmf::wire {

// InvalidArgument, naming the field and the bound, once the elements of all repeated fields of
// `bytes` read as a `type` (nested messages included; each element of a packed field counts)
// exceed `max_elements`. OK otherwise, malformed wire bytes included: the parse that follows
// refuses those. Reads the bytes once, allocates nothing per element.
absl::Status CheckRepeatedElements(const google::protobuf::Descriptor& type,
                                   google::protobuf::io::ZeroCopyInputStream& bytes,
                                   uint64_t max_elements);
absl::Status CheckRepeatedElements(const google::protobuf::Descriptor& type,
                                   absl::string_view bytes, uint64_t max_elements);

}  // namespace fedmf::wire

#endif  // FEDMF_WIRE_REPEATED_FIELDS_H_
