// The masked-input check: the unusable list strictly ascending and within the relayed senders, the
// packed vector the accumulator's size with zero padding; a refused input leaves the sum as it was.
#include <algorithm>
#include <string>
#include <vector>

#include "crypto/secagg/masked_input_check.h"
#include "crypto/secagg/vector_codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::secagg {
namespace {

using fedmf::v1::secagg::MaskedInput;
using ::testing::HasSubstr;

// Senders 2, 4 and 6 had their shares relayed.
bool Relayed(uint32_t owner) { return owner == 2 || owner == 4 || owner == 6; }

TEST(SecAggMaskedInputCheckTest, UnusableListStrictlyAscendingWithinTheRelayedSenders) {
  EXPECT_TRUE(CheckUnusableSharesFrom({}, Relayed).ok());
  EXPECT_TRUE(CheckUnusableSharesFrom({2, 4, 6}, Relayed).ok());
  EXPECT_THAT(CheckUnusableSharesFrom({4, 2}, Relayed).message(),
              HasSubstr("not strictly ascending at 1"));
  EXPECT_THAT(CheckUnusableSharesFrom({2, 2}, Relayed).message(),
              HasSubstr("not strictly ascending at 1"));
  EXPECT_THAT(CheckUnusableSharesFrom({2, 3}, Relayed).message(),
              HasSubstr("names client 3, which sent it no shares"));
  EXPECT_EQ(CheckUnusableSharesFrom({5}, Relayed).code(), absl::StatusCode::kInvalidArgument);
}

MaskedInput Input(std::vector<uint64_t> values, std::vector<uint32_t> unusable) {
  MaskedInput m;
  m.set_packed(PackVector<uint64_t>(values, 6).value());
  m.mutable_unusable_shares_from()->Add(unusable.begin(), unusable.end());
  return m;
}

TEST(SecAggMaskedInputCheckTest, AddsOnlyWhatPassesTheCheck) {
  MaskAccumulator sum = MaskAccumulator::Create(6, 3).value();  // 18 bits: 3 bytes, 6 padding
  ASSERT_TRUE(AddMaskedInput(Input({63, 1, 2}, {4}), Relayed, sum).ok());
  ASSERT_TRUE(AddMaskedInput(Input({1, 1, 1}, {}), Relayed, sum).ok());
  const std::vector<uint64_t> before = sum.Values();
  EXPECT_EQ(before, (std::vector<uint64_t>{0, 2, 3}));

  EXPECT_THAT(AddMaskedInput(Input({1, 1, 1}, {6, 4}), Relayed, sum).message(),
              HasSubstr("not strictly ascending"));
  EXPECT_THAT(AddMaskedInput(Input({1, 1, 1}, {1}), Relayed, sum).message(),
              HasSubstr("names client 1"));
  MaskedInput longer = Input({1, 1, 1}, {});
  longer.mutable_packed()->push_back('\0');
  EXPECT_THAT(AddMaskedInput(longer, Relayed, sum).message(),
              HasSubstr("masked input: packed vector is 4 bytes, need ceil(3 * 6 / 8) = 3"));
  MaskedInput padded = Input({1, 1, 1}, {});
  padded.mutable_packed()->back() |= static_cast<char>(0x80);
  EXPECT_THAT(AddMaskedInput(padded, Relayed, sum).message(),
              HasSubstr("masked input: packed vector: padding bits of the last byte are not zero"));
  EXPECT_EQ(sum.Values(), before);
}

}  // namespace
}  // namespace fedmf::secagg
