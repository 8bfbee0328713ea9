#include "common/dp/laplace.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "common/dp/rng.h"
#include "gtest/gtest.h"
#include "tests/unit/common/dp_test_stats.h"

namespace fedmf::dp {
namespace {

using testing::ComputeMoments;
using testing::kSigmas;
using testing::Moments;

constexpr int kDraws = 100000;

// Laplace(b): mean 0, variance 2 b^2, E|X| = b (Var |X| = b^2), E X^4 = 24 b^4
// (Var X^4 = 8! b^8 - (24 b^4)^2 = 39744 b^8). Each within 5 standard errors.
void ExpectLaplaceMoments(const std::vector<double>& xs, double b) {
  std::vector<double> abs_xs, fourth;
  for (double x : xs) {
    abs_xs.push_back(std::abs(x));
    fourth.push_back(std::pow(x, 4));
  }
  const double n = static_cast<double>(xs.size());
  const Moments m = ComputeMoments(xs);
  EXPECT_NEAR(m.mean, 0, kSigmas * m.mean_se);
  EXPECT_NEAR(m.variance, 2 * b * b, kSigmas * m.variance_se);
  EXPECT_NEAR(ComputeMoments(abs_xs).mean, b, kSigmas * b / std::sqrt(n));
  EXPECT_NEAR(ComputeMoments(fourth).mean, 24 * std::pow(b, 4),
              kSigmas * std::sqrt(39744 / n) * std::pow(b, 4));
}

TEST(LaplaceTest, LaplaceScaleIsSensitivityOverEpsilon) {
  const LaplaceParams params{2, 0.5};
  EXPECT_EQ(params.scale(), 4);
}

TEST(LaplaceTest, MechanismAddsLaplaceNoise) {
  Rng rng(1);
  const Eigen::Vector2d x(1, -2);
  std::vector<double> noise;
  for (int i = 0; i < kDraws / 2; ++i) {
    const Eigen::VectorXd y = *LaplaceMechanism(x, {2, 0.5}, rng);
    noise.push_back(y[0] - x[0]);
    noise.push_back(y[1] - x[1]);
  }
  ExpectLaplaceMoments(noise, 4);
}

// The sum of n_min = 5 shares b (G1 - G2), G ~ Gamma(1/5), is Laplace(b).
TEST(LaplaceTest, GammaDifferenceSharesSumToLaplace) {
  Rng rng(2);
  std::vector<double> sums(kDraws, 0);
  for (double& s : sums) {
    for (int i = 0; i < 5; ++i) s += (*GammaDifferenceLaplaceShare(1, 1.5, 5, rng))[0];
  }
  ExpectLaplaceMoments(sums, 1.5);
}

// With 8 >= n_min = 5 shares the sum is b (Gamma(8/5) - Gamma(8/5)): variance 2 b^2 * 8/5, i.e.
// Laplace(b) plus independent noise.
TEST(LaplaceTest, GammaDifferenceWithExtraSharesOnlyAddsNoise) {
  Rng rng(3);
  std::vector<double> sums(kDraws, 0);
  for (double& s : sums) {
    for (int i = 0; i < 8; ++i) s += (*GammaDifferenceLaplaceShare(1, 1.5, 5, rng))[0];
  }
  const Moments m = ComputeMoments(sums);
  EXPECT_NEAR(m.variance, 2 * 1.5 * 1.5 * 8 / 5, kSigmas * m.variance_se);
}

// The sum of n_min = 5 shares in one draw, b (Gamma(5/5) - Gamma(5/5)), is Laplace(b); one
// client's is its share, draw for draw.
TEST(LaplaceTest, SummedGammaDifferenceSharesAreOneDrawOfTheirSum) {
  Rng rng(6);
  const Eigen::VectorXd sums = *SummedGammaDifferenceLaplaceShares(kDraws, 1.5, 5, 5, rng);
  ExpectLaplaceMoments(std::vector<double>(sums.data(), sums.data() + sums.size()), 1.5);
  Rng one(7), share(7);
  EXPECT_EQ(*SummedGammaDifferenceLaplaceShares(3, 1.5, 5, 1, one),
            *GammaDifferenceLaplaceShare(3, 1.5, 5, share));
}

// 7 shares b sqrt(2 h) c_i, c_i ~ N(0, 1/7), with one h ~ Exp(1) per coordinate: Laplace(b).
// (The HDPMF statement b sqrt(2) h c would give variance 4 b^2 = 16, far outside these bounds.)
TEST(LaplaceTest, ScaleMixtureSharesSumToLaplace) {
  Rng rng(4);
  std::vector<double> sums(kDraws, 0);
  for (double& s : sums) {
    const Eigen::VectorXd h = *SampleSharedExponential(1, rng);
    for (int i = 0; i < 7; ++i) s += (*ScaleMixtureLaplaceShare(h, 2, 7, rng))[0];
  }
  ExpectLaplaceMoments(sums, 2);
}

TEST(LaplaceTest, RejectsBadArguments) {
  Rng rng(5);
  const Eigen::Vector2d x(0, 0);
  EXPECT_FALSE(LaplaceMechanism(x, {1, 0}, rng).ok());
  EXPECT_FALSE(LaplaceMechanism(x, {0, 1}, rng).ok());
  EXPECT_FALSE(GammaDifferenceLaplaceShare(2, 0, 3, rng).ok());
  EXPECT_FALSE(GammaDifferenceLaplaceShare(2, 1, 0, rng).ok());
  EXPECT_FALSE(SummedGammaDifferenceLaplaceShares(2, 1, 3, 0, rng).ok());
  EXPECT_FALSE(SampleSharedExponential(-1, rng).ok());
  EXPECT_FALSE(ScaleMixtureLaplaceShare(Eigen::Vector2d(1, -0.5), 1, 3, rng).ok());
  EXPECT_FALSE(ScaleMixtureLaplaceShare(Eigen::Vector2d(1, 1), 1, 0, rng).ok());
  EXPECT_TRUE(ScaleMixtureLaplaceShare(Eigen::VectorXd(0), 1, 3, rng).ok());
}

}  // namespace
}  // namespace fedmf::dp
