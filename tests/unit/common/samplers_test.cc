#include "common/dp/samplers.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
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

// A generator that replays fixed words (cyclically), so exact samplers can be checked bit by bit.
class ScriptedBits {
 public:
  using result_type = uint64_t;
  explicit ScriptedBits(std::vector<uint64_t> words) : words_(std::move(words)) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<uint64_t>::max(); }
  result_type operator()() { return words_[used_++ % words_.size()]; }
  size_t used() const { return used_; }

 private:
  std::vector<uint64_t> words_;
  size_t used_ = 0;
};

TEST(SamplersTest, UniformUnitUsesTheTop53Bits) {
  ScriptedBits bits({uint64_t{1} << 11, ~uint64_t{0}, 0});
  EXPECT_EQ(UniformUnit(bits), 0x1p-53);
  EXPECT_EQ(UniformUnit(bits), 1 - 0x1p-53);
  ScriptedBits zero({0, ~uint64_t{0}});
  EXPECT_EQ(UniformPositiveUnit(zero), 0x1p-53);
  EXPECT_EQ(UniformPositiveUnit(zero), 1.0);
}

// 0.75 = 0.11 in binary: the first word of p is 0xC000...0 and it is also its last.
TEST(SamplersTest, BernoulliComparesBitsWithTheExpansionOfP) {
  ScriptedBits below({0xBFFFFFFFFFFFFFFFULL});
  EXPECT_TRUE(Bernoulli(below, 0.75));
  ScriptedBits equal({0xC000000000000000ULL});
  EXPECT_FALSE(Bernoulli(equal, 0.75));  // U = p on every bit of p means U >= p
  ScriptedBits above({0xC000000000000001ULL});
  EXPECT_FALSE(Bernoulli(above, 0.75));
  // 1/3 as a double is 0x3FD5555555555555: bits 0.0101...01 (53 significant bits from bit 2),
  // so its first word is 0x15555555555555 << 10 = 0x5555555555555400.
  ScriptedBits third_below({0x55555555555553FFULL});
  EXPECT_TRUE(Bernoulli(third_below, 1.0 / 3));
  ScriptedBits third_equal({0x5555555555555400ULL});
  EXPECT_FALSE(Bernoulli(third_equal, 1.0 / 3));
  EXPECT_EQ(third_equal.used(), 1u);
}

// p = 2^-70 has its only 1 at bit 70, i.e. bit 6 of the second word (0x0400...0).
TEST(SamplersTest, BernoulliOfATinyPReadsASecondWordOnlyAfterAZeroWord) {
  ScriptedBits first_nonzero({1});
  EXPECT_FALSE(Bernoulli(first_nonzero, std::ldexp(1.0, -70)));
  EXPECT_EQ(first_nonzero.used(), 1u);
  ScriptedBits hit({0, 0x03FFFFFFFFFFFFFFULL});
  EXPECT_TRUE(Bernoulli(hit, std::ldexp(1.0, -70)));
  ScriptedBits miss({0, 0x0400000000000000ULL});
  EXPECT_FALSE(Bernoulli(miss, std::ldexp(1.0, -70)));
  EXPECT_EQ(miss.used(), 2u);
}

TEST(SamplersTest, BernoulliEdgeProbabilities) {
  Rng rng(1);
  EXPECT_FALSE(Bernoulli(rng, 0.0));
  EXPECT_FALSE(Bernoulli(rng, -0.5));
  EXPECT_FALSE(Bernoulli(rng, std::nan("")));
  EXPECT_TRUE(Bernoulli(rng, 1.0));
  EXPECT_TRUE(Bernoulli(rng, 2.0));
}

// Lanes are the bits of each word. p = 1/2 = 0.1: a lane succeeds iff its first bit is 0.
TEST(SamplersTest, BinomialIsBitSlicedOverLanes) {
  ScriptedBits half({0x00000000FFFFFFFFULL, ~uint64_t{0}});
  EXPECT_EQ(Binomial(half, 64, 0.5), 32u);  // 32 lanes start with 0; the rest tie, then exceed
  ScriptedBits three({0b101, ~uint64_t{0}});
  EXPECT_EQ(Binomial(three, 3, 0.5), 1u);  // only lane 1 has a 0 first bit
  Rng rng(2);
  EXPECT_EQ(Binomial(rng, 0, 0.5), 0u);
  EXPECT_EQ(Binomial(rng, 10, 0.0), 0u);
  EXPECT_EQ(Binomial(rng, 10, 1.0), 10u);
}

TEST(SamplersTest, BernoulliFrequenciesMatchP) {
  Rng rng(3);
  constexpr int kDraws = 200000;
  for (double p : {0.1, 1.0 / 3, 0.75, 1e-3}) {
    int hits = 0;
    for (int i = 0; i < kDraws; ++i) hits += Bernoulli(rng, p) ? 1 : 0;
    EXPECT_NEAR(hits / double{kDraws}, p, kSigmas * FrequencySe(p, kDraws)) << "p=" << p;
  }
}

