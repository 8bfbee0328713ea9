#include "common/dp/gaussian_secagg.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "common/dp/fixed_point.h"
#include "common/dp/rng.h"
#include "common/dp/samplers.h"
#include "gtest/gtest.h"
#include "tests/unit/common/dp_test_stats.h"

namespace fedmf::dp {
namespace {

using testing::ComputeMoments;
using testing::ExpectSameDistribution;
using testing::kSigmas;
using testing::ModularSum;
using testing::Moments;

const auto GaussianParams = testing::SecAggParams<GaussianSecAggParams>;

// No noise, d = 1: R = n_max (gamma L + 2) = 102 and 2^(b-1) > 204 gives b = 9.
// With noise (d = 10, c = 1, sigma = 2, n_min = 4, n_max = 8, gamma = 16, eta = 1e-6):
// R = ceil(8 * 18 + sqrt(2 ln(2e7)) * sqrt(8 * 16^2)) = ceil(144 + 5.79849 * 45.2548) = 407,
// 2^(b-1) > 814 gives b = 11.
TEST(GaussianSecAggTest, RangeAndModulusByHand) {
  absl::StatusOr<GaussianSecAgg> plain = GaussianSecAgg::Create(GaussianParams(1, 1, 0, 1, 1, 100));
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->range(), 102);
  EXPECT_EQ(plain->modulus_bits(), 9);

