// MaskAccumulator: arithmetic mod 2^b on 32- and 64-bit words, masks that cancel, validation.
#include <string>
#include <vector>

#include "crypto/prg.h"
#include "crypto/secagg/mask_accumulator.h"
#include "gtest/gtest.h"

namespace fedmf::secagg {
namespace {

TEST(SecAggMaskAccumulatorTest, AddValuesWrapsModTwoToTheB) {
  MaskAccumulator acc = MaskAccumulator::Create(4, 3).value();
  ASSERT_TRUE(acc.AddValues({15, 1, 8}).ok());
  ASSERT_TRUE(acc.AddValues({3, 15, 8}).ok());
  EXPECT_EQ(acc.Values(), (std::vector<uint64_t>{2, 0, 0}));
}

TEST(SecAggMaskAccumulatorTest, WideWordsWrapAtSixtyTwoBits) {
  MaskAccumulator acc = MaskAccumulator::Create(62, 1).value();
  const uint64_t top = (uint64_t{1} << 62) - 1;
  ASSERT_TRUE(acc.AddValues({top}).ok());
  ASSERT_TRUE(acc.AddValues({2}).ok());
  EXPECT_EQ(acc.Values(), std::vector<uint64_t>{1});
}

TEST(SecAggMaskAccumulatorTest, AddsAnotherAccumulatorModTwoToTheB) {
  for (int bits : {4, 40}) {
    MaskAccumulator a = MaskAccumulator::Create(bits, 2).value();
    MaskAccumulator b = MaskAccumulator::Create(bits, 2).value();
    const uint64_t top = (uint64_t{1} << bits) - 1;
    ASSERT_TRUE(a.AddValues({top, 3}).ok());
    ASSERT_TRUE(b.AddValues({2, 4}).ok());
    ASSERT_TRUE(a.Add(b).ok());
    EXPECT_EQ(a.Values(), (std::vector<uint64_t>{1, 7})) << bits;
  }
  MaskAccumulator a = MaskAccumulator::Create(4, 2).value();
  EXPECT_FALSE(a.Add(MaskAccumulator::Create(5, 2).value()).ok());
  EXPECT_FALSE(a.Add(MaskAccumulator::Create(4, 3).value()).ok());
}

TEST(SecAggMaskAccumulatorTest, MaskIsThePrgOutputAndCancels) {
  const std::vector<uint8_t> seed(32, 0x42);
  for (int bits : {1, 17, 32, 33, 62}) {
    MaskAccumulator acc = MaskAccumulator::Create(bits, 100).value();
    ASSERT_TRUE(acc.AddMask(seed, crypto::MaskOp::kAdd).ok());
    EXPECT_EQ(acc.Values(), crypto::ExpandMask(seed, bits, 100).value()) << bits;
    ASSERT_TRUE(acc.AddMask(seed, crypto::MaskOp::kSubtract).ok());
    EXPECT_EQ(acc.Values(), std::vector<uint64_t>(100, 0)) << bits;
  }
}

TEST(SecAggMaskAccumulatorTest, PackAndAddPackedRoundTrip) {
  MaskAccumulator a = MaskAccumulator::Create(20, 4).value();
  ASSERT_TRUE(a.AddValues({1, 2, 3, (1 << 20) - 1}).ok());
  const std::string packed = a.Pack().value();
  ASSERT_EQ(packed.size(), 10u);  // 80 bits
  MaskAccumulator b = MaskAccumulator::Create(20, 4).value();
  ASSERT_TRUE(b.AddPacked(absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(packed.data()),
                                              packed.size()))
                  .ok());
  EXPECT_EQ(b.Values(), a.Values());
}

TEST(SecAggMaskAccumulatorTest, InvalidInputsRejected) {
  EXPECT_FALSE(MaskAccumulator::Create(0, 4).ok());
  EXPECT_FALSE(MaskAccumulator::Create(63, 4).ok());
  EXPECT_FALSE(MaskAccumulator::Create(8, 0).ok());
  MaskAccumulator acc = MaskAccumulator::Create(8, 2).value();
  EXPECT_FALSE(acc.AddValues({1}).ok());
  EXPECT_FALSE(acc.AddValues({1, 256}).ok());
  EXPECT_EQ(acc.Values(), (std::vector<uint64_t>{0, 0}));
  EXPECT_FALSE(acc.AddMask(std::vector<uint8_t>(31, 0), crypto::MaskOp::kAdd).ok());
}

}  // namespace
}  // namespace fedmf::secagg
