#include "common/dp/hashing.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace fedmf::dp {
namespace {

// Reference outputs of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
TEST(HashingTest, SplitMix64KnownAnswers) {
  EXPECT_EQ(SplitMix64At(0, 0), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(SplitMix64At(0, 1), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(SplitMix64At(0, 2), 0x06c45d188009454fULL);
}

TEST(HashingTest, FinalizeIsTheOutputFunction) {
  EXPECT_EQ(SplitMix64Finalize(0x9e3779b97f4a7c15ULL), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(SplitMix64Finalize(0), 0u);
}

TEST(HashingTest, StreamKeysOfOneSeedDiffer) {
  EXPECT_NE(DeriveStreamKey(1, kTagProjectionBucket), DeriveStreamKey(1, kTagProjectionSign));
  EXPECT_NE(DeriveStreamKey(1, kTagProjectionBucket), DeriveStreamKey(2, kTagProjectionBucket));
  EXPECT_EQ(DeriveStreamKey(5, kTagHadamardSign), SplitMix64Finalize(5 ^ kTagHadamardSign));
}

TEST(HashingTest, ReduceToRangeIsMultiplyShift) {
  EXPECT_EQ(ReduceToRange(0, 10), 0u);
  EXPECT_EQ(ReduceToRange(uint64_t{1} << 63, 10), 5u);
  EXPECT_EQ(ReduceToRange(~uint64_t{0}, 10), 9u);
  EXPECT_EQ(ReduceToRange(uint64_t{3} << 62, 4), 3u);
}

TEST(HashingTest, SignFromTopBit) {
  EXPECT_EQ(SignFromBits(0), 1);
  EXPECT_EQ(SignFromBits(0x7fffffffffffffffULL), 1);
  EXPECT_EQ(SignFromBits(uint64_t{1} << 63), -1);
}

}  // namespace
}  // namespace fedmf::dp
