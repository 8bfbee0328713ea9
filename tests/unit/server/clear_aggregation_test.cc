#include "server/clear_aggregation.h"

#include "gtest/gtest.h"

namespace fedmf::server {
namespace {

// Vectors of 3 values in Z_{2^4}, each value < 2^3.
v1::RoundPlan Plan() {
  v1::RoundPlan p;
  p.set_length(3);
  p.set_bits(4);
  p.set_client_bits(3);
  p.set_combination(v1::COMBINATION_CLEAR);
  p.set_min_contributors(1);
  p.set_max_contributors(3);
  return p;
}

TEST(ClearAggregationTest, AddsUploadsModTwoToTheBits) {
  ClearAggregation a(Plan(), {1, 2, 3});
  ASSERT_TRUE(a.Accept(1, {7, 1, 0}).ok());
  ASSERT_TRUE(a.Accept(3, {7, 2, 5}).ok());
  EXPECT_FALSE(a.Complete());
  ASSERT_TRUE(a.Accept(2, {7, 0, 6}).ok());
  EXPECT_TRUE(a.Complete());
  EXPECT_EQ(a.contributors(), 3);
  // 21 mod 16 = 5, 3, 11.
  EXPECT_EQ(a.sum(), (std::vector<uint64_t>{5, 3, 11}));
}

TEST(ClearAggregationTest, RefusesStrangersRepeatsAndMisfitVectors) {
  ClearAggregation a(Plan(), {1, 2});
  EXPECT_EQ(a.Accept(9, {1, 1, 1}).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(a.Accept(1, {1, 1}).code(), absl::StatusCode::kInvalidArgument);     // length
  EXPECT_EQ(a.Accept(1, {8, 0, 0}).code(), absl::StatusCode::kInvalidArgument);  // >= 2^3
  ASSERT_TRUE(a.Accept(1, {1, 1, 1}).ok());
  EXPECT_EQ(a.Accept(1, {1, 1, 1}).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(a.sum(), (std::vector<uint64_t>{1, 1, 1}));  // refusals left it unchanged
}

TEST(ClearAggregationTest, DroppedParticipantsCompleteTheRoundWithoutUploading) {
  ClearAggregation a(Plan(), {1, 2});
  ASSERT_TRUE(a.Accept(1, {1, 2, 3}).ok());
  a.MarkDropped(2);
  a.MarkDropped(1);  // already uploaded: stays counted
  a.MarkDropped(7);  // not invited: ignored
  EXPECT_TRUE(a.Complete());
  EXPECT_EQ(a.contributors(), 1);
  EXPECT_EQ(a.Accept(2, {1, 1, 1}).code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace fedmf::server
