#include "common/mf/adam.h"

#include <cmath>

#include "gtest/gtest.h"

namespace fedmf::mf {
namespace {

TEST(AdamTest, TwoStepsWorkedByHand) {
  // lr 0.05, b1 0.9, b2 0.8, eps 1e-8; x0 = 1, gradients 2 then -1.
  // Step 1: m = 0.1 * 2 = 0.2, v = 0.2 * 4 = 0.8; m_hat = 0.2 / 0.1 = 2, v_hat = 0.8 / 0.2 = 4;
  //         x1 = 1 - 0.05 * 2 / (2 + 1e-8).
  // Step 2: m = 0.9 * 0.2 + 0.1 * (-1) = 0.08, v = 0.8 * 0.8 + 0.2 * 1 = 0.84;
  //         m_hat = 0.08 / 0.19, v_hat = 0.84 / 0.36; x2 = x1 - 0.05 * m_hat / (sqrt(v_hat) + eps).
  // Second entry: x0 = -3, gradients 0 then 0.5.
  // Step 1: m = v = 0, x unchanged. Step 2: m = 0.05, v = 0.05; m_hat = 0.05 / 0.19,
  //         v_hat = 0.05 / 0.36.
  absl::StatusOr<Adam> adam = Adam::Create({0.05, 0.9, 0.8, 1e-8}, 2, 1);
  ASSERT_TRUE(adam.ok()) << adam.status();
  Eigen::MatrixXd x(2, 1);
  x << 1, -3;
  Eigen::MatrixXd g(2, 1);
  g << 2, 0;
  ASSERT_TRUE(adam->Step(g, x).ok());
  const double x1 = 1 - 0.05 * 2 / (2 + 1e-8);
  EXPECT_NEAR(x(0, 0), x1, 1e-15);
  EXPECT_EQ(x(1, 0), -3);
  EXPECT_NEAR(adam->first_moment()(0, 0), 0.2, 1e-15);
  EXPECT_NEAR(adam->second_moment()(0, 0), 0.8, 1e-15);
  g << -1, 0.5;
  ASSERT_TRUE(adam->Step(g, x).ok());
  EXPECT_EQ(adam->steps(), 2);
  EXPECT_NEAR(adam->first_moment()(0, 0), 0.08, 1e-15);
  EXPECT_NEAR(adam->second_moment()(0, 0), 0.84, 1e-15);
  EXPECT_NEAR(x(0, 0), x1 - 0.05 * (0.08 / 0.19) / (std::sqrt(0.84 / 0.36) + 1e-8), 1e-14);
  EXPECT_NEAR(x(1, 0), -3 - 0.05 * (0.05 / 0.19) / (std::sqrt(0.05 / 0.36) + 1e-8), 1e-14);
}

TEST(AdamTest, RestoreContinuesExactlyWhereTheRunStopped) {
  const AdamConfig config{0.05, 0.9, 0.8, 1e-8};
  Eigen::MatrixXd g1(1, 2), g2(1, 2);
  g1 << 0.3, -2;
  g2 << 1.5, 0.25;
  Eigen::MatrixXd straight = Eigen::MatrixXd::Constant(1, 2, 0.5);
  Adam uninterrupted = Adam::Create(config, 1, 2).value();
  ASSERT_TRUE(uninterrupted.Step(g1, straight).ok());
  Eigen::MatrixXd resumed = straight;  // the parameters a checkpoint after step 1 holds
  Adam restored = Adam::Restore(config, uninterrupted.first_moment(), uninterrupted.second_moment(),
                                uninterrupted.steps())
                      .value();
  ASSERT_TRUE(uninterrupted.Step(g2, straight).ok());
  ASSERT_TRUE(restored.Step(g2, resumed).ok());
  EXPECT_EQ(resumed, straight);
  EXPECT_EQ(restored.steps(), 2);
}

TEST(AdamTest, RejectsBadConfigShapesAndGradients) {
  EXPECT_FALSE(Adam::Create({0, 0.9, 0.8, 1e-8}, 1, 1).ok());
  EXPECT_FALSE(Adam::Create({0.05, 1.0, 0.8, 1e-8}, 1, 1).ok());
  EXPECT_FALSE(Adam::Create({0.05, 0.9, -0.1, 1e-8}, 1, 1).ok());
  EXPECT_FALSE(Adam::Create({0.05, 0.9, 0.8, 0}, 1, 1).ok());
  EXPECT_FALSE(Adam::Restore({}, Eigen::MatrixXd::Zero(1, 2), Eigen::MatrixXd::Zero(2, 1), 0).ok());
  EXPECT_FALSE(
      Adam::Restore({}, Eigen::MatrixXd::Zero(1, 1), -Eigen::MatrixXd::Ones(1, 1), 3).ok());
  EXPECT_FALSE(
      Adam::Restore({}, Eigen::MatrixXd::Zero(1, 1), Eigen::MatrixXd::Zero(1, 1), -1).ok());
  Adam adam = Adam::Create({}, 2, 2).value();
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(2, 2);
  EXPECT_FALSE(adam.Step(Eigen::MatrixXd::Zero(2, 1), x).ok());
  Eigen::MatrixXd nan_gradient = Eigen::MatrixXd::Zero(2, 2);
  nan_gradient(1, 0) = std::nan("");
  EXPECT_FALSE(adam.Step(nan_gradient, x).ok());
  EXPECT_EQ(adam.steps(), 0);
  EXPECT_EQ(x, Eigen::MatrixXd::Zero(2, 2));
}

}  // namespace
}  // namespace fedmf::mf
