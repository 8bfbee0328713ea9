// The pre-parse count of a serialized message's repeated-field elements (repeated_fields.h).
#include "wire/repeated_fields.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"
#include "wire/field_walk.h"

namespace fedmf::wire {
namespace {

namespace pb = google::protobuf;
using pb::internal::WireFormatLite;

// The elements of a packed field's payload of `length` bytes; false at malformed bytes.
bool CountPacked(const pb::FieldDescriptor& field, uint32_t length, pb::io::CodedInputStream& in,
                 uint64_t& elements) {
  switch (
      WireFormatLite::WireTypeForFieldType(static_cast<WireFormatLite::FieldType>(field.type()))) {
    case WireFormatLite::WIRETYPE_FIXED32:
      elements = length / 4;
      return in.Skip(static_cast<int>(length));
    case WireFormatLite::WIRETYPE_FIXED64:
      elements = length / 8;
      return in.Skip(static_cast<int>(length));
    default: {  // varints: counted by reading them, as the parser will
      const pb::io::CodedInputStream::Limit limit = in.PushLimit(static_cast<int>(length));
      elements = 0;
      uint64_t ignored = 0;
      while (in.BytesUntilLimit() > 0) {
        if (!in.ReadVarint64(&ignored)) return false;
        ++elements;
      }
      in.PopLimit(limit);
      return true;
    }
  }
}

}  // namespace

absl::Status CheckRepeatedElements(const pb::Descriptor& type, pb::io::ZeroCopyInputStream& bytes,
                                   uint64_t max_elements) {
  pb::io::CodedInputStream in(&bytes);
  in.SetTotalBytesLimit(std::numeric_limits<int>::max());
  uint64_t count = 0;
  const pb::FieldDescriptor* over = nullptr;
  // Adds `n` elements of `field`: kFound once the total is over the bound.
  auto add = [&](const pb::FieldDescriptor& field, uint64_t n) {
    count += n;
    if (count <= max_elements) return FieldStep::kConsumed;
    over = &field;
    return FieldStep::kFound;
  };
  const bool found = WalkFields(
      type, in, [&](const pb::FieldDescriptor& field, uint32_t tag, pb::io::CodedInputStream& in) {
        const bool delimited =
            WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
        if (delimited && field.is_packable()) {  // packed (the parser takes it for any repeated)
          uint32_t length = 0;
          uint64_t elements = 0;
          if (!in.ReadVarint32(&length) || !CountPacked(field, length, in, elements)) {
            return FieldStep::kMalformed;
          }
          return add(field, elements);
        }
        if (field.is_repeated() && add(field, 1) == FieldStep::kFound) return FieldStep::kFound;
        return FieldStep::kPass;  // its value, a nested message's fields included, comes next
      });
  if (!found) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("repeated field ", over->full_name(), " brings ",
                                                 type.full_name(), " over ", max_elements,
                                                 " repeated elements, the most its plan allows"));
}

absl::Status CheckRepeatedElements(const pb::Descriptor& type, absl::string_view bytes,
                                   uint64_t max_elements) {
  pb::io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()));
  return CheckRepeatedElements(type, stream, max_elements);
}

}  // namespace fedmf::wire
