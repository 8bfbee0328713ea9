// Checks the UTF-8 of a serialized message's string fields before libprotobuf parses it: its
// parser logs every invalid string to stderr ("String field ... contains invalid UTF-8"), which
// the mobile library must not write to an app's stderr. Local to the call: no global log handler.
#ifndef FEDMF_WIRE_UTF8_FIELDS_H_
#define FEDMF_WIRE_UTF8_FIELDS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"

namespace fedmf::wire {

// InvalidArgument naming the first `string` field (map keys and values, nested messages included)
// of `bytes`, read as a `type`, that is not valid UTF-8. OK for anything else, malformed wire
// bytes included: the parse that follows refuses those, silently.
absl::Status CheckStringFieldsAreUtf8(const google::protobuf::Descriptor& type,
                                      absl::string_view bytes);

}  // namespace fedmf::wire

#endif  // FEDMF_WIRE_UTF8_FIELDS_H_
