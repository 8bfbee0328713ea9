// Bit-packing of SecAgg vectors: hand-packed layouts, exact sizes, padding and range validation.
#include <vector>

#include "crypto/secagg/config.h"
#include "crypto/secagg/vector_codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/hex.h"

namespace fedmf::secagg {
namespace {

using crypto::test_util::ToHex;
using ::testing::HasSubstr;

TEST(SecAggVectorCodecTest, ThreeBitValuesPackLsbFirst) {
  // 1 = 001, 2 = 010, 3 = 011 at bits 0, 3, 6: byte 0 = 1 | 2 << 3 | (3 & 3) << 6 = 0xd1, byte 1
  // = 3 >> 2 = 0 (9 bits in 2 bytes).
  const std::vector<uint64_t> v = {1, 2, 3};
  EXPECT_EQ(ToHex(AsBytes(PackVector<uint64_t>(v, 3).value())), "d100");
}

TEST(SecAggVectorCodecTest, TwelveBitValues) {
  // 0xabc then 0x123: bytes bc, (a | 3 << 4) = 3a, 12.
  const std::vector<uint32_t> v = {0xabc, 0x123};
  EXPECT_EQ(ToHex(AsBytes(PackVector<uint32_t>(v, 12).value())), "bc3a12");
}

TEST(SecAggVectorCodecTest, SixtyTwoBitValues) {
  const std::vector<uint64_t> v = {(uint64_t{1} << 62) - 1};
  EXPECT_EQ(ToHex(AsBytes(PackVector<uint64_t>(v, 62).value())), "ffffffffffffff3f");
}

TEST(SecAggVectorCodecTest, PackedSizeIsCeilOfBits) {
  EXPECT_EQ(PackedSize(16384, 32), 65536u);
  EXPECT_EQ(PackedSize(5, 12), 8u);  // 60 bits
  EXPECT_EQ(PackedSize(1, 1), 1u);
  EXPECT_EQ(PackVector<uint64_t>(std::vector<uint64_t>(1000, 1), 13).value().size(), 1625u);
}

TEST(SecAggVectorCodecTest, ValueOutOfRangeRejected) {
  const std::vector<uint64_t> v = {1, 8};
  EXPECT_THAT(PackVector<uint64_t>(v, 3).status().message(),
              HasSubstr("value 1 = 8 does not fit in 3 bits"));
}

TEST(SecAggVectorCodecTest, UnpackRoundTripAndAdd) {
  const std::vector<uint64_t> v = {1, 2, 3};
  const std::string packed = PackVector<uint64_t>(v, 3).value();
  EXPECT_EQ(UnpackVector(AsBytes(packed), 3, 3).value(), v);
  std::vector<uint32_t> acc = {5, 6, 7};
  ASSERT_TRUE(AddPackedVector<uint32_t>(AsBytes(packed), 3, absl::MakeSpan(acc)).ok());
  EXPECT_EQ(acc, (std::vector<uint32_t>{6, 0, 2}));  // mod 8
}

TEST(SecAggVectorCodecTest, WrongSizeRejected) {
  const std::vector<uint8_t> three(3, 0);
  EXPECT_THAT(ValidatePacked(three, 3, 3).message(),
              HasSubstr("packed vector is 3 bytes, need ceil(3 * 3 / 8) = 2"));
}

TEST(SecAggVectorCodecTest, NonzeroPaddingRejected) {
  const std::vector<uint8_t> packed = {0xd1, 0x02};  // bit 9 set, only 9 bits are used
  EXPECT_THAT(ValidatePacked(packed, 3, 3).message(), HasSubstr("padding bits"));
  std::vector<uint64_t> acc(3, 0);
  EXPECT_FALSE(AddPackedVector<uint64_t>(packed, 3, absl::MakeSpan(acc)).ok());
  EXPECT_EQ(acc, std::vector<uint64_t>(3, 0));  // unchanged
}

TEST(SecAggVectorCodecTest, WideValuesDoNotFitNarrowWords) {
  std::vector<uint32_t> acc(1, 0);
  const std::vector<uint8_t> packed(5, 0);
  EXPECT_FALSE(AddPackedVector<uint32_t>(packed, 33, absl::MakeSpan(acc)).ok());
}

}  // namespace
}  // namespace fedmf::secagg
