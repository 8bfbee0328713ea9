#include "common/mf/recommend.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::mf {
namespace {

std::vector<int32_t> Items(const std::vector<Recommendation>& list) {
  std::vector<int32_t> out;
  for (const Recommendation& r : list) out.push_back(r.item);
  return out;
}

TEST(RecommendTest, RanksByScoreExcludesRatedAndBreaksTiesByIndex) {
  const std::vector<double> scores = {1, 5, 5, -1, 4, 3};
  absl::StatusOr<std::vector<Recommendation>> top = RecommendTopN(scores, {4}, 3);
  ASSERT_TRUE(top.ok()) << top.status();
  // Item 4 (score 4) is excluded; items 1 and 2 tie at 5, lower index first.
  EXPECT_THAT(Items(*top), ::testing::ElementsAre(1, 2, 5));
  EXPECT_EQ((*top)[0].score, 5);
  EXPECT_EQ((*top)[2].score, 3);
}

TEST(RecommendTest, ReturnsFewerWhenFewCandidatesRemainAndPutsNanLast) {
  const std::vector<double> scores = {std::nan(""), -2, 1};
  absl::StatusOr<std::vector<Recommendation>> top = RecommendTopN(scores, {2, 2}, 10);
  ASSERT_TRUE(top.ok());
  EXPECT_THAT(Items(*top), ::testing::ElementsAre(1, 0));
  EXPECT_EQ((*top)[1].score, -std::numeric_limits<double>::infinity());
}

TEST(RecommendTest, RejectsBadArguments) {
  const std::vector<double> scores(3, 0.0);
  EXPECT_FALSE(RecommendTopN(scores, {}, 0).ok());
  EXPECT_FALSE(RecommendTopN(scores, {3}, 1).ok());
  EXPECT_FALSE(RecommendTopN(scores, {-1}, 1).ok());
}

}  // namespace
}  // namespace fedmf::mf
