#include "common/dp/fixed_point.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/dp/rng.h"
#include "gtest/gtest.h"
#include "tests/unit/common/dp_test_stats.h"

namespace fedmf::dp {
namespace {

using testing::ComputeMoments;
using testing::kSigmas;
using testing::Moments;

TEST(FixedPointTest, ModularReductionAndCenteredLift) {
  EXPECT_EQ(ReduceModPow2(-1, 8), 255u);
  EXPECT_EQ(ReduceModPow2(256 + 5, 8), 5u);
  EXPECT_EQ(ReduceModPow2(-300, 8), 212u);  // -300 + 2 * 256
  EXPECT_EQ(CenteredLift(255, 8), -1);
  EXPECT_EQ(CenteredLift(128, 8), -128);
  EXPECT_EQ(CenteredLift(127, 8), 127);
  EXPECT_EQ(CenteredLift(ReduceModPow2(-123456789, 40), 40), -123456789);
}

TEST(FixedPointTest, StochasticRoundingKeepsIntegersAndIsUnbiased) {
  Rng rng(1);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(StochasticRound(5.0, rng), 5);
    EXPECT_EQ(StochasticRound(-3.0, rng), -3);
  }
  // Fractional part f: values in {floor, floor + 1}, mean y, variance f (1 - f).
  for (double y : {2.25, -0.75, 1e6 + 0.5}) {
    std::vector<double> xs(100000);
    for (double& x : xs) {
      x = static_cast<double>(StochasticRound(y, rng));
      ASSERT_TRUE(x == std::floor(y) || x == std::floor(y) + 1);
    }
    const double f = y - std::floor(y);
    const Moments m = ComputeMoments(xs);
    EXPECT_NEAR(m.mean, y, kSigmas * std::sqrt(f * (1 - f) / xs.size())) << y;
  }
}

// 2 exp(-z^2/2) = eta / dim: with eta = 2 e^-18 and dim = 1, z = 6; with dim = 10, eta = 20 e^-8,
// z = 4.
TEST(FixedPointTest, TailMultiplierAndRange) {
  EXPECT_NEAR(TailMultiplier(2 * std::exp(-18.0), 1), 6, 1e-12);
  EXPECT_NEAR(TailMultiplier(20 * std::exp(-8.0), 10), 4, 1e-12);
  EXPECT_EQ(SumRange(10, 9, 2 * std::exp(-18.0), 1), 28);        // 10 + 6 * 3
  EXPECT_EQ(SumRange(10.5, 0.25, 20 * std::exp(-8.0), 10), 13);  // ceil(10.5 + 4 * 0.5)
}

// 2^(b-1) > 2R: R = 0 -> 2, R = 1 -> 3, R = 1000 -> 2^11 = 2048 > 2000 -> 12.
TEST(FixedPointTest, ModulusBits) {
  EXPECT_EQ(*ModulusBitsForRange(0), 2);
  EXPECT_EQ(*ModulusBitsForRange(1), 3);
  EXPECT_EQ(*ModulusBitsForRange(1000), 12);
  EXPECT_EQ(*ModulusBitsForRange(1023), 12);
  EXPECT_EQ(*ModulusBitsForRange(1024), 13);
  EXPECT_EQ(ModulusBitsForRange(std::ldexp(1.0, 60)).status().code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_FALSE(ModulusBitsForRange(-1).ok());
  EXPECT_FALSE(ModulusBitsForRange(std::nan("")).ok());
}

TEST(FixedPointTest, DecodeCheckedSumReportsOutOfRangeAndUnreducedValues) {
  const std::vector<uint64_t> sum = {3, 1021, 100};  // mod 2^10: 3, -3, 100
  absl::StatusOr<Eigen::VectorXd> decoded = DecodeCheckedSum(sum, 10, 100, 4);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, Eigen::Vector3d(0.75, -0.75, 25));  // divided by scale 4
  const absl::Status out = DecodeCheckedSum(sum, 10, 99, 4).status();
  EXPECT_EQ(out.code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(out.message().find("coordinate 2"), absl::string_view::npos);
  const std::vector<uint64_t> unreduced = {1024};
  EXPECT_EQ(DecodeCheckedSum(unreduced, 10, 1000, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::dp
