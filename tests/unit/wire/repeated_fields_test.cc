// CheckRepeatedElements: every element of every repeated field counts (submessages, packed and
// unpacked scalars, nested ones), the error names the field that crosses the bound, and malformed
// bytes are left to the parser.
#include "wire/repeated_fields.h"

#include <string>

#include "fedmf/v1/federation.pb.h"
#include "gtest/gtest.h"

namespace fedmf::wire {
namespace {

const google::protobuf::Descriptor& Client() { return *v1::ClientMessage::descriptor(); }

std::string EmptyShares(int count) {
  v1::ClientMessage m;
  auto* shares = m.mutable_secagg()->mutable_message()->mutable_share_keys()->mutable_shares();
  for (int i = 0; i < count; ++i) shares->Add();
  return m.SerializeAsString();
}

std::string PackedValues(int count) {
  v1::ClientMessage m;
  for (int i = 0; i < count; ++i) m.mutable_clear_upload()->add_values(1);
  return m.SerializeAsString();
}

TEST(RepeatedFieldsTest, CountsEmptySubmessages) {
  const std::string bytes = EmptyShares(10);
  EXPECT_TRUE(CheckRepeatedElements(Client(), bytes, 10).ok());
  const absl::Status refused = CheckRepeatedElements(Client(), bytes, 9);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("repeated field fedmf.v1.secagg.ShareKeysResponse.shares"),
            std::string::npos)
      << refused.message();
  EXPECT_NE(refused.message().find("over 9 repeated elements"), std::string::npos)
      << refused.message();
}

TEST(RepeatedFieldsTest, CountsEachElementOfAPackedField) {
  const std::string bytes = PackedValues(100);
  ASSERT_LT(bytes.size(), 120u);  // one byte a value: packed
  EXPECT_TRUE(CheckRepeatedElements(Client(), bytes, 100).ok());
  const absl::Status refused = CheckRepeatedElements(Client(), bytes, 99);
  EXPECT_NE(refused.message().find("fedmf.v1.ClearUpload.values"), std::string::npos)
      << refused.message();
}

TEST(RepeatedFieldsTest, CountsUnpackedScalarsAndAddsUpAllFields) {
  // ClearUpload (field 3 of ClientMessage) with values (field 3) sent unpacked, as varints.
  std::string upload;
  for (int i = 0; i < 5; ++i) upload += std::string("\x18\x01", 2);
  v1::ClientMessage indices;
  for (int i = 0; i < 5; ++i) indices.mutable_clear_upload()->add_indices(static_cast<uint64_t>(i));
  const std::string bytes = std::string("\x1a", 1) + static_cast<char>(upload.size()) + upload +
                            indices.SerializeAsString();  // concatenation merges the two
  v1::ClientMessage parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  ASSERT_EQ(parsed.clear_upload().values_size() + parsed.clear_upload().indices_size(), 10);
  EXPECT_TRUE(CheckRepeatedElements(Client(), bytes, 10).ok());
  EXPECT_FALSE(CheckRepeatedElements(Client(), bytes, 9).ok());
}

TEST(RepeatedFieldsTest, LeavesMalformedBytesToTheParser) {
  // A packed field declaring more bytes than there are, a truncated varint, garbage.
  for (const std::string& bytes :
       {std::string("\x1a\x05\x1a\x7f\x01", 5), std::string("\x1a\x03\x1a\x01\xff", 5),
        std::string("\x0f\xff\xff\xff\xff\x07garbage", 12)}) {
    EXPECT_TRUE(CheckRepeatedElements(Client(), bytes, 0).ok());
  }
}

TEST(RepeatedFieldsTest, AMessageWithoutRepeatedFieldsHasNone) {
  v1::ClientMessage m;
  m.mutable_chunk()->set_data(std::string(1000, 'x'));
  m.mutable_chunk()->set_total_bytes(1000);
  EXPECT_TRUE(CheckRepeatedElements(Client(), m.SerializeAsString(), 0).ok());
}

}  // namespace
}  // namespace fedmf::wire
