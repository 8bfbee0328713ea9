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

template <typename Word>
std::vector<Word> Unpack(UnpackMode mode, const std::vector<uint8_t>& packed, size_t count,
                         int bits, std::vector<Word> out, bool scalar) {
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
  EXPECT_THAT(Unpack<uint64_t>(UnpackMode::kSet, packed, 4, 12, std::vector<uint64_t>(4), false),
              ElementsAre(0x5dc, 0xc09, 0x278, 0x40a));
}

TEST(BitUnpackTest, HandWorkedThreeBitValuesAcrossBytes) {
  // 0xb4 = 1011 0100: bits 0-2 = 100 (4), bits 3-5 = 110 (6), bits 6-7 = 10 plus bit 0 of 0x01
  // on top: 110 (6).
  std::vector<uint8_t> packed = {0xb4, 0x01};
  packed.resize(packed.size() + kUnpackSlackBytes);
  EXPECT_THAT(Unpack<uint64_t>(UnpackMode::kSet, packed, 3, 3, std::vector<uint64_t>(3), false),
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

// Both paths (SIMD where the CPU has it, and scalar) against the definition, for every width
// the word type holds, every mode, counts that are and are not multiples of the 8-value group,
// and arbitrary accumulator contents (including values >= 2^b, which must come out reduced).
template <typename Word>
void CheckAllWidthsAndModes() {
  std::mt19937_64 rng(7);
  for (int bits = 1; bits <= static_cast<int>(8 * sizeof(Word)); ++bits) {
    const Word mask = static_cast<Word>(LowBitsMask(bits));
    for (size_t count : {0, 1, 7, 8, 9, 31, 64, 203}) {
      const std::vector<uint8_t> packed =
          RandomBytes((count * bits + 7) / 8 + kUnpackSlackBytes, rng());
      std::vector<Word> acc(count);
      for (Word& a : acc) a = static_cast<Word>(rng());
      for (bool scalar : {false, true}) {
        const auto set = Unpack<Word>(UnpackMode::kSet, packed, count, bits, acc, scalar);
        const auto add = Unpack<Word>(UnpackMode::kAdd, packed, count, bits, acc, scalar);
        const auto sub = Unpack<Word>(UnpackMode::kSubtract, packed, count, bits, acc, scalar);
        for (size_t i = 0; i < count; ++i) {
          const Word v = static_cast<Word>(ReferenceValue(packed, i, bits));
          ASSERT_EQ(set[i], v) << "bits=" << bits << " count=" << count << " i=" << i;
          ASSERT_EQ(add[i], static_cast<Word>(acc[i] + v) & mask) << "bits=" << bits << " i=" << i;
          ASSERT_EQ(sub[i], static_cast<Word>(acc[i] - v) & mask) << "bits=" << bits << " i=" << i;
        }
      }
    }
  }
}

TEST(BitUnpackTest, BothPathsMatchDefinitionIn64BitWords) { CheckAllWidthsAndModes<uint64_t>(); }
TEST(BitUnpackTest, BothPathsMatchDefinitionIn32BitWords) { CheckAllWidthsAndModes<uint32_t>(); }

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
