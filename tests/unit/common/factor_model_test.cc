#include "common/mf/factor_model.h"

#include <vector>

#include "gtest/gtest.h"

namespace fedmf::mf {
namespace {

FactorModel TwoByTwo() {
  FactorModel model;
  model.user_factors.resize(2, 2);
  model.user_factors << 1, 2,  //
      0, -1;
  model.item_factors.resize(2, 2);
  model.item_factors << 3, 1,  //
      0.5, 0.5;
  return model;
}

TEST(FactorModelTest, PredictIsDotProductWithoutBiases) {
  const FactorModel model = TwoByTwo();
  EXPECT_DOUBLE_EQ(model.Predict(0, 0), 5.0);   // 1*3 + 2*1
  EXPECT_DOUBLE_EQ(model.Predict(0, 1), 1.5);   // 1*0.5 + 2*0.5
  EXPECT_DOUBLE_EQ(model.Predict(1, 0), -1.0);  // 0*3 - 1*1
}

TEST(FactorModelTest, PredictAddsMeanAndBiases) {
  FactorModel model = TwoByTwo();
  model.global_mean = 3.5;
  model.user_bias = Eigen::Vector2d(0.25, -0.5);
  model.item_bias = Eigen::Vector2d(-1, 0.125);
  EXPECT_DOUBLE_EQ(model.Predict(0, 1), 3.5 + 0.25 + 0.125 + 1.5);
  EXPECT_DOUBLE_EQ(model.Predict(1, 0), 3.5 - 0.5 - 1 - 1.0);
}

TEST(FactorModelTest, ScoreUserMatchesPredictForEveryItem) {
  FactorModel model = TwoByTwo();
  model.global_mean = 1;
  model.user_bias = Eigen::Vector2d(2, 3);
  model.item_bias = Eigen::Vector2d(4, 5);
  std::vector<double> scores(2);
  model.ScoreUser(1, absl::MakeSpan(scores));
  EXPECT_DOUBLE_EQ(scores[0], 1 + 3 + 4 - 1.0);
  EXPECT_DOUBLE_EQ(scores[1], 1 + 3 + 5 - 0.5);
}

TEST(FactorModelTest, RandomFactorsAreSeededAndBounded) {
  const FactorMatrix a = RandomFactors(50, 4, 0.1, 7);
  const FactorMatrix b = RandomFactors(50, 4, 0.1, 7);
  const FactorMatrix c = RandomFactors(50, 4, 0.1, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_LE(a.cwiseAbs().maxCoeff(), 0.1);
  EXPECT_GT(a.cwiseAbs().maxCoeff(), 0.05);  // 200 draws: all below 0.05 has probability 2^-200
}

}  // namespace
}  // namespace fedmf::mf
