#include "common/dp/dp_conversion.h"

#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/common/rdp_curve_util.h"

namespace fedmf::dp {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

using test_util::kInf;

using test_util::Curve;

// Gaussian mechanism without sampling, sigma = 4.530877117: RDP alpha / (2 sigma^2) on the fine
// grid 1.001, 1.002, ..., 99.999 (TF Privacy / dp_accounting test setting).
RdpCurve FineGaussian() {
  const double sigma = 4.530877117;
  std::vector<double> orders;
  std::vector<double> values;
  for (int i = 1001; i < 100000; ++i) {
    orders.push_back(0.001 * i);
    values.push_back(orders.back() / (2 * sigma * sigma));
  }
  return Curve(orders, values);
}

TEST(DpConversionTest, SingleOrderByHand) {
  const RdpCurve c = Curve({2}, {1.0});
  const double delta = 1e-5;
  absl::StatusOr<EpsilonAtOrder> improved = EpsilonImproved(c, delta);
  ASSERT_TRUE(improved.ok());
  EXPECT_NEAR(improved->epsilon, 1 + std::log(0.5) - (std::log(delta) + std::log(2.0)), 1e-12);
  EXPECT_EQ(improved->order, 2);
  absl::StatusOr<EpsilonAtOrder> classic = EpsilonClassic(c, delta);
  ASSERT_TRUE(classic.ok());
  EXPECT_NEAR(classic->epsilon, 1 + std::log(1 / delta), 1e-12);
}

// Published (dp_accounting test_compute_epsilon_delta_pure_dp): constant RDP 1.1 on orders 2..32.
TEST(DpConversionTest, PureDpPublishedValue) {
  std::vector<double> orders;
  for (int a = 2; a <= 32; ++a) orders.push_back(a);
  const RdpCurve c = Curve(orders, std::vector<double>(orders.size(), 1.1));
  absl::StatusOr<EpsilonAtOrder> eps = EpsilonImproved(c, 1e-5);
  ASSERT_TRUE(eps.ok());
  EXPECT_NEAR(eps->epsilon / 1.32783806176, 1.0, 1e-6);
  EXPECT_EQ(eps->order, 32);
  absl::StatusOr<double> delta = DeltaImproved(c, 1.32783806176);
  ASSERT_TRUE(delta.ok());
  EXPECT_NEAR(*delta / 1e-5, 1.0, 1e-6);
}

// Published: sigma = 4.530877117 gives exactly (1, 1e-6)-DP with the improved conversion.
TEST(DpConversionTest, GaussianPublishedEpsilonOne) {
  const RdpCurve c = FineGaussian();
  absl::StatusOr<EpsilonAtOrder> eps = EpsilonImproved(c, 1e-6);
  ASSERT_TRUE(eps.ok());
  EXPECT_NEAR(eps->epsilon, 1.0, 1e-6);
  absl::StatusOr<double> delta = DeltaImproved(c, 1.0);
  ASSERT_TRUE(delta.ok());
  EXPECT_NEAR(*delta / 1e-6, 1.0, 1e-6);
  // The classic conversion is looser: eps = min alpha/(2 sigma^2) + log(1/delta)/(alpha-1),
  // whose continuous minimum is at alpha = 1 + sigma sqrt(2 log(1/delta)).
  absl::StatusOr<EpsilonAtOrder> classic = EpsilonClassic(c, 1e-6);
  ASSERT_TRUE(classic.ok());
  const double s = 4.530877117;
  const double l = std::log(1e6);
  const double best = (1 + s * std::sqrt(2 * l)) / (2 * s * s) + l / (s * std::sqrt(2 * l));
  EXPECT_NEAR(classic->epsilon, best, 1e-6);
  EXPECT_GT(classic->epsilon, eps->epsilon);
}

TEST(DpConversionTest, ClampsAtZeroAndHandlesInfinity) {
  absl::StatusOr<EpsilonAtOrder> zero = EpsilonImproved(Curve({2, 3}, {0, 0}), 0.5);
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(zero->epsilon, 0.0);
  absl::StatusOr<EpsilonAtOrder> none = EpsilonImproved(Curve({2, 3}, {kInf, kInf}), 1e-5);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->epsilon, kInf);
  absl::StatusOr<EpsilonAtOrder> skip = EpsilonClassic(Curve({2, 3}, {kInf, 1}), 0.5);
  ASSERT_TRUE(skip.ok());
  EXPECT_EQ(skip->order, 3);
  EXPECT_EQ(*DeltaImproved(Curve({2}, {kInf}), 1.0), 1.0);
}

TEST(DpConversionTest, RejectsBadDeltaAndEpsilon) {
  const RdpCurve c = Curve({2}, {1});
  EXPECT_THAT(EpsilonImproved(c, 0).status().message(), HasSubstr("delta"));
  EXPECT_FALSE(EpsilonImproved(c, 1).ok());
  EXPECT_FALSE(EpsilonClassic(c, -1).ok());
  EXPECT_FALSE(DeltaImproved(c, -1).ok());
}

