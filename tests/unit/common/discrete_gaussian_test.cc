#include "common/dp/discrete_gaussian.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "common/dp/rng.h"
#include "gtest/gtest.h"
#include "tests/unit/common/dp_test_stats.h"

namespace fedmf::dp {
namespace {

using testing::ComputeMoments;
using testing::FrequencySe;
using testing::kSigmas;
using testing::Moments;

TEST(RationalUpperBoundTest, RoundsUpOnAPowerOfTwoGrid) {
  absl::StatusOr<Rational> half = RationalUpperBound(0.5);
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(half->num, uint64_t{1} << 31);
  EXPECT_EQ(half->den, uint64_t{1} << 32);
  // 2^32 / 3 = 1431655765.33..., rounded up.
  absl::StatusOr<Rational> third = RationalUpperBound(1.0 / 3);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->num, 1431655766u);
  EXPECT_EQ(third->den, uint64_t{1} << 32);
  // (2^40 + 1/2) * 2^8 exceeds 2^48, so k = 7: num = 2^47 + 64.
  absl::StatusOr<Rational> big = RationalUpperBound(std::ldexp(1.0, 40) + 0.5);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->num, (uint64_t{1} << 47) + 64);
  EXPECT_EQ(big->den, 128u);
}

TEST(RationalUpperBoundTest, RejectsValuesOutsideTheRange) {
  for (double bad :
       {0.0, -1.0, std::nan(""), std::ldexp(1.0, 49), std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(RationalUpperBound(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(DiscreteGaussianTest, RejectsBadArguments) {
  Rng rng(1);
  EXPECT_FALSE(BernoulliExpMinus(rng, 1, 0).ok());
  EXPECT_FALSE(DiscreteLaplace(rng, 0).ok());
  EXPECT_FALSE(DiscreteGaussianSampler::Create({0, 1}).ok());
  EXPECT_FALSE(DiscreteGaussianSampler::Create({1, 0}).ok());
  EXPECT_FALSE(DiscreteGaussianSampler::Create({(uint64_t{1} << 48) + 1, 1}).ok());
  EXPECT_FALSE(DiscreteGaussianSampler::Create({1, (uint64_t{1} << 32) + 1}).ok());
}

// Frequency of Bernoulli(exp(-num/den)) within 5 standard errors of exp(-num/den).
TEST(DiscreteGaussianTest, BernoulliExpMinusFrequencies) {
  Rng rng(2);
  constexpr int kDraws = 100000;
  for (auto [num, den] : std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {1, 1}, {7, 3}, {5, 1}}) {
    int hits = 0;
    for (int i = 0; i < kDraws; ++i) {
      absl::StatusOr<bool> b = BernoulliExpMinus(rng, num, den);
      ASSERT_TRUE(b.ok());
      hits += *b ? 1 : 0;
    }
    const double p = std::exp(-static_cast<double>(num) / den);
    EXPECT_NEAR(hits / double{kDraws}, p, kSigmas * FrequencySe(p, kDraws) + 1e-12)
        << num << "/" << den;
  }
}

// P(y) = (1 - e^{-1/t}) / (1 + e^{-1/t}) e^{-|y|/t}.
TEST(DiscreteGaussianTest, DiscreteLaplaceMatchesItsPmf) {
  Rng rng(3);
  constexpr int kDraws = 100000;
  constexpr double kT = 3;
  std::map<int64_t, int> counts;
  for (int i = 0; i < kDraws; ++i) {
    absl::StatusOr<int64_t> y = DiscreteLaplace(rng, 3);
    ASSERT_TRUE(y.ok());
    ++counts[*y];
  }
  const double r = std::exp(-1 / kT);
  for (int64_t y = -6; y <= 6; ++y) {
    const double pmf = (1 - r) / (1 + r) * std::pow(r, std::abs(static_cast<double>(y)));
    EXPECT_NEAR(counts[y] / double{kDraws}, pmf, kSigmas * FrequencySe(pmf, kDraws)) << y;
  }
}

// The normalized pmf exp(-y^2 / (2 s2)) / Z on |y| <= half_width (the tests use 200 >= 16 sigma:
// the mass left out is below 1e-60).
std::vector<double> DiscreteGaussianPmf(double s2, int64_t half_width) {
  std::vector<double> pmf(2 * half_width + 1);
  double z = 0;
  for (int64_t y = -half_width; y <= half_width; ++y) {
    pmf[y + half_width] = std::exp(-static_cast<double>(y * y) / (2 * s2));
    z += pmf[y + half_width];
  }
  for (double& p : pmf) p /= z;
  return pmf;
}

TEST(DiscreteGaussianTest, SmallVarianceMatchesThePmf) {
  Rng rng(4);
  absl::StatusOr<DiscreteGaussianSampler> sampler = DiscreteGaussianSampler::Create({1, 2});
  ASSERT_TRUE(sampler.ok());
  constexpr int kDraws = 100000;
  std::map<int64_t, int> counts;
  for (int i = 0; i < kDraws; ++i) {
    absl::StatusOr<int64_t> y = sampler->Sample(rng);
    ASSERT_TRUE(y.ok());
    ++counts[*y];
  }
  const std::vector<double> pmf = DiscreteGaussianPmf(0.5, 200);
  for (int64_t y = -4; y <= 4; ++y) {
    const double p = pmf[y + 200];
    EXPECT_NEAR(counts[y] / double{kDraws}, p, kSigmas * FrequencySe(p, kDraws) + 1e-12) << y;
  }
}

// sigma^2 = 1000/7 (t = 12, non-integer): mean 0 and the variance of the exact pmf.
TEST(DiscreteGaussianTest, RationalVarianceMoments) {
  Rng rng(5);
  absl::StatusOr<DiscreteGaussianSampler> sampler = DiscreteGaussianSampler::Create({1000, 7});
  ASSERT_TRUE(sampler.ok());
  std::vector<double> xs(100000);
  for (double& x : xs) {
    absl::StatusOr<int64_t> y = sampler->Sample(rng);
    ASSERT_TRUE(y.ok());
    x = static_cast<double>(*y);
  }
  const std::vector<double> pmf = DiscreteGaussianPmf(1000.0 / 7, 200);
  double variance = 0;
  for (int64_t y = -200; y <= 200; ++y) variance += pmf[y + 200] * static_cast<double>(y * y);
  EXPECT_NEAR(variance, 1000.0 / 7, 1e-8);  // sigma >= 1: the discrete variance equals sigma^2
  const Moments m = ComputeMoments(xs);
  EXPECT_NEAR(m.mean, 0, kSigmas * m.mean_se);
  EXPECT_NEAR(m.variance, variance, kSigmas * m.variance_se);
}

TEST(DiscreteGaussianTest, LargestVarianceStaysExactAndSymmetric) {
  Rng rng(6);
  // sigma^2 = 2^48 / 2^0: t = 2^24 + 1, every intermediate at its 128-bit limit.
  absl::StatusOr<DiscreteGaussianSampler> sampler =
      DiscreteGaussianSampler::Create({uint64_t{1} << 48, 1});
  ASSERT_TRUE(sampler.ok());
  std::vector<double> xs(20000);
  for (double& x : xs) {
    absl::StatusOr<int64_t> y = sampler->Sample(rng);
    ASSERT_TRUE(y.ok());
    x = static_cast<double>(*y) / std::ldexp(1.0, 24);  // in units of sigma
  }
  const Moments m = ComputeMoments(xs);
  EXPECT_NEAR(m.mean, 0, kSigmas * m.mean_se);
  EXPECT_NEAR(m.variance, 1, kSigmas * m.variance_se);
}

TEST(DiscreteGaussianTest, SameSeedSameSamples) {
  absl::StatusOr<DiscreteGaussianSampler> sampler = DiscreteGaussianSampler::Create({50, 3});
  ASSERT_TRUE(sampler.ok());
  Rng a(9), b(9);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(*sampler->Sample(a), *sampler->Sample(b));
}

}  // namespace
}  // namespace fedmf::dp
