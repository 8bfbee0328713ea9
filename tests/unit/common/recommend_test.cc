#include "common/mf/recommend.h"

#include <cmath>
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
  // u = (1, 2): scores V u = 1, 5, 5, -1, 4, 3 for items 0..5.
  FactorMatrix v(6, 2);
  v << 1, 0,  //
      1, 2,   //
      3, 1,   //
      1, -1,  //
      0, 2,   //
      1, 1;
  const Eigen::Vector2d u(1, 2);
  absl::StatusOr<std::vector<Recommendation>> top = RecommendTopN(v, u, {4}, 3);
  ASSERT_TRUE(top.ok()) << top.status();
  // Item 4 (score 4) is excluded; items 1 and 2 tie at 5, lower index first.
  EXPECT_THAT(Items(*top), testing::ElementsAre(1, 2, 5));
  EXPECT_EQ((*top)[0].score, 5);
  EXPECT_EQ((*top)[2].score, 3);
}

TEST(RecommendTest, ReturnsFewerWhenFewCandidatesRemainAndPutsNanLast) {
  FactorMatrix v(3, 1);
  v << std::nan(""), -2, 1;
  absl::StatusOr<std::vector<Recommendation>> top =
      RecommendTopN(v, Eigen::VectorXd::Ones(1), {2, 2}, 10);
  ASSERT_TRUE(top.ok());
  EXPECT_THAT(Items(*top), testing::ElementsAre(1, 0));
}

TEST(RecommendTest, RejectsBadArguments) {
  FactorMatrix v = FactorMatrix::Zero(3, 2);
  EXPECT_FALSE(RecommendTopN(v, Eigen::VectorXd::Zero(2), {}, 0).ok());
  EXPECT_FALSE(RecommendTopN(v, Eigen::VectorXd::Zero(3), {}, 1).ok());
  EXPECT_FALSE(RecommendTopN(v, Eigen::VectorXd::Zero(2), {3}, 1).ok());
  EXPECT_FALSE(RecommendTopN(v, Eigen::VectorXd::Zero(2), {-1}, 1).ok());
}

}  // namespace
}  // namespace fedmf::mf
