#include "common/dp/distributed_discrete_gaussian.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "common/dp/rng.h"
#include "common/dp/samplers.h"
#include "gtest/gtest.h"
#include "tests/unit/common/dp_test_stats.h"

namespace fedmf::dp {
namespace {

using testing::ComputeMoments;
using testing::FrequencySe;
using testing::kSigmas;
using testing::ModularSum;
using testing::Moments;

const auto DdgParams = testing::SecAggParams<DistributedDiscreteGaussianParams>;

// d = 4, c = 1, gamma = 10, beta = e^-1/2 (sqrt(2 ln 1/beta) = 1):
// Delta_2^2 = min(100 + 1 + (10 + 1), (10 + 2)^2) = 112; with beta = 0 it is 144.
// v = (10 * 1)^2 / 4 = 25. R = ceil(4 min(11, sqrt 112) + sqrt(2 ln(8e9)) sqrt(4 * 25)) = 110,
// 2^(b-1) > 220 gives b = 9.
TEST(DistributedDiscreteGaussianTest, ParametersByHand) {
  absl::StatusOr<DistributedDiscreteGaussian> mech =
      DistributedDiscreteGaussian::Create(DdgParams(4, 1, 1, 4, 4, 10));
  ASSERT_TRUE(mech.ok()) << mech.status();
  EXPECT_EQ(mech->rounded_norm_bound_squared(), 112u);
  const Rational v = mech->per_client_variance();
  EXPECT_EQ(static_cast<double>(v.num) / static_cast<double>(v.den), 25.0);
  EXPECT_EQ(mech->range(), 110);
  EXPECT_EQ(mech->modulus_bits(), 9);

  DistributedDiscreteGaussianParams p = DdgParams(4, 1, 1, 4, 4, 10);
  p.rounding_beta = 0;
  EXPECT_EQ(DistributedDiscreteGaussian::Create(p)->rounded_norm_bound_squared(), 144u);
}

// A committee of c of the 4 clients adds all the noise: v = (10 * 1)^2 / c, and the range's noise
// term is sqrt(c v) = 10 whatever c, so R = 110 and b = 9 as above (counting n_max = 4 noisy
// clients would give ceil(42.33 + 6.7532 sqrt(4 v)) = 178 at c = 1).
TEST(DistributedDiscreteGaussianTest, NoiseCommitteeParametersByHand) {
  for (int64_t c : {1, 2, 4}) {
    DistributedDiscreteGaussianParams p = DdgParams(4, 1, 1, 4, 4, 10);
    p.noise_clients = c;
    absl::StatusOr<DistributedDiscreteGaussian> mech = DistributedDiscreteGaussian::Create(p);
    ASSERT_TRUE(mech.ok()) << mech.status();
    const Rational v = mech->per_client_variance();
    EXPECT_EQ(static_cast<double>(v.num) / static_cast<double>(v.den), 100.0 / c);
    EXPECT_EQ(mech->range(), 110);
    EXPECT_EQ(mech->modulus_bits(), 9);
  }
  DistributedDiscreteGaussianParams p = DdgParams(4, 1, 1, 4, 4, 10);
  p.noise_clients = 5;  // more than n_min
  EXPECT_FALSE(DistributedDiscreteGaussian::Create(p).ok());
  p.noise_clients = -1;
  EXPECT_FALSE(DistributedDiscreteGaussian::Create(p).ok());
}

// A non-committee client's support values on the grid (gamma x integer, inside the clip) round to
// themselves, without noise: (0.3, -0.5) at gamma 10 is (3, -5), -5 mod 2^9 = 507. More values
// than d are refused.
TEST(DistributedDiscreteGaussianTest, EncodeSupportRoundsWithoutNoise) {
  DistributedDiscreteGaussianParams p = DdgParams(4, 1, 1, 4, 4, 10);
  p.noise_clients = 1;
  const DistributedDiscreteGaussian mech = *DistributedDiscreteGaussian::Create(p);
  Rng rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    EXPECT_EQ(*mech.EncodeSupport(Eigen::Vector2d(0.3, -0.5), rng),
              (std::vector<uint64_t>{3, 507}));
  }
  EXPECT_TRUE(mech.EncodeSupport(Eigen::VectorXd(0), rng)->empty());
  EXPECT_FALSE(mech.EncodeSupport(Eigen::VectorXd::Zero(5), rng).ok());
}

TEST(DistributedDiscreteGaussianTest, RejectsBadParameters) {
  EXPECT_FALSE(DistributedDiscreteGaussian::Create(DdgParams(4, 1, 0, 1, 1, 1)).ok());
  EXPECT_FALSE(DistributedDiscreteGaussian::Create(DdgParams(0, 1, 1, 1, 1, 1)).ok());
  EXPECT_FALSE(DistributedDiscreteGaussian::Create(DdgParams(4, 1, 1, 2, 1, 1)).ok());
  EXPECT_FALSE(DistributedDiscreteGaussian::Create(DdgParams(4, 1, 1, 1, 1, 0x1p31)).ok());
  EXPECT_FALSE(DistributedDiscreteGaussian::Create(DdgParams(4, 1e-6, 1e9, 1, 1, 1e6)).ok());  // v
  DistributedDiscreteGaussianParams p = DdgParams(4, 1, 1, 1, 1, 1);
  p.rounding_beta = 1;
  EXPECT_FALSE(DistributedDiscreteGaussian::Create(p).ok());
  const DistributedDiscreteGaussian mech =
      *DistributedDiscreteGaussian::Create(DdgParams(4, 1, 1, 1, 1, 1));
  Rng rng(1);
  EXPECT_FALSE(mech.Encode(Eigen::Vector3d(0, 0, 0), rng).ok());
  EXPECT_FALSE(mech.Decode(std::vector<uint64_t>(4, 0), 2).ok());
}

// y = (1.5, 1.5, 1.5, 1.5), bound 10: each coordinate rounds to 1 or 2, norm^2 = 4 + 3 k with k
// the number of 2s, so k <= 2 and P(k) is proportional to C(4, k): P(k = 2) = 6/11.
TEST(DistributedDiscreteGaussianTest, ConditionalRoundingByHand) {
  Rng rng(2);
  const Eigen::Vector4d y = Eigen::Vector4d::Constant(1.5);
  constexpr int kDraws = 50000;
  int twos_equal_two = 0;
  for (int i = 0; i < kDraws; ++i) {
    const std::vector<int64_t> r = *ConditionalStochasticRound(y, 10, rng);
    int twos = 0, norm2 = 0;
    for (int64_t v : r) {
      ASSERT_TRUE(v == 1 || v == 2);
      twos += v == 2 ? 1 : 0;
      norm2 += static_cast<int>(v * v);
    }
    ASSERT_LE(norm2, 10);
    twos_equal_two += twos == 2 ? 1 : 0;
  }
  EXPECT_NEAR(twos_equal_two / double{kDraws}, 6.0 / 11, kSigmas * FrequencySe(6.0 / 11, kDraws));
  EXPECT_EQ(ConditionalStochasticRound(y, 3, rng).status().code(), absl::StatusCode::kInternal);
  EXPECT_FALSE(ConditionalStochasticRound(Eigen::Vector2d(0x1p31, 0), 100, rng).ok());
  EXPECT_FALSE(ConditionalStochasticRound(Eigen::Vector2d(std::nan(""), 0), 100, rng).ok());
}

// sigma = 1e-3, gamma = 100: v = 0.01, so N_Z(0, v) is nonzero with probability ~4e-22 and each
// encoding of x = 1 is 100. Delta_2^2 = 10100, R = ceil(2 * sqrt(10100) + 6.5447 * 0.1414) = 202,
// b = 10. As for the Gaussian mechanism: 2 clients decode, 5 (500) and 8 (800 = -224 mod 1024)
// are reported as OutOfRange.
TEST(DistributedDiscreteGaussianTest, WrappedOrOutOfRangeSumsAreReportedNotReturned) {
  const DistributedDiscreteGaussian mech =
      *DistributedDiscreteGaussian::Create(DdgParams(1, 1, 1e-3, 1, 2, 100));
  ASSERT_EQ(mech.range(), 202);
  ASSERT_EQ(mech.modulus_bits(), 10);
  Rng rng(3);
  std::vector<std::vector<uint64_t>> encodings;
  for (int i = 0; i < 8; ++i) encodings.push_back(*mech.Encode(Eigen::VectorXd::Ones(1), rng));
  ASSERT_EQ(encodings[0][0], 100u);
  auto first = [&](int n) {
    return ModularSum({encodings.begin(), encodings.begin() + n}, mech.modulus_bits());
  };
  EXPECT_EQ((*mech.Decode(first(2), 2))[0], 2.0);
  EXPECT_EQ(mech.Decode(first(5), 2).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(mech.Decode(first(8), 2).status().code(), absl::StatusCode::kOutOfRange);
}

// Property (noise negligible as above): every contribution has squared norm <= Delta_2^2 in grid
// units, whatever the input.
TEST(DistributedDiscreteGaussianTest, RoundedContributionNeverExceedsDelta2) {
  Rng rng(4);
  for (int trial = 0; trial < 1000; ++trial) {
    const int64_t d = 1 + static_cast<int64_t>(UniformInt(rng, 30));
    const double gamma = 1 + 100 * UniformUnit(rng);
    const DistributedDiscreteGaussian mech =
        *DistributedDiscreteGaussian::Create(DdgParams(d, 1, 1e-3, 1, 1, gamma));
    Eigen::VectorXd x(d);
    for (int64_t j = 0; j < d; ++j) x[j] = 3 * StandardNormal(rng);
    const Eigen::VectorXd grid = *mech.Decode(*mech.Encode(x, rng), 1) * gamma;
    ASSERT_LE(grid.squaredNorm(), static_cast<double>(mech.rounded_norm_bound_squared()) + 1e-6)
        << trial;
  }
}

// 6 clients, sigma = 1, n_min = 4, gamma = 4, gamma x integer (no rounding randomness): the
// decoded sum has mean 6x and variance 6 Var(N_Z(0, 4)) / 16 = 1.5 (Var N_Z(0, 4) = 4 to 1e-30).
TEST(DistributedDiscreteGaussianTest, SumIsUnbiasedWithTargetVariance) {
  const DistributedDiscreteGaussian mech =
      *DistributedDiscreteGaussian::Create(DdgParams(3, 1, 1, 4, 6, 4));
  const Eigen::Vector3d x(0.5, -0.25, 0);
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
    EXPECT_NEAR(m.mean, 6 * x[j], kSigmas * std::sqrt(1.5 / 20000)) << j;
    EXPECT_NEAR(m.variance, 1.5, kSigmas * m.variance_se) << j;
  }
}

}  // namespace
}  // namespace fedmf::dp