  GaussianSecAggParams p = GaussianParams(10, 1, 2, 4, 8, 16);
  p.wrap_probability = 1e-6;
  absl::StatusOr<GaussianSecAgg> noisy = GaussianSecAgg::Create(p);
  ASSERT_TRUE(noisy.ok());
  EXPECT_EQ(noisy->range(), 407);
  EXPECT_EQ(noisy->modulus_bits(), 11);
  EXPECT_EQ(noisy->per_client_noise_std(), 1);
  EXPECT_DOUBLE_EQ(noisy->l2_sensitivity(), 1 + std::sqrt(10.0) / 16);
}

TEST(GaussianSecAggTest, RejectsBadParameters) {
  EXPECT_FALSE(GaussianSecAgg::Create(GaussianParams(0, 1, 1, 1, 1, 1)).ok());
  EXPECT_FALSE(GaussianSecAgg::Create(GaussianParams(1, 0, 1, 1, 1, 1)).ok());
  EXPECT_FALSE(GaussianSecAgg::Create(GaussianParams(1, 1, -1, 1, 1, 1)).ok());
  EXPECT_FALSE(GaussianSecAgg::Create(GaussianParams(1, 1, 1, 0, 1, 1)).ok());
  EXPECT_FALSE(GaussianSecAgg::Create(GaussianParams(1, 1, 1, 3, 2, 1)).ok());
  EXPECT_FALSE(GaussianSecAgg::Create(GaussianParams(1, 1, 1, 1, 1, 0)).ok());
  GaussianSecAggParams p = GaussianParams(1, 1, 1, 1, 1, 1);
  p.wrap_probability = 1;
  EXPECT_FALSE(GaussianSecAgg::Create(p).ok());
  EXPECT_EQ(GaussianSecAgg::Create(GaussianParams(1, 1, 1, 1, 1, 1e30)).status().code(),
            absl::StatusCode::kOutOfRange);  // would need more than 62 bits
}

TEST(GaussianSecAggTest, RejectsBadInputsAndSums) {
  const GaussianSecAgg mech = *GaussianSecAgg::Create(GaussianParams(3, 1, 1, 2, 4, 10));
  Rng rng(1);
  EXPECT_FALSE(mech.Encode(Eigen::Vector2d(0, 0), rng).ok());
  EXPECT_FALSE(mech.Encode(Eigen::Vector3d(0, std::nan(""), 0), rng).ok());
  const std::vector<uint64_t> zero(3, 0);
  EXPECT_FALSE(mech.Decode(std::vector<uint64_t>(2, 0), 2).ok());
  EXPECT_FALSE(mech.Decode(zero, 1).ok());  // fewer than n_min clients
  EXPECT_FALSE(mech.Decode(zero, 5).ok());  // more than n_max clients
  const std::vector<uint64_t> unreduced = {uint64_t{1} << mech.modulus_bits(), 0, 0};
  EXPECT_EQ(mech.Decode(unreduced, 2).status().code(), absl::StatusCode::kInvalidArgument);
}

// gamma x = 100 exactly and no noise: every encoding is 100. R = 2 * 102 = 204, b = 10 (mod 1024).
// 2 clients decode to 2. 5 clients give 500: no wrap yet, but outside +/-R, so reported. 8 clients
// give 800 = -224 mod 1024: a wrapped sum, reported instead of returned as -2.24.
TEST(GaussianSecAggTest, WrappedOrOutOfRangeSumsAreReportedNotReturned) {
  const GaussianSecAgg mech = *GaussianSecAgg::Create(GaussianParams(1, 1, 0, 1, 2, 100));
  ASSERT_EQ(mech.range(), 204);
  ASSERT_EQ(mech.modulus_bits(), 10);
  Rng rng(2);
  std::vector<std::vector<uint64_t>> encodings;
  for (int i = 0; i < 8; ++i) encodings.push_back(*mech.Encode(Eigen::VectorXd::Ones(1), rng));
  EXPECT_EQ(encodings[0][0], 100u);
  auto first = [&](int n) {
    return ModularSum({encodings.begin(), encodings.begin() + n}, mech.modulus_bits());
  };
  EXPECT_EQ((*mech.Decode(first(2), 2))[0], 2.0);
  EXPECT_EQ(mech.Decode(first(5), 2).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(first(8)[0], 800u);
  EXPECT_EQ(mech.Decode(first(8), 2).status().code(), absl::StatusCode::kOutOfRange);
}

// Property: the rounded, clipped contribution (noise 0, one client) never has L2 norm above
// gamma c + sqrt(d), i.e. l2_sensitivity() in real units, for inputs far outside the ball too.
TEST(GaussianSecAggTest, RoundedContributionNeverExceedsTheSensitivity) {
  Rng rng(3);
  for (int trial = 0; trial < 2000; ++trial) {
    const int64_t d = 1 + static_cast<int64_t>(UniformInt(rng, 20));
    const double c = 0.1 + 10 * UniformUnit(rng), gamma = 0.5 + 100 * UniformUnit(rng);
    const GaussianSecAgg mech = *GaussianSecAgg::Create(GaussianParams(d, c, 0, 1, 1, gamma));
    Eigen::VectorXd x(d);
    const double magnitude = std::pow(10.0, -3 + 6 * UniformUnit(rng));
    for (int64_t j = 0; j < d; ++j) x[j] = magnitude * StandardNormal(rng);
    absl::StatusOr<Eigen::VectorXd> decoded = mech.Decode(*mech.Encode(x, rng), 1);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    ASSERT_LE(decoded->norm(), mech.l2_sensitivity() * (1 + 1e-12)) << trial;
  }
}

// No noise, 5 clients with gamma x = (1.5, -2.25, 0.5): the decoded sum has mean 5x and variance
// 5 f (1 - f) / gamma^2 with f = (0.5, 0.25, 0.5), within 5 standard errors over 20000 rounds.
TEST(GaussianSecAggTest, QuantizedSumIsUnbiasedWithRoundingVariance) {
  const GaussianSecAgg mech = *GaussianSecAgg::Create(GaussianParams(3, 1, 0, 1, 5, 4));
  const Eigen::Vector3d x(0.375, -0.5625, 0.125);
  const Eigen::Vector3d variance = Eigen::Vector3d(0.25, 0.1875, 0.25) * 5 / 16;
  Rng rng(4);
  std::vector<std::vector<double>> decoded(3);
  for (int r = 0; r < 20000; ++r) {
    std::vector<std::vector<uint64_t>> encodings;
    for (int i = 0; i < 5; ++i) encodings.push_back(*mech.Encode(x, rng));
    const Eigen::VectorXd sum = *mech.Decode(ModularSum(encodings, mech.modulus_bits()), 5);
    for (int j = 0; j < 3; ++j) decoded[j].push_back(sum[j]);
  }
  for (int j = 0; j < 3; ++j) {
    const Moments m = ComputeMoments(decoded[j]);
    EXPECT_NEAR(m.mean, 5 * x[j], kSigmas * std::sqrt(variance[j] / 20000)) << j;
    EXPECT_NEAR(m.variance, variance[j], kSigmas * m.variance_se) << j;
  }
}

// sigma = 1, n_min = 4, 6 clients, gamma = 2 (grid noise std 1 per client), gamma x integer so the
// data is not rounded. Var(decoded sum) = n sigma^2 / n_min + n E[g(1-g)] / gamma^2 = 1.5 + 0.25:
// the fractional part g of N(0, 1) is uniform up to exp(-2 pi^2) ~ 3e-9, so E[g(1-g)] = 1/6.
TEST(GaussianSecAggTest, NoisySumVarianceIsSigmaSquaredPlusRoundingTerm) {
  const GaussianSecAgg mech = *GaussianSecAgg::Create(GaussianParams(3, 2, 1, 4, 6, 2));
  const Eigen::Vector3d x(0.5, -1, 0);
  Rng rng(5);
  std::vector<std::vector<double>> decoded(3);
  for (int r = 0; r < 20000; ++r) {
    std::vector<std::vector<uint64_t>> encodings;
    for (int i = 0; i < 6; ++i) encodings.push_back(*mech.Encode(x, rng));
    const Eigen::VectorXd sum = *mech.Decode(ModularSum(encodings, mech.modulus_bits()), 6);
    for (int j = 0; j < 3; ++j) decoded[j].push_back(sum[j]);
  }
  for (int j = 0; j < 3; ++j) {
    const Moments m = ComputeMoments(decoded[j]);
    EXPECT_NEAR(m.mean, 6 * x[j], kSigmas * m.mean_se) << j;
    EXPECT_NEAR(m.variance, 1.75, kSigmas * m.variance_se) << j;
  }
}

// Honest rounds with any survivor count in [n_min, n_max] and inputs on the clip sphere decode.
TEST(GaussianSecAggTest, HonestRoundsNeverReportOverflow) {
  GaussianSecAggParams p = GaussianParams(64, 1, 0.5, 5, 12, 64);
  const GaussianSecAgg mech = *GaussianSecAgg::Create(p);
  Rng rng(6);
  for (int r = 0; r < 200; ++r) {
    const int n = 5 + static_cast<int>(UniformInt(rng, 8));
    std::vector<std::vector<uint64_t>> encodings;
    Eigen::VectorXd truth = Eigen::VectorXd::Zero(64);
    for (int i = 0; i < n; ++i) {
      Eigen::VectorXd x(64);
      for (int j = 0; j < 64; ++j) x[j] = StandardNormal(rng);
      x.normalize();
      truth += x;
      encodings.push_back(*mech.Encode(x, rng));
    }
    absl::StatusOr<Eigen::VectorXd> sum =
        mech.Decode(ModularSum(encodings, mech.modulus_bits()), n);
    ASSERT_TRUE(sum.ok()) << sum.status();
    // Rounding adds < 2n/gamma <= 0.375; the Gaussian part has std sqrt(n/5) * 0.5 <= 0.775 and
    // exceeds 7 std with probability 3e-12 per coordinate.
    EXPECT_LE((*sum - truth).cwiseAbs().maxCoeff(), 2.0 * 12 / 64 + 7 * 0.775);
  }
}

// The simulation shortcut: noiseless uploads plus the sum's noise drawn at once. sigma = 1,
// n_min = 4, 6 clients, gamma = 2, x on the grid: Var = 6/4 + E[g(1-g)] / gamma^2 = 1.5 + 1/24
// (one rounding of the summed noise instead of six, as gaussian_secagg.h says).
TEST(GaussianSecAggTest, SummedNoiseHasTheSummedVariance) {
  const GaussianSecAgg mech = *GaussianSecAgg::Create(GaussianParams(3, 2, 1, 4, 6, 2));
  const Eigen::Vector3d x(0.5, -1, 0);
  Rng rng(7);
  std::vector<std::vector<double>> decoded(3);
  for (int r = 0; r < 20000; ++r) {
    std::vector<std::vector<uint64_t>> encodings;
    for (int i = 0; i < 6; ++i) encodings.push_back(*mech.EncodeWithoutNoise(x, rng));
    std::vector<uint64_t> sum = ModularSum(encodings, mech.modulus_bits());
    ASSERT_TRUE(mech.AddSummedNoise(absl::MakeSpan(sum), 6, rng).ok());
    const Eigen::VectorXd total = *mech.Decode(sum, 6);
    for (int j = 0; j < 3; ++j) decoded[j].push_back(total[j]);
  }
  for (int j = 0; j < 3; ++j) {
    const Moments m = ComputeMoments(decoded[j]);
    EXPECT_NEAR(m.mean, 6 * x[j], kSigmas * m.mean_se) << j;
    EXPECT_NEAR(m.variance, 1.5 + 1.0 / 24, kSigmas * m.variance_se) << j;
  }
}

// Without noise the upload is the rounded data alone: exact where gamma x is an integer (zero
// included, which takes no draw).
TEST(GaussianSecAggTest, EncodeWithoutNoiseRoundsTheDataOnly) {
  const GaussianSecAgg mech = *GaussianSecAgg::Create(GaussianParams(3, 2, 1, 4, 6, 2));
  Rng rng(8);
  const std::vector<uint64_t> e = *mech.EncodeWithoutNoise(Eigen::Vector3d(0.5, -1, 0), rng);
  EXPECT_EQ(e[0], 1u);
  EXPECT_EQ(e[1], ReduceModPow2(-2, mech.modulus_bits()));
  EXPECT_EQ(e[2], 0u);
  std::vector<uint64_t> sum(3, 0);
  EXPECT_FALSE(mech.AddSummedNoise(absl::MakeSpan(sum), 3, rng).ok());  // below n_min
  EXPECT_FALSE(mech.AddSummedNoise(absl::MakeSpan(sum), 7, rng).ok());  // above n_max
  std::vector<uint64_t> short_sum(2, 0);
  EXPECT_FALSE(mech.AddSummedNoise(absl::MakeSpan(short_sum), 6, rng).ok());
}

// The shortcut and the per-user path decode to the same distribution where the scale makes the
// per-share rounding negligible (gamma = 2^10: the variances differ by at most
// (n - 1) / (4 gamma^2) ~ 1e-6, far below what 20,000 samples resolve): ExpectSameDistribution.
constexpr int kSamples = 20000;

TEST(GaussianSecAggTest, SummedNoiseAndPerUserNoiseGiveTheSameSumDistribution) {
  const GaussianSecAgg mech = *GaussianSecAgg::Create(GaussianParams(1, 2, 1, 4, 6, 1024));
  const Eigen::VectorXd x = Eigen::VectorXd::Constant(1, 0.3);
  Rng rng(9);
  std::vector<double> per_user, summed;
  for (int r = 0; r < kSamples; ++r) {
    std::vector<std::vector<uint64_t>> noisy, clean;
    for (int i = 0; i < 6; ++i) {
      noisy.push_back(*mech.Encode(x, rng));
      clean.push_back(*mech.EncodeWithoutNoise(x, rng));
    }
    per_user.push_back((*mech.Decode(ModularSum(noisy, mech.modulus_bits()), 6))[0]);
    std::vector<uint64_t> sum = ModularSum(clean, mech.modulus_bits());
    ASSERT_TRUE(mech.AddSummedNoise(absl::MakeSpan(sum), 6, rng).ok());
    summed.push_back((*mech.Decode(sum, 6))[0]);
  }
  ExpectSameDistribution(std::move(per_user), std::move(summed));
}

// The clip of a rank-one x = a b^T from its factors is the clip of x (to a relative 1e-12), and
// the clamp to [-L, L] applies where the clipped x reaches it.
TEST(GaussianSecAggTest, RankOneClipIsTheClipOfTheOuterProduct) {
  const Eigen::VectorXd a = (Eigen::VectorXd(4) << 3, -1, 0.5, 2).finished();
  const Eigen::VectorXd b = (Eigen::VectorXd(3) << 0.2, -0.4, 1).finished();
  for (const double linf : {0.0, 0.5}) {  // 0: L = c, never reached; 0.5: reached by x_{0,2}
    GaussianSecAggParams params = GaussianParams(12, 2, 1, 1, 2, 1024);
    params.linf_bound = linf;
    const GaussianSecAgg mech = *GaussianSecAgg::Create(params);
    const Eigen::MatrixXd outer = a * b.transpose();
    Eigen::VectorXd dense = Eigen::VectorXd::Zero(12);
    ASSERT_TRUE(mech.AddClipped(Eigen::Map<const Eigen::VectorXd>(outer.data(), 12), dense).ok());
    Eigen::MatrixXd rank_one = Eigen::MatrixXd::Zero(4, 3);
    ASSERT_TRUE(mech.AddClippedRankOne(a, b, rank_one).ok());
    EXPECT_LE(
        (Eigen::Map<const Eigen::VectorXd>(rank_one.data(), 12) - dense).cwiseAbs().maxCoeff(),
        1e-11);
    EXPECT_LE(rank_one.norm(), 2);
    EXPECT_LE(rank_one.cwiseAbs().maxCoeff(), linf == 0 ? 2 : linf);
    EXPECT_EQ(dense.cwiseAbs().maxCoeff() == 0.5, linf == 0.5);
  }
  const GaussianSecAgg mech = *GaussianSecAgg::Create(GaussianParams(12, 2, 1, 1, 2, 1024));
  Eigen::MatrixXd wrong = Eigen::MatrixXd::Zero(3, 4);
  EXPECT_EQ(mech.AddClippedRankOne(a, b, wrong).code(), absl::StatusCode::kInvalidArgument);
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(4, 3);
  const Eigen::VectorXd nan = Eigen::VectorXd::Constant(3, std::nan(""));
  EXPECT_EQ(mech.AddClippedRankOne(a, nan, sum).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(sum, Eigen::MatrixXd::Zero(4, 3));
}

// One clipped input encoded as a sum is EncodeWithoutNoise of it, draw for draw.
TEST(GaussianSecAggTest, EncodingOneClippedInputIsEncodingItWithoutNoise) {
  const GaussianSecAgg mech = *GaussianSecAgg::Create(GaussianParams(5, 1, 1, 1, 4, 16));
  const Eigen::VectorXd x = (Eigen::VectorXd(5) << 0.7, 0, -2, 0.01, 1).finished();
  Eigen::VectorXd clipped = Eigen::VectorXd::Zero(5);
  ASSERT_TRUE(mech.AddClipped(x, clipped).ok());
  Rng a(4), b(4);
  EXPECT_EQ(*mech.EncodeClippedSum(clipped, a), *mech.EncodeWithoutNoise(x, b));
  EXPECT_EQ(mech.EncodeClippedSum(Eigen::VectorXd::Zero(4), a).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Summed uploads: n users' clipped inputs encoded once, plus the summed noise, give the sum
// distribution of their n separate uploads (the rounding differs by at most n - 1 quarter grid
// units of variance, far below the noise's).
TEST(GaussianSecAggTest, SummedUploadsAndPerUserUploadsGiveTheSameSumDistribution) {
  const GaussianSecAgg mech = *GaussianSecAgg::Create(GaussianParams(1, 2, 1, 4, 6, 1024));
  Rng rng(10);
  std::vector<double> per_user, summed;
  for (int r = 0; r < kSamples; ++r) {
    std::vector<std::vector<uint64_t>> uploads;
    Eigen::VectorXd clipped = Eigen::VectorXd::Zero(1);
    for (int i = 0; i < 6; ++i) {
      const Eigen::VectorXd x = Eigen::VectorXd::Constant(1, 0.9 * i - 1.3);  // some clipped
      uploads.push_back(*mech.EncodeWithoutNoise(x, rng));
      ASSERT_TRUE(mech.AddClipped(x, clipped).ok());
    }
    std::vector<uint64_t> separate = ModularSum(uploads, mech.modulus_bits());
    ASSERT_TRUE(mech.AddSummedNoise(absl::MakeSpan(separate), 6, rng).ok());
    per_user.push_back((*mech.Decode(separate, 6))[0]);
    std::vector<uint64_t> once = *mech.EncodeClippedSum(clipped, rng);
    ASSERT_TRUE(mech.AddSummedNoise(absl::MakeSpan(once), 6, rng).ok());
    summed.push_back((*mech.Decode(once, 6))[0]);
  }
  ExpectSameDistribution(std::move(per_user), std::move(summed));
}

}  // namespace
}  // namespace fedmf::dp
