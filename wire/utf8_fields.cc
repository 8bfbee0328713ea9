// The UTF-8 pre-check of a serialized message's string fields (utf8_fields.h).
#include "wire/utf8_fields.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/wire_format_lite.h"
#include "wire/field_walk.h"

namespace fedmf::wire {
namespace {

namespace pb = google::protobuf;
using pb::internal::WireFormatLite;

}  // namespace

absl::Status CheckStringFieldsAreUtf8(const pb::Descriptor& type, absl::string_view bytes) {
  pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                              static_cast<int>(bytes.size()));
  const pb::FieldDescriptor* bad = nullptr;
  const bool found = WalkFields(
      type, in,
      [&bad](const pb::FieldDescriptor& field, uint32_t tag, pb::io::CodedInputStream& in) {
        if (field.type() != pb::FieldDescriptor::TYPE_STRING ||
            WireFormatLite::GetTagWireType(tag) != WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
          return FieldStep::kPass;
        }
        uint32_t length = 0;
        std::string value;
        if (!in.ReadVarint32(&length) || !in.ReadString(&value, static_cast<int>(length))) {
          return FieldStep::kMalformed;
        }
        if (pb::internal::IsStructurallyValidUTF8(value)) return FieldStep::kConsumed;
        bad = &field;
        return FieldStep::kFound;
      });
  if (!found) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("string field ", bad->full_name(), " is not valid UTF-8 (a corrupted blob?)"));
}

}  // namespace fedmf::wire
