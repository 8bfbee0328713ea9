// FactorScorer (common/algorithms/factor_scorer.h) computes exactly what the runtime computed
// from factors before the Scorer interface: ranking scores V u with eq. 5's factor at the ranking
// kappa, predicted ratings mean + V w of mf::RatingPredictor.
#include "common/algorithms/factor_scorer.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/mf/rating_predictor.h"
#include "common/mf/weighted_solve.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms {
namespace {

constexpr double kLambda = 0.25;
constexpr double kRankingKappa = 2;

mf::FactorMatrix SmallModel() {
  mf::FactorMatrix v(5, 2);
  v << 0.3, -0.2,  //
      1.0, 0.4,    //
      -0.7, 0.9,   //
      0.2, 0.2,    //
      0.5, -1.1;
  return v;
}

TEST(FactorScorerTest, ScoresAreTheItemFactorsTimesTheRankingUserFactor) {
  const mf::FactorMatrix v = SmallModel();
  const FactorScorer scorer(v, kLambda, kRankingKappa);
  const std::vector<int32_t> items = {1, 3};
  const std::vector<float> ratings = {4, 2};
  const data::RatingRow row{items, ratings, {}};
  const Eigen::MatrixXd gram = v.transpose() * v;
  const Eigen::VectorXd u = mf::SolveWeightedRow(gram, v, row, kRankingKappa, kLambda);
  EXPECT_EQ(scorer.num_items(), 5);
  EXPECT_EQ(scorer.UserFactor(row).value(), u);
  const Eigen::VectorXd old_scores = v * u;  // what participant.cc and evaluation.cc computed
  EXPECT_EQ(scorer.Scores(row).value(), old_scores);
}

TEST(FactorScorerTest, PredictedRatingsAreTheRatingPredictors) {
  const mf::FactorMatrix v = SmallModel();
  const FactorScorer scorer(v, kLambda, kRankingKappa);
  ASSERT_TRUE(scorer.predicts_ratings());
  const std::vector<int32_t> items = {0, 2, 4};
  const std::vector<float> ratings = {5, 3, 4};
  const data::RatingRow row{items, ratings, {}};
  const mf::RatingPredictor p = mf::RatingPredictor::Fit(v, row, {}, 0).value();
  const Eigen::VectorXd old_predicted = (v * p.weights()).array() + p.mean();
  const Eigen::VectorXd predicted = scorer.PredictRatings(row, 0).value();
  EXPECT_EQ(predicted, old_predicted);
  for (int32_t j = 0; j < 5; ++j) EXPECT_NEAR(predicted[j], p.Predict(v, j), 1e-12);
  // A user without ratings predicts the fallback mean everywhere.
  EXPECT_EQ(scorer.PredictRatings({}, 3.5).value(), Eigen::VectorXd::Constant(5, 3.5));
}

// With a rating scale, predictions are the same fit clamped to it (here the unclamped fit leaves
// [2, 4] on both sides); ranking scores stay unclamped. An invalid scale is named.
TEST(FactorScorerTest, PredictedRatingsAreClampedToTheScale) {
  const mf::FactorMatrix v = SmallModel();
  const std::vector<int32_t> items = {0, 2, 4};
  const std::vector<float> ratings = {5, 1, 4};
  const data::RatingRow row{items, ratings, {}};
  const Eigen::VectorXd free =
      FactorScorer(v, kLambda, kRankingKappa).PredictRatings(row, 0).value();
  const RatingScale scale{.min = 2, .max = 4};
  ASSERT_GT(free.maxCoeff(), scale.max);
  ASSERT_LT(free.minCoeff(), scale.min);
  const FactorScorer clamped(v, kLambda, kRankingKappa, scale);
  const Eigen::VectorXd predicted = clamped.PredictRatings(row, 0).value();
  for (int32_t j = 0; j < 5; ++j) EXPECT_EQ(predicted[j], std::clamp(free[j], 2.0, 4.0)) << j;
  EXPECT_EQ(clamped.Scores(row).value(),
            FactorScorer(v, kLambda, kRankingKappa).Scores(row).value());
  EXPECT_TRUE(RatingScale{}.Validate().ok());  // unset: nothing clamped
  EXPECT_EQ(RatingScale{}.Clamp(free), free);
  EXPECT_FALSE((RatingScale{.min = 5, .max = 1}.Validate().ok()));
  EXPECT_FALSE(
      (RatingScale{.min = 1, .max = std::numeric_limits<double>::infinity()}.Validate().ok()));
}

TEST(FactorScorerTest, RejectsItemsOutsideTheModelAndNonFiniteRatings) {
  const FactorScorer scorer(SmallModel(), kLambda, kRankingKappa);
  const std::vector<int32_t> outside = {5};
  const std::vector<int32_t> inside = {0};
  const std::vector<float> four = {4};
  const std::vector<float> nan = {std::numeric_limits<float>::quiet_NaN()};
  for (const data::RatingRow& row :
       {data::RatingRow{outside, four, {}}, data::RatingRow{inside, nan, {}}}) {
    EXPECT_EQ(scorer.Scores(row).status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(scorer.PredictRatings(row, 0).status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace fedmf::algorithms
