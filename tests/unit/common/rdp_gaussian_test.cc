#include "common/dp/rdp_gaussian.h"

#include <cmath>
#include <numbers>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/common/rdp_curve_util.h"

namespace fedmf::dp {
namespace {

using ::testing::HasSubstr;

using test_util::kInf;

// Published (Google dp_accounting, test_compute_rdp_poisson_sampled_gaussian): q = 0.01,
// sigma = 2.5, 50 steps.
TEST(RdpGaussianTest, SubsampledGaussianPublishedValues) {
  absl::StatusOr<RdpCurve> c = SubsampledGaussianCurve(0.01, 2.5, 50, {1.5, 2.5, 5, 50, 100});
  ASSERT_TRUE(c.ok()) << c.status();
  const std::vector<double> expected = {6.70579741e-4, 1.08548710e-3, 2.18075656e-3, 2.38460375e-2,
                                        1.67416308e2};
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(c->values()[i] / expected[i], 1.0, 1e-6) << "order " << c->orders()[i];
  }
}

// Published (TF Privacy test_compute_rdp_scalar, 5 decimals): q = 0.1, sigma = 2, 10 steps,
// order 5.
TEST(RdpGaussianTest, SubsampledGaussianPublishedScalar) {
  absl::StatusOr<RdpCurve> c = SubsampledGaussianCurve(0.1, 2, 10, {5});
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(c->values()[0], 0.07737, 5e-6);
}

// The exact RDP of the sampled Gaussian at a fractional order, D_alpha(mu || mu0) with
// mu0 = N(0, s^2), mu = (1-q) N(0, s^2) + q N(1, s^2), by Simpson quadrature (independent of
// the series). The series sums |terms|, so it must be an upper bound, and a close one.
double QuadratureRdp(double q, double s, double alpha) {
  const double lo = -30 * s;
  const double hi = 30 * s;
  const int n = 200000;  // even
  const double h = (hi - lo) / n;
  double sum = 0;
  for (int i = 0; i <= n; ++i) {
    const double x = lo + i * h;
    const double density = std::exp(-x * x / (2 * s * s)) / (s * std::sqrt(2 * std::numbers::pi));
    const double ratio = (1 - q) + q * std::exp((2 * x - 1) / (2 * s * s));
    const double f = density * std::pow(ratio, alpha);
    sum += f * (i == 0 || i == n ? 1 : (i % 2 == 1 ? 4 : 2));
  }
  return std::log(sum * h / 3) / (alpha - 1);
}

TEST(RdpGaussianTest, FractionalOrdersUpperBoundTheExactDivergence) {
  for (double alpha : {1.5, 2.5, 7.25}) {
    const double exact = QuadratureRdp(0.01, 2.5, alpha);
    const double ours = *SubsampledGaussianRdp(0.01, 2.5, alpha);
    EXPECT_GE(ours, exact) << alpha;
    EXPECT_LE(ours, 1.05 * exact) << alpha;
  }
}

TEST(RdpGaussianTest, IntegerOrdersAreExact) {
  for (double alpha : {2.0, 3.0, 10.0}) {
    EXPECT_NEAR(*SubsampledGaussianRdp(0.05, 1.5, alpha) / QuadratureRdp(0.05, 1.5, alpha), 1.0,
                1e-8)
        << alpha;
  }
}

TEST(RdpGaussianTest, PlainGaussianAndLimits) {
  EXPECT_EQ(*GaussianRdp(2.0, 3.0), 3.0 / 8);
  EXPECT_EQ(*GaussianRdp(0.0, 3.0), kInf);
  EXPECT_EQ(*SubsampledGaussianRdp(1.0, 2.0, 3.0), 3.0 / 8);
  EXPECT_EQ(*SubsampledGaussianRdp(0.0, 2.0, 3.0), 0.0);
  EXPECT_EQ(*SubsampledGaussianRdp(0.5, 0.0, 3.0), kInf);
  // Amplification: sampling never hurts, and more sampling spends more.
  EXPECT_LT(*SubsampledGaussianRdp(0.1, 2.0, 3.5), *SubsampledGaussianRdp(0.2, 2.0, 3.5));
  EXPECT_LT(*SubsampledGaussianRdp(0.2, 2.0, 3.5), *GaussianRdp(2.0, 3.5));
}

TEST(RdpGaussianTest, RejectsBadArguments) {
  EXPECT_THAT(GaussianRdp(-1, 2).status().message(), HasSubstr("noise multiplier"));
  EXPECT_THAT(GaussianRdp(1, 1).status().message(), HasSubstr("order"));
  EXPECT_FALSE(GaussianRdp(1, kInf).ok());
  EXPECT_THAT(SubsampledGaussianRdp(1.5, 1, 2).status().message(), HasSubstr("sampling rate"));
  EXPECT_FALSE(SubsampledGaussianCurve(0.1, 1, -1, {2}).ok());
}

TEST(RdpGaussianTest, SecAggNoiseIsSplitAmongNMin) {
  const SecAggGaussianParams p{.l2_sensitivity = 2, .noise_stddev = 8, .n_min = 16};
  EXPECT_EQ(*PerClientNoiseStddev(p), 2.0);
  absl::StatusOr<RdpCurve> c = SecAggGaussianCurve(p, {2, 10});
  ASSERT_TRUE(c.ok());
  // z = 8 / 2 = 4: alpha / 32.
  EXPECT_EQ(c->values()[0], 2.0 / 32);
  EXPECT_EQ(c->values()[1], 10.0 / 32);
  EXPECT_FALSE(PerClientNoiseStddev({.l2_sensitivity = 0, .noise_stddev = 1, .n_min = 1}).ok());
  EXPECT_FALSE(PerClientNoiseStddev({.l2_sensitivity = 1, .noise_stddev = -1, .n_min = 1}).ok());
  EXPECT_THAT(SecAggGaussianCurve({.l2_sensitivity = 1, .noise_stddev = 1, .n_min = 0}, {2})
                  .status()
                  .message(),
              HasSubstr("n_min"));
}

// Two rounds: the server can combine S1 = G + A and S1 + S2 = G + (A - A2) + B.
TEST(RdpGaussianTest, TwoRoundReplacementLeaksMoreThanTheFinalSum) {
  // No dropout, v1 = f = 1: two independent unit-variance looks at G, variance 1/2.
  EXPECT_NEAR(*TwoRoundReplacementNoiseStddev(1, 1, 1), std::sqrt(0.5), 1e-15);
  // No second round: just S1.
  EXPECT_EQ(*TwoRoundReplacementNoiseStddev(4, 0, 0), 2.0);
  // Round 2 touches none of A (r = 0): S2 is pure noise, S1 alone matters.
  EXPECT_NEAR(*TwoRoundReplacementNoiseStddev(4, 0, 1), 2.0, 1e-15);
  // v1 = 2, r = 1, f = 0.5: det = 2 * 1.5 - 1 = 2, variance 2 / 1.5 = 4/3, below the final
  // sum's v1 - r + f = 1.5.
  EXPECT_NEAR(*TwoRoundReplacementNoiseStddev(2, 1, 0.5), std::sqrt(4.0 / 3), 1e-15);
  EXPECT_FALSE(TwoRoundReplacementNoiseStddev(1, 2, 1).ok());
  EXPECT_FALSE(TwoRoundReplacementNoiseStddev(1, -1, 1).ok());
  EXPECT_FALSE(TwoRoundReplacementNoiseStddev(1, 1, -1).ok());
}

// alpha = 2 budget 0.5 for one unsampled step: 2 / (2 z^2) = 0.5, so z = sqrt(2).
TEST(RdpGaussianTest, CalibrationForAnRdpBudget) {
  absl::StatusOr<double> z = CalibrateGaussianNoiseMultiplier(PrivacyBudget::Rdp(0.5), 1.0, 1, {2});
  ASSERT_TRUE(z.ok());
  EXPECT_NEAR(*z / std::sqrt(2.0), 1.0, 2e-9);
  // Ten steps need sqrt(10) times the noise.
  z = CalibrateGaussianNoiseMultiplier(PrivacyBudget::Rdp(0.5), 1.0, 10, {2});
  EXPECT_NEAR(*z / std::sqrt(20.0), 1.0, 2e-9);
}

// Published: (1, 1e-6)-DP with the improved conversion needs sigma = 4.530877117.
TEST(RdpGaussianTest, CalibrationForAnApproxDpBudget) {
  std::vector<double> fine;
  for (int i = 1001; i < 100000; ++i) fine.push_back(0.001 * i);
  absl::StatusOr<double> z =
      CalibrateGaussianNoiseMultiplier(PrivacyBudget::ApproxDp(1.0, 1e-6), 1.0, 1, fine);
  ASSERT_TRUE(z.ok());
  EXPECT_NEAR(*z / 4.530877117, 1.0, 1e-6);
  EXPECT_FALSE(CalibrateGaussianNoiseMultiplier(PrivacyBudget::Rdp(0), 1.0, 1, {2}).ok());
}

}  // namespace
}  // namespace fedmf::dp
