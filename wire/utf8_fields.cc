// The UTF-8 pre-check of a serialized message's string fields (utf8_fields.h).
#include "wire/utf8_fields.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/wire_format_lite.h"

namespace fedmf::wire {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::io::CodedInputStream;
using google::protobuf::internal::WireFormatLite;

// libprotobuf's own default recursion limit.
constexpr int kMaxDepth = 100;

// Walks one message; false only for a string field that is not UTF-8 (`bad` names it). Stops
// quietly (true) at malformed wire bytes or too deep a nesting: the parser refuses those.
bool Walk(const Descriptor& type, CodedInputStream& in, int depth, std::string& bad) {
  if (depth > kMaxDepth) return true;
  while (true) {
    const uint32_t tag = in.ReadTag();
    if (tag == 0) return true;  // end of input (or a malformed tag: the parser refuses it)
    const FieldDescriptor* field = type.FindFieldByNumber(static_cast<int>(tag >> 3));
    const bool delimited =
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
    if (field == nullptr || !delimited ||
        (field->type() != FieldDescriptor::TYPE_STRING &&
         field->type() != FieldDescriptor::TYPE_MESSAGE)) {
      if (!WireFormatLite::SkipField(&in, tag)) return true;
      continue;
    }
    uint32_t length = 0;
    if (!in.ReadVarint32(&length)) return true;
    if (field->type() == FieldDescriptor::TYPE_STRING) {
      std::string value;
      if (!in.ReadString(&value, static_cast<int>(length))) return true;
      if (!google::protobuf::internal::IsStructurallyValidUTF8(value)) {
        bad = field->full_name();
        return false;
      }
      continue;
    }
    const CodedInputStream::Limit limit = in.PushLimit(static_cast<int>(length));
    if (!Walk(*field->message_type(), in, depth + 1, bad)) return false;
    if (!in.ConsumedEntireMessage()) return true;
    in.PopLimit(limit);
  }
}

}  // namespace

absl::Status CheckStringFieldsAreUtf8(const Descriptor& type, absl::string_view bytes) {
  CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                      static_cast<int>(bytes.size()));
  std::string bad;
  if (Walk(type, in, 0, bad)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("string field ", bad, " is not valid UTF-8 (a corrupted blob?)"));
}

}  // namespace fedmf::wire
