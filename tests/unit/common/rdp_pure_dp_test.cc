#include "common/dp/rdp_pure_dp.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/common/rdp_curve_util.h"

namespace fedmf::dp {
namespace {

using ::testing::HasSubstr;

using test_util::kInf;

// D_2(Bern(3/4) || Bern(1/4)) = log((9/16)/(1/4) + (1/16)/(3/4)) = log(7/3).
TEST(RdpPureDpTest, BernoulliDivergenceByHand) {
  EXPECT_NEAR(*BernoulliRenyiDivergence(0.75, 0.25, 2), std::log(7.0 / 3), 1e-15);
  EXPECT_EQ(*BernoulliRenyiDivergence(0.3, 0.3, 5), 0.0);
  EXPECT_EQ(*BernoulliRenyiDivergence(0.5, 0.0, 2), kInf);
  // P(1) = 0: only x = 0 counts, (1)^2 (1/2)^-1 = 2.
  EXPECT_NEAR(*BernoulliRenyiDivergence(0.0, 0.5, 2), std::log(2.0), 1e-15);
  EXPECT_THAT(BernoulliRenyiDivergence(1.5, 0.5, 2).status().message(), HasSubstr("[0, 1]"));
  EXPECT_FALSE(BernoulliRenyiDivergence(0.5, 0.5, 1).ok());
}

// Mironov 2017 Prop. 6 at lambda = 1, alpha = 2: log(2/3 e + 1/3 e^-2) (mpmath, 16 digits).
TEST(RdpPureDpTest, LaplaceByHand) {
  EXPECT_NEAR(*LaplaceRdp(1.0, 2.0), 0.6191236299985929, 1e-15);
  // Scale 2 / sensitivity: alpha = 3, log(3/5 e^(2/2) + 2/5 e^(-3/2)) / 2.
  EXPECT_NEAR(*LaplaceRdp(2.0, 3.0), std::log(0.6 * std::exp(1.0) + 0.4 * std::exp(-1.5)) / 2,
              1e-15);
  EXPECT_THAT(LaplaceRdp(0.0, 2.0).status().message(), HasSubstr("scale"));
  EXPECT_FALSE(LaplaceRdp(1.0, 0.5).ok());
}

TEST(RdpPureDpTest, LaplaceTendsToPureDpAndIsBelowIt) {
  // epsilon-DP with epsilon = 1 / lambda = 0.5; RDP -> 0.5 as alpha grows.
  absl::StatusOr<RdpCurve> c = LaplaceCurve(2.0, DefaultOrders());
  ASSERT_TRUE(c.ok());
  for (double v : c->values()) EXPECT_LE(v, 0.5);
  EXPECT_NEAR(c->values().back(), 0.5, 1e-3);
}

// Splitting the L1 sensitivity over coordinates never beats putting it in one coordinate.
TEST(RdpPureDpTest, LaplaceIsSuperadditiveInTheShift) {
  for (double alpha : {1.5, 2.0, 8.0, 64.0}) {
    EXPECT_GE(*LaplaceRdp(1.0, alpha), 2 * *LaplaceRdp(2.0, alpha)) << alpha;
    EXPECT_GE(*LaplaceRdp(0.5, alpha), *LaplaceRdp(1.0, alpha) + *LaplaceRdp(1.0, alpha)) << alpha;
  }
}

// Randomized response with epsilon = log 3 is Bern(3/4) vs Bern(1/4).
TEST(RdpPureDpTest, RandomizedResponse) {
  EXPECT_NEAR(*PureDpRdp(std::log(3.0), 2), std::log(7.0 / 3), 1e-14);
  EXPECT_EQ(*PureDpRdp(0.0, 2), 0.0);
  EXPECT_EQ(*PureDpRdp(kInf, 2), kInf);
  absl::StatusOr<RdpCurve> c = PureDpCurve(2.0, DefaultOrders());
  ASSERT_TRUE(c.ok());
  for (double v : c->values()) EXPECT_LE(v, 2.0 + 1e-12);
  const double big = *PureDpRdp(1000.0, 4);
  EXPECT_TRUE(std::isfinite(big));
  EXPECT_NEAR(big, 1000.0, 1e-9);
  EXPECT_FALSE(PureDpRdp(-1, 2).ok());
}

}  // namespace
}  // namespace fedmf::dp