// pmf of Binomial(10, 0.3) at every k, each frequency within 5 standard errors.
TEST(SamplersTest, BinomialMatchesItsPmf) {
  Rng rng(4);
  constexpr int kDraws = 100000;
  constexpr int kTrials = 10;
  constexpr double kP = 0.3;
  std::vector<int> counts(kTrials + 1, 0);
  for (int i = 0; i < kDraws; ++i) ++counts[Binomial(rng, kTrials, kP)];
  for (int k = 0; k <= kTrials; ++k) {
    const double pmf = std::tgamma(kTrials + 1) /
                       (std::tgamma(k + 1) * std::tgamma(kTrials - k + 1)) * std::pow(kP, k) *
                       std::pow(1 - kP, kTrials - k);
    EXPECT_NEAR(counts[k] / double{kDraws}, pmf, kSigmas * FrequencySe(pmf, kDraws) + 1e-12)
        << "k=" << k;
  }
}

// Several 64-lane blocks and a partial one: mean q p, variance q p (1 - p).
TEST(SamplersTest, BinomialMomentsForManyTrials) {
  Rng rng(5);
  for (auto [trials, p] : {std::pair<uint64_t, double>{200, 1.0 / 3}, {1000, 0.001}, {65, 0.6}}) {
    std::vector<double> xs(40000);
    for (double& x : xs) x = static_cast<double>(Binomial(rng, trials, p));
    const Moments m = ComputeMoments(xs);
    const double q = static_cast<double>(trials);
    EXPECT_NEAR(m.mean, q * p, kSigmas * m.mean_se) << trials;
    EXPECT_NEAR(m.variance, q * p * (1 - p), kSigmas * m.variance_se) << trials;
  }
}

TEST(SamplersTest, UniformIntIsUniform) {
  Rng rng(6);
  EXPECT_EQ(UniformInt(rng, 1), 0u);
  constexpr int kDraws = 90000;
  std::vector<int> counts(3, 0);
  for (int i = 0; i < kDraws; ++i) ++counts[UniformInt(rng, 3)];
  for (int c : counts)
    EXPECT_NEAR(c / double{kDraws}, 1.0 / 3, kSigmas * FrequencySe(1.0 / 3, kDraws));
}

// N(0,1): mean 0, variance 1, E X^4 = 3 (Var X^4 = 105 - 9 = 96).
TEST(SamplersTest, StandardNormalMoments) {
  Rng rng(7);
  constexpr int kDraws = 200000;
  std::vector<double> xs(kDraws), fourth(kDraws);
  for (int i = 0; i < kDraws; i += 2) {
    const auto [a, b] = StandardNormalPair(rng);
    xs[i] = a;
    xs[i + 1] = b;
  }
  for (int i = 0; i < kDraws; ++i) fourth[i] = std::pow(xs[i], 4);
  const Moments m = ComputeMoments(xs);
  EXPECT_NEAR(m.mean, 0, kSigmas / std::sqrt(double{kDraws}));
  EXPECT_NEAR(m.variance, 1, kSigmas * std::sqrt(2.0 / kDraws));
  EXPECT_NEAR(ComputeMoments(fourth).mean, 3, kSigmas * std::sqrt(96.0 / kDraws));
}

// Exp(1): mean 1, variance 1, P(X > 5) = e^-5.
TEST(SamplersTest, ExponentialMomentsAndTail) {
  Rng rng(8);
  constexpr int kDraws = 200000;
  std::vector<double> xs(kDraws);
  int tail = 0;
  for (double& x : xs) {
    x = Exponential(rng);
    tail += x > 5 ? 1 : 0;
  }
  const Moments m = ComputeMoments(xs);
  EXPECT_NEAR(m.mean, 1, kSigmas / std::sqrt(double{kDraws}));
  EXPECT_NEAR(m.variance, 1, kSigmas * m.variance_se);
  EXPECT_NEAR(tail / double{kDraws}, std::exp(-5.0), kSigmas * FrequencySe(std::exp(-5.0), kDraws));
}

// Two zero words and 0x20 give 64 + 64 + 5 leading zero flips; a zero uniform adds nothing.
TEST(SamplersTest, ExponentialTailIsNotTruncated) {
  ScriptedBits bits({0, 0, 0x20, 0});
  EXPECT_DOUBLE_EQ(Exponential(bits), 133 * std::numbers::ln2);
}

// Laplace(b): mean 0, variance 2 b^2, E|X| = b (Var|X| = b^2).
TEST(SamplersTest, LaplaceMoments) {
  Rng rng(9);
  constexpr int kDraws = 200000;
  constexpr double kB = 1.7;
  std::vector<double> xs(kDraws), abs_xs(kDraws);
  for (int i = 0; i < kDraws; ++i) {
    xs[i] = Laplace(rng, kB);
    abs_xs[i] = std::abs(xs[i]);
  }
  const Moments m = ComputeMoments(xs);
  EXPECT_NEAR(m.mean, 0, kSigmas * m.mean_se);
  EXPECT_NEAR(m.variance, 2 * kB * kB, kSigmas * m.variance_se);
  EXPECT_NEAR(ComputeMoments(abs_xs).mean, kB, kSigmas * kB / std::sqrt(double{kDraws}));
}

// Gamma(a, 1): mean a, variance a, for a below, at and above 1.
TEST(SamplersTest, GammaMoments) {
  Rng rng(10);
  for (double shape : {0.1, 1.0, 3.5}) {
    std::vector<double> xs(100000);
    for (double& x : xs) x = Gamma(rng, shape);
    const Moments m = ComputeMoments(xs);
    EXPECT_NEAR(m.mean, shape, kSigmas * std::sqrt(shape / xs.size())) << shape;
    EXPECT_NEAR(m.variance, shape, kSigmas * m.variance_se) << shape;
  }
}

}  // namespace
}  // namespace fedmf::dp
