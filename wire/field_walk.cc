// The descriptor-guided walk over a serialized message's fields (field_walk.h).
#include "wire/field_walk.h"

#include "google/protobuf/wire_format_lite.h"

namespace fedmf::wire {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

// libprotobuf's own default recursion limit.
constexpr int kMaxDepth = 100;

enum class End { kDone, kFound };

End Walk(const Descriptor& type, CodedInputStream& in, int depth, FieldVisitor visit) {
  if (depth > kMaxDepth) return End::kDone;
  while (true) {
    const uint32_t tag = in.ReadTag();
    if (tag == 0) return End::kDone;  // end of input (or a malformed tag)
    const FieldDescriptor* field = type.FindFieldByNumber(static_cast<int>(tag >> 3));
    const FieldStep step = field == nullptr ? FieldStep::kPass : visit(*field, tag, in);
    if (step == FieldStep::kFound) return End::kFound;
    if (step == FieldStep::kMalformed) return End::kDone;
    if (step == FieldStep::kConsumed) continue;
    const bool delimited =
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
    if (field == nullptr || !delimited || field->type() != FieldDescriptor::TYPE_MESSAGE) {
      if (!WireFormatLite::SkipField(&in, tag)) return End::kDone;
      continue;
    }
    uint32_t length = 0;
    if (!in.ReadVarint32(&length)) return End::kDone;
    const CodedInputStream::Limit limit = in.PushLimit(static_cast<int>(length));
    if (Walk(*field->message_type(), in, depth + 1, visit) == End::kFound) return End::kFound;
    if (!in.ConsumedEntireMessage()) return End::kDone;
    in.PopLimit(limit);
  }
}

}  // namespace

bool WalkFields(const Descriptor& type, CodedInputStream& in, FieldVisitor visit) {
  return Walk(type, in, 0, visit) == End::kFound;
}

}  // namespace fedmf::wire