TEST(DpConversionTest, BudgetsMeasuredEitherWay) {
  const RdpCurve c = Curve({2, 8}, {0.4, 1.6});
  EXPECT_TRUE(*WithinBudget(c, PrivacyBudget::Rdp(0.4)));
  EXPECT_FALSE(*WithinBudget(c, PrivacyBudget::Rdp(0.39)));
  EXPECT_TRUE(*WithinBudget(c, PrivacyBudget::Rdp(1.6, 8)));
  EXPECT_EQ(WithinBudget(c, PrivacyBudget::Rdp(1, 3)).status().code(), absl::StatusCode::kNotFound);
  const double eps = 1.6 + std::log(7.0 / 8) - (std::log(1e-5) + std::log(8.0)) / 7;
  EXPECT_NEAR(*SpentEpsilon(c, PrivacyBudget::ApproxDp(10, 1e-5)), eps, 1e-12);
  EXPECT_TRUE(*WithinBudget(c, PrivacyBudget::ApproxDp(eps + 1e-9, 1e-5)));
  EXPECT_FALSE(*WithinBudget(c, PrivacyBudget::ApproxDp(eps - 1e-9, 1e-5)));
}

TEST(DpConversionTest, RejectsMalformedBudgets) {
  EXPECT_FALSE(ValidateBudget(PrivacyBudget::Rdp(-1)).ok());
  EXPECT_FALSE(ValidateBudget(PrivacyBudget::Rdp(kInf)).ok());
  EXPECT_THAT(ValidateBudget(PrivacyBudget::Rdp(1, 1)).message(), HasSubstr("order"));
  EXPECT_FALSE(ValidateBudget(PrivacyBudget::ApproxDp(1, 0)).ok());
  EXPECT_FALSE(ValidateBudget(PrivacyBudget::ApproxDp(1, 1)).ok());
  EXPECT_TRUE(ValidateBudget(PrivacyBudget::ApproxDp(1, 1e-6)).ok());
  EXPECT_TRUE(ValidateBudget(PrivacyBudget::PureDp(0)).ok());
  EXPECT_FALSE(ValidateBudget(PrivacyBudget::PureDp(-0.5)).ok());
  EXPECT_FALSE(ValidateBudget(PrivacyBudget::PureDp(kInf)).ok());
  EXPECT_FALSE(ValidateBudget(PrivacyBudget::PureDp(std::nan(""))).ok());
}

TEST(DpConversionTest, BudgetsDefaultToOneUserAndFormatForPeople) {
  EXPECT_EQ(PrivacyBudget::Rdp(1).unit, PrivacyUnit::kUser);
  EXPECT_EQ(PrivacyBudget::ApproxDp(1, 1e-5).unit, PrivacyUnit::kUser);
  EXPECT_EQ(PrivacyBudget::PureDp(1).unit, PrivacyUnit::kUser);
  EXPECT_EQ(FormatBudget(PrivacyBudget::Rdp(1)), "RDP epsilon 1 at alpha 2 per user");
  EXPECT_EQ(FormatBudget(PrivacyBudget::ApproxDp(1, 1e-5)), "(1, 1e-05)-DP per user");
  EXPECT_EQ(FormatBudget(PrivacyBudget::PureDp(0.5, PrivacyUnit::kRating)),
            "pure epsilon 0.5 per rating");
}

TEST(DpConversionTest, ParsesBudgetSpecs) {
  const auto parse = [](absl::string_view spec) {
    absl::StatusOr<PrivacyBudget> b = ParseBudgetSpec(spec);
    EXPECT_TRUE(b.ok()) << spec << ": " << b.status();
    return b.ok() ? FormatBudget(*b) : "";
  };
  EXPECT_EQ(parse("pure:0.5"), "pure epsilon 0.5 per user");
  EXPECT_EQ(parse("rdp:1@2"), "RDP epsilon 1 at alpha 2 per user");
  EXPECT_EQ(parse("approx:1,1e-6/user"), "(1, 1e-06)-DP per user");
  EXPECT_EQ(parse("pure:2/rating"), "pure epsilon 2 per rating");
  EXPECT_EQ(parse("rdp:3@8/rating"), "RDP epsilon 3 at alpha 8 per rating");
}

TEST(DpConversionTest, RefusesMalformedBudgetSpecs) {
  const auto error = [](absl::string_view spec) {
    absl::StatusOr<PrivacyBudget> b = ParseBudgetSpec(spec);
    EXPECT_EQ(b.status().code(), absl::StatusCode::kInvalidArgument) << spec;
    return std::string(b.status().message());
  };
  EXPECT_THAT(error(""), HasSubstr("kind '' is not pure, rdp or approx"));
  EXPECT_THAT(error("gauss:1"), AllOf(HasSubstr("budget 'gauss:1'"), HasSubstr("kind 'gauss'")));
  EXPECT_THAT(error("pure"), HasSubstr("is not a number"));
  EXPECT_THAT(error("pure:x"), HasSubstr("'x' is not a number"));
  EXPECT_THAT(error("pure:1@2"), HasSubstr("'1@2' is not a number"));
  EXPECT_THAT(error("rdp:1"), HasSubstr("EPS@ORDER"));
  EXPECT_THAT(error("rdp:1@1"), HasSubstr("order must be finite and > 1"));
  EXPECT_THAT(error("approx:1"), HasSubstr("EPS,DELTA"));
  EXPECT_THAT(error("approx:1,2"), HasSubstr("delta must be in (0, 1)"));
  EXPECT_THAT(error("pure:-1"), HasSubstr("epsilon must be finite and >= 0"));
  EXPECT_THAT(error("pure:inf"), HasSubstr("epsilon"));
  EXPECT_THAT(error("pure:1/item"), HasSubstr("'pure:1/item'"));
}

}  // namespace
}  // namespace fedmf::dp
