#include "crypto/bit_unpack.h"

#include <cstdint>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::crypto::internal {
namespace {

using ::testing::ElementsAre;

// The definition, one bit at a time: bit k of value i is bit (i*b + k) % 8 of byte (i*b + k) / 8.
uint64_t ReferenceValue(const std::vector<uint8_t>& packed, size_t i, int bits) {
  uint64_t v = 0;
  for (int k = 0; k < bits; ++k) {
    const size_t bit = i * bits + k;
    v |= static_cast<uint64_t>((packed[bit / 8] >> (bit % 8)) & 1) << k;
  }
  return v;
}

std::vector<uint8_t> RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

std::vector<uint64_t> Unpack(UnpackMode mode, const std::vector<uint8_t>& packed, size_t count,
                             int bits, std::vector<uint64_t> out, bool scalar) {
  if (scalar) {
    UnpackBitsScalar(mode, packed.data(), count, bits, out.data());
  } else {
    UnpackBits(mode, packed.data(), count, bits, out.data());
  }
  return out;
}

TEST(BitUnpackTest, HandWorkedTwelveBitValues) {
  // Bytes dc 95 c0 78 a2 40: value 0 = 0xdc | (0x95 & 0xf) << 8, value 1 = 0x95 >> 4 | 0xc0 << 4...
  std::vector<uint8_t> packed = {0xdc, 0x95, 0xc0, 0x78, 0xa2, 0x40};
  packed.resize(packed.size() + kUnpackSlackBytes);
  EXPECT_THAT(Unpack(UnpackMode::kSet, packed, 4, 12, std::vector<uint64_t>(4), false),
              ElementsAre(0x5dc, 0xc09, 0x278, 0x40a));
}

TEST(BitUnpackTest, HandWorkedThreeBitValuesAcrossBytes) {
  // 0xb4 = 1011 0100: bits 0-2 = 100 (4), bits 3-5 = 110 (6), bits 6-7 = 10 plus bit 0 of 0x01
  // on top: 110 (6).
  std::vector<uint8_t> packed = {0xb4, 0x01};
  packed.resize(packed.size() + kUnpackSlackBytes);
  EXPECT_THAT(Unpack(UnpackMode::kSet, packed, 3, 3, std::vector<uint64_t>(3), false),
              ElementsAre(4, 6, 6));
}

TEST(BitUnpackTest, ExtractMatchesBitByBitDefinitionForAllWidths) {
  const std::vector<uint8_t> packed = RandomBytes(64 * 40 / 8 + kUnpackSlackBytes, 1);
  for (int bits = 1; bits <= 64; ++bits) {
    for (size_t i = 0; i < 40; ++i) {
      ASSERT_EQ(ExtractBits(packed.data(), i, bits), ReferenceValue(packed, i, bits))
          << "bits=" << bits << " i=" << i;
    }
  }
}

// Both paths (SIMD where the CPU has it, and scalar) against the definition, for every width,
// every mode, counts that are and are not multiples of the 8-value group, and arbitrary
// accumulator contents (including values >= 2^b, which must come out reduced).
TEST(BitUnpackTest, BothPathsMatchDefinitionInEveryMode) {
  std::mt19937_64 rng(7);
  for (int bits = 1; bits <= 64; ++bits) {
    const uint64_t mask = LowBitsMask(bits);
    for (size_t count : {0, 1, 7, 8, 9, 31, 64, 203}) {
      const std::vector<uint8_t> packed =
          RandomBytes((count * bits + 7) / 8 + kUnpackSlackBytes, rng());
      std::vector<uint64_t> acc(count);
      for (uint64_t& a : acc) a = rng();
      for (bool scalar : {false, true}) {
        const auto set = Unpack(UnpackMode::kSet, packed, count, bits, acc, scalar);
        const auto add = Unpack(UnpackMode::kAdd, packed, count, bits, acc, scalar);
        const auto sub = Unpack(UnpackMode::kSubtract, packed, count, bits, acc, scalar);
        for (size_t i = 0; i < count; ++i) {
          const uint64_t v = ReferenceValue(packed, i, bits);
          ASSERT_EQ(set[i], v) << "bits=" << bits << " count=" << count << " i=" << i;
          ASSERT_EQ(add[i], (acc[i] + v) & mask) << "bits=" << bits << " i=" << i;
          ASSERT_EQ(sub[i], (acc[i] - v) & mask) << "bits=" << bits << " i=" << i;
        }
      }
    }
  }
}

TEST(BitUnpackTest, SimdIsUsedOnlyUpTo56Bits) {
  EXPECT_FALSE(UnpackBitsUsesSimd(57));
  EXPECT_FALSE(UnpackBitsUsesSimd(64));
  // Whether 1..56 use SIMD depends on the CPU (AVX2); the test above covers both outcomes.
}

TEST(BitUnpackTest, LowBitsMask) {
  EXPECT_EQ(LowBitsMask(1), 1u);
  EXPECT_EQ(LowBitsMask(20), 0xfffffu);
  EXPECT_EQ(LowBitsMask(63), 0x7fffffffffffffffu);
  EXPECT_EQ(LowBitsMask(64), 0xffffffffffffffffu);
}

}  // namespace
}  // namespace fedmf::crypto::internal
