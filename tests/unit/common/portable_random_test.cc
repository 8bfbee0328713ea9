#include "common/data/portable_random.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"

namespace fedmf::data {
namespace {

// The C++ standard fixes std::mt19937_64's 10000th output for the default seed 5489.
TEST(PortableRandomTest, EngineIsTheStandardMt19937_64) {
  PortableRandom rng(5489);
  uint64_t x = 0;
  for (int i = 0; i < 10000; ++i) x = rng.Next();
  EXPECT_EQ(x, 9981545732273789042ull);
}

TEST(PortableRandomTest, UniformUsesTheTop53Bits) {
  PortableRandom rng(5489);
  // First output of mt19937_64 with seed 5489 is 14514284786278117030.
  EXPECT_EQ(rng.Uniform(), static_cast<double>(14514284786278117030ull >> 11) / 9007199254740992.0);
}

TEST(PortableRandomTest, UniformIntStaysInRangeAndIsRoughlyUniform) {
  PortableRandom rng(7);
  EXPECT_EQ(rng.UniformInt(1), 0u);
  constexpr int kBuckets = 10;
  constexpr int kDraws = 100000;
  std::vector<int> counts(kBuckets);
  for (int i = 0; i < kDraws; ++i) {
    const uint64_t v = rng.UniformInt(kBuckets);
    ASSERT_LT(v, static_cast<uint64_t>(kBuckets));
    ++counts[v];
  }
  // Chi-square with 9 degrees of freedom: P(X > 33.7) < 1e-4.
  double chi2 = 0;
  for (int c : counts) chi2 += (c - kDraws / 10.0) * (c - kDraws / 10.0) / (kDraws / 10.0);
  EXPECT_LT(chi2, 33.7);
}

TEST(PortableRandomTest, NormalMoments) {
  PortableRandom rng(11);
  constexpr int kDraws = 200000;
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double z = rng.Normal();
    sum += z;
    sum_sq += z * z;
  }
  // CLT: the mean has sd 1/sqrt(n) = 0.0022 and the mean square sd sqrt(2/n) = 0.0032; 5 sd.
  EXPECT_NEAR(sum / kDraws, 0, 0.0112);
  EXPECT_NEAR(sum_sq / kDraws, 1, 0.016);
}

TEST(PortableRandomTest, ShuffleIsADeterministicPermutation) {
  std::vector<int> a(50), b(50);
  std::iota(a.begin(), a.end(), 0);
  std::iota(b.begin(), b.end(), 0);
  PortableRandom r1(3), r2(3);
  r1.Shuffle(absl::MakeSpan(a));
  r2.Shuffle(absl::MakeSpan(b));
  EXPECT_EQ(a, b);
  std::vector<int> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> expected(50);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(sorted, expected);
  EXPECT_NE(a, expected);  // 1/50! chance of a false failure
}

TEST(PortableRandomTest, MathMatchesLibmClosely) {
  for (double x : {1e-300, 1e-9, 0.1, 0.5, 0.7071, 1.0, 1.5, 2.0, 10.0, 12345.678, 1e300}) {
    EXPECT_NEAR(PortableLog(x), std::log(x), 1e-15 * std::max(1.0, std::fabs(std::log(x)))) << x;
  }
  EXPECT_EQ(PortableLog(1.0), 0.0);
  for (double x : {-700.0, -20.0, -1.0, -1e-8, 0.0, 0.3, 1.0, 2.5, 50.0, 700.0}) {
    EXPECT_NEAR(PortableExp(x) / std::exp(x), 1.0, 1e-14) << x;
  }
  EXPECT_EQ(PortableExp(1000), HUGE_VAL);
  EXPECT_EQ(PortableExp(-1000), 0);
  EXPECT_NEAR(PortablePow(1682, -0.9), std::pow(1682, -0.9), 1e-15);
  EXPECT_NEAR(PortablePow(2, 10), 1024, 1e-10);
}

}  // namespace
}  // namespace fedmf::data
