#include "common/dp/pbm_calibration.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::dp {
namespace {

using ::testing::HasSubstr;

TEST(PbmCalibrationTest, BitsFor) {
  EXPECT_EQ(BitsFor(0), 0);
  EXPECT_EQ(BitsFor(1), 1);
  EXPECT_EQ(BitsFor(2), 2);
  EXPECT_EQ(BitsFor(3), 2);
  EXPECT_EQ(BitsFor(94), 7);
  EXPECT_EQ(BitsFor(127), 7);
  EXPECT_EQ(BitsFor(128), 8);
}

// RDP 1 at order 2 over 10 rounds of 100 coordinates, no secure aggregation, 5 participants.
PbmCalibrationRequest NoSecAggRequest() {
  PbmCalibrationRequest r;
  r.budget = PrivacyBudget::Rdp(1.0);
  r.rounds = 10;
  r.dimension = 100;
  r.n_min = 1;
  r.participants = 5;
  return r;
}

// Without secure aggregation and q = 1 the alpha = 2 RDP per coordinate is
// log(hi^2/lo + lo^2/hi) = log(1/(hi lo) - 3) with hi lo = 1/4 - theta^2, so the budget b per
// coordinate and round is met with equality at theta = sqrt(1/4 - 1/(e^b + 3)).
TEST(PbmCalibrationTest, NoSecAggThetaInClosedForm) {
  const PbmCalibrationRequest r = NoSecAggRequest();
  absl::StatusOr<PbmCalibration> c = CalibratePbm(r);
  ASSERT_TRUE(c.ok()) << c.status();
  const double b = 1.0 / (10 * 100);
  const double theta = std::sqrt(0.25 - 1 / (std::exp(b) + 3));
  EXPECT_NEAR(c->params.theta / theta, 1.0, 2e-6);
  EXPECT_LE(c->params.theta, theta);
  EXPECT_EQ(c->params.q, 1);
  EXPECT_EQ(c->local_bits, 1);
  EXPECT_EQ(c->secagg_bits, 3);  // 5 clients * 1 trial: sums in [0, 5]
  EXPECT_LE(c->spent_epsilon, 1.0);
  EXPECT_GT(c->spent_epsilon, 1.0 - 1e-5);
}

// Charged by the L2 shift (vectors of norm <= r c), without secure aggregation, q = 1: at alpha = 2
// a round costs (2 theta r)^2 Lambda_2 = 4 theta^2 r^2 / (1/4 - theta^2) (rdp_pbm_l2.h), so a
// per-round budget b is met at theta = sqrt(b / (4 (4 r^2 + b))): a quarter of the coordinate-wise
// cost here, as r^2 = 25 is a quarter of the 100 coordinates.
TEST(PbmCalibrationTest, L2ShiftThetaInClosedForm) {
  PbmCalibrationRequest r = NoSecAggRequest();
  r.l2_over_clip = 5;
  absl::StatusOr<PbmCalibration> c = CalibratePbm(r);
  ASSERT_TRUE(c.ok()) << c.status();
  const double b = 1.0 / 10;
  const double theta = std::sqrt(b / (4 * (4 * 25 + b)));
  EXPECT_NEAR(c->params.theta / theta, 1.0, 2e-6);
  EXPECT_LE(c->params.theta, theta);
  EXPECT_LE(c->spent_epsilon, 1.0);
  EXPECT_GT(c->spent_epsilon, 1.0 - 1e-5);
  r.l2_over_clip = -1;
  EXPECT_THAT(CalibratePbm(r).status().message(), HasSubstr("l2_over_clip"));
}

// theta = 1/4 spends log(7/3) = 0.847 per trial without secure aggregation; a per-coordinate
// budget of 3 affords q = 3 (2.54) but not 4 (3.39).
TEST(PbmCalibrationTest, RaisesQOnceThetaIsCapped) {
  PbmCalibrationRequest r;
  r.budget = PrivacyBudget::Rdp(3.0 * 7 * 2);
  r.rounds = 7;
  r.dimension = 2;
  r.n_min = 1;
  r.participants = 10;
  absl::StatusOr<PbmCalibration> c = CalibratePbm(r);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->params.theta, 0.25);
  EXPECT_EQ(c->params.q, 3);
  EXPECT_EQ(c->local_bits, 2);
  EXPECT_EQ(c->secagg_bits, 5);  // sums in [0, 30]
  EXPECT_NEAR(c->spent_epsilon, 3 * 7 * 2 * std::log(7.0 / 3), 1e-9);
  r.max_q = 2;
  EXPECT_EQ(CalibratePbm(r)->params.q, 2);
}

// With secure aggregation the calibrated theta fits and is tight: 1e-5 more does not fit.
TEST(PbmCalibrationTest, SecAggThetaIsTight) {
  PbmCalibrationRequest r;
  r.budget = PrivacyBudget::Rdp(1.0);
  r.rounds = 20;
  r.dimension = 512;
  r.n_min = 40;
  r.participants = 50;
  absl::StatusOr<PbmCalibration> c = CalibratePbm(r);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->params.q, 1);
  EXPECT_EQ(c->secagg_bits, 6);
  auto total_at_2 = [&](double theta) {
    return 20 * *PbmRoundCurve({theta, 1, 40}, 512, {2})->At(2);
  };
  EXPECT_LE(total_at_2(c->params.theta), 1.0);
  EXPECT_GT(total_at_2(c->params.theta * (1 + 1e-5)), 1.0);
  EXPECT_NEAR(c->spent_epsilon, total_at_2(c->params.theta), 1e-12);
}

TEST(PbmCalibrationTest, ApproxDpBudget) {
  PbmCalibrationRequest r;
  r.budget = PrivacyBudget::ApproxDp(1.0, 1e-5);
  r.rounds = 5;
  r.dimension = 64;
  r.n_min = 20;
  r.participants = 20;
  absl::StatusOr<PbmCalibration> c = CalibratePbm(r);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_LE(c->spent_epsilon, 1.0);
  EXPECT_GT(c->spent_epsilon, 0.99);
  // Secure aggregation lets the same budget use a larger theta than local noise alone.
  r.n_min = 1;
  EXPECT_LT(CalibratePbm(r)->params.theta, c->params.theta);
}

TEST(PbmCalibrationTest, RejectsBadRequests) {
  PbmCalibrationRequest r;
  r.budget = PrivacyBudget::Rdp(0);
  EXPECT_THAT(CalibratePbm(r).status().message(), HasSubstr("epsilon > 0"));
  r.budget = PrivacyBudget::Rdp(1);
  r.n_min = 10;
  r.participants = 9;
  EXPECT_THAT(CalibratePbm(r).status().message(), HasSubstr("participants >= n_min"));
  r.participants = 10;
  r.rounds = 0;
  EXPECT_FALSE(CalibratePbm(r).ok());
  r.rounds = 1;
  r.budget = PrivacyBudget::ApproxDp(1, 0);
  EXPECT_FALSE(CalibratePbm(r).ok());
}

}  // namespace
}  // namespace fedmf::dp
