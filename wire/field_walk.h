// A walk over the fields of a serialized message, guided by its descriptor and nested messages
// included, for the checks made before libprotobuf parses untrusted bytes (utf8_fields.h,
// repeated_fields.h). Malformed bytes and nesting deeper than libprotobuf's recursion limit end
// the walk quietly: the parse that follows refuses them.
#ifndef FEDMF_WIRE_FIELD_WALK_H_
#define FEDMF_WIRE_FIELD_WALK_H_

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"

namespace fedmf::wire {

// What a visitor did with a field whose tag was just read.
enum class FieldStep {
  kPass,      // nothing: the walk descends into a length-delimited message, else skips the value
  kConsumed,  // it read the value itself
  kFound,     // what the check looks for: the walk stops, WalkFields returns true
  kMalformed  // the value does not read: the walk stops, WalkFields returns false
};
using FieldVisitor =
    absl::FunctionRef<FieldStep(const google::protobuf::FieldDescriptor& field, uint32_t tag,
                                google::protobuf::io::CodedInputStream& in)>;

// Calls `visit` for every field of `in`, read as a `type`, that `type` (or the nested message
// type) declares; unknown fields are skipped. True iff a visit returned kFound.
bool WalkFields(const google::protobuf::Descriptor& type,
                google::protobuf::io::CodedInputStream& in, FieldVisitor visit);

}  // namespace fedmf::wire

#endif  // FEDMF_WIRE_FIELD_WALK_H_
