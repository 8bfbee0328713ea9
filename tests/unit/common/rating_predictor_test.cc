#include "common/mf/rating_predictor.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace fedmf::mf {
namespace {

data::RatingRow Row(const std::vector<int32_t>& items, const std::vector<float>& ratings) {
  return {.indices = items, .ratings = ratings, .timestamps = {}};
}

TEST(RatingPredictorTest, MeanPlusRidgeOnDeviations) {
  // k = 1, V = (1, 2, 0). Ratings 3 (item 0) and 5 (item 1): mean 4, deviations -1 and +1.
  // Gram = 1 + 4 = 5, rhs = 1 * -1 + 2 * 1 = 1, penalty = 0.1 * 5 / 1 = 0.5, w = 1 / 5.5.
  FactorMatrix v(3, 1);
  v << 1, 2, 0;
  const std::vector<int32_t> items = {0, 1};
  const std::vector<float> ratings = {3, 5};
  absl::StatusOr<RatingPredictor> p =
      RatingPredictor::Fit(v, Row(items, ratings), {.ridge = 0.1}, 3);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_DOUBLE_EQ(p->mean(), 4);
  EXPECT_NEAR(p->weights()[0], 1 / 5.5, 1e-12);
  EXPECT_NEAR(p->Predict(v, 0), 4 + 1 / 5.5, 1e-12);  // v_0 = 1 times w
  EXPECT_NEAR(p->Predict(v, 1), 4 + 2 / 5.5, 1e-12);
  EXPECT_NEAR(p->Predict(v, 2), 4, 1e-12);
}

TEST(RatingPredictorTest, TwoFactorsSolveTheRidgeSystem) {
  // V_O = I (items 0, 1), deviations of ratings 2 and 4 from mean 3: -1, +1. Gram = I, trace
  // 2, penalty = 0.5 * 2 / 2 = 0.5: w = (-1, 1) / 1.5. Item 2 = (1, 1) predicts 3 + 0.
  FactorMatrix v(3, 2);
  v << 1, 0,  //
      0, 1,   //
      1, 1;
  const std::vector<int32_t> items = {0, 1};
  const std::vector<float> ratings = {2, 4};
  absl::StatusOr<RatingPredictor> p =
      RatingPredictor::Fit(v, Row(items, ratings), {.ridge = 0.5}, 3);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_NEAR(p->weights()[0], -1 / 1.5, 1e-12);
  EXPECT_NEAR(p->weights()[1], 1 / 1.5, 1e-12);
  EXPECT_NEAR(p->Predict(v, 0), 3 - 1 / 1.5, 1e-12);
  EXPECT_NEAR(p->Predict(v, 2), 3, 1e-12);
}

TEST(RatingPredictorTest, UserWithoutRatingsPredictsTheFallback) {
  FactorMatrix v = FactorMatrix::Ones(2, 3);
  absl::StatusOr<RatingPredictor> p = RatingPredictor::Fit(v, Row({}, {}), {}, 3.5);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_DOUBLE_EQ(p->Predict(v, 1), 3.5);
}

TEST(RatingPredictorTest, RejectsBadInput) {
  FactorMatrix v = FactorMatrix::Ones(2, 1);
  const std::vector<int32_t> outside = {2};
  const std::vector<float> five = {5};
  EXPECT_EQ(RatingPredictor::Fit(v, Row(outside, five), {}, 3).status().code(),
            absl::StatusCode::kInvalidArgument);
  const std::vector<int32_t> first = {0};
  const std::vector<float> nan = {std::numeric_limits<float>::quiet_NaN()};
  EXPECT_EQ(RatingPredictor::Fit(v, Row(first, nan), {}, 3).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RatingPredictor::Fit(v, Row(first, five), {.ridge = -1}, 3).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::mf
