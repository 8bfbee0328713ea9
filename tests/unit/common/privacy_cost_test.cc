#include "common/dp/privacy_cost.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/dp/rdp_pure_dp.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/common/rdp_curve_util.h"

namespace fedmf::dp {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using test_util::kInf;

using test_util::Curve;

using test_util::Pure;

TEST(PrivacyCostTest, ZeroSpendsNothingPerUser) {
  absl::StatusOr<PrivacyCost> zero = PrivacyCost::Zero({2, 8});
  ASSERT_TRUE(zero.ok());
  EXPECT_THAT(zero->rdp().values(), ElementsAre(0.0, 0.0));
  EXPECT_EQ(zero->pure_epsilon(), 0.0);
  EXPECT_EQ(zero->unit(), PrivacyUnit::kUser);
  EXPECT_FALSE(zero->heterogeneous());
  EXPECT_FALSE(PrivacyCost::Zero({}).ok());
}

// Basic composition: the pure epsilons add (Mironov 2017, Prop. 1 at alpha = infinity).
TEST(PrivacyCostTest, PureEpsilonsAddUp) {
  const std::vector<double> orders = {2, 8};
  PrivacyCost total = *PrivacyCost::Zero(orders);
  ASSERT_TRUE(total.Compose(Pure(0.1, orders)).ok());
  ASSERT_TRUE(total.Compose(Pure(0.25, orders)).ok());
  ASSERT_TRUE(total.Compose(Pure(0.5, orders)).ok());
  ASSERT_TRUE(total.Compose(Pure(0.125, orders), 3).ok());
  EXPECT_EQ(total.pure_epsilon(), 0.1 + 0.25 + 0.5 + 0.375);  // 1.225
  // The RDP side adds the randomized-response curves order by order.
  for (size_t i = 0; i < orders.size(); ++i) {
    double expected = 0;
    for (double eps : {0.1, 0.25, 0.5, 0.125, 0.125, 0.125}) {
      expected += *PureDpRdp(eps, orders[i]);
    }
    EXPECT_NEAR(total.rdp().values()[i], expected, 1e-15) << orders[i];
  }
  ASSERT_TRUE(total.Compose(Pure(7, orders), 0).ok());  // zero times adds nothing
  EXPECT_EQ(total.pure_epsilon(), 1.225);
}

// A pure epsilon-DP release counts as randomized response, whose order-2 Renyi divergence is
// log(p^2/q + q^2/p) = log(2 cosh(eps) - 1) for p = e^eps/(1+e^eps), q = 1 - p; every pure
// epsilon-DP mechanism is within min(eps, alpha eps^2 / 2) (Bun and Steinke 2016, Prop. 3.3).
TEST(PrivacyCostTest, PureEpsilonCountsAsRandomizedResponse) {
  for (double eps : {0.01, 0.5, 1.0, 3.0}) {
    const PrivacyCost c = Pure(eps, {2, 8});
    EXPECT_EQ(c.pure_epsilon(), eps);
    EXPECT_NEAR(*c.rdp().At(2), std::log(2 * std::cosh(eps) - 1), 1e-12) << eps;
    for (double order : {2.0, 8.0}) {
      EXPECT_LE(*c.rdp().At(order), std::min(eps, order * eps * eps / 2) * (1 + 1e-12)) << eps;
    }
  }
  EXPECT_FALSE(PrivacyCost::FromPureDp(-1, {2}, PrivacyUnit::kUser).ok());
  EXPECT_FALSE(PrivacyCost::FromPureDp(std::nan(""), {2}, PrivacyUnit::kUser).ok());
}

TEST(PrivacyCostTest, AnRdpReleaseHasNoPureBound) {
  PrivacyCost total = *PrivacyCost::Zero({2, 8});
  ASSERT_TRUE(total.Compose(Pure(0.5, {2, 8})).ok());
  ASSERT_TRUE(
      total.Compose(PrivacyCost::FromRdp(Curve({2, 8}, {0.1, 0.4}), PrivacyUnit::kUser)).ok());
  EXPECT_EQ(total.pure_epsilon(), kInf);
  EXPECT_EQ(*SpentEpsilon(total, PrivacyBudget::PureDp(1e9)), kInf);
  EXPECT_FALSE(*WithinBudget(total, PrivacyBudget::PureDp(1e9)));
}

TEST(PrivacyCostTest, UnitIsTheSmallerAndHeterogeneityIsKept) {
  PrivacyCost total = *PrivacyCost::Zero({2});
  ASSERT_TRUE(total.Compose(Pure(0.5, {2})).ok());
  EXPECT_EQ(total.unit(), PrivacyUnit::kUser);
  EXPECT_FALSE(total.heterogeneous());
  ASSERT_TRUE(total.Compose(*PrivacyCost::FromPureDp(0.5, {2}, PrivacyUnit::kRating, true)).ok());
  EXPECT_EQ(total.unit(), PrivacyUnit::kRating);
  EXPECT_TRUE(total.heterogeneous());
  ASSERT_TRUE(total.Compose(Pure(0.5, {2})).ok());
  EXPECT_EQ(total.unit(), PrivacyUnit::kRating);
  EXPECT_TRUE(total.heterogeneous());
}

TEST(PrivacyCostTest, FailedCompositionChangesNothing) {
  PrivacyCost total = Pure(0.5, {2, 8});
  const PrivacyCost before = total;
  EXPECT_THAT(total.Compose(Pure(0.5, {2, 9}, PrivacyUnit::kRating)).message(),
              HasSubstr("different grids"));
  EXPECT_FALSE(total.Compose(Pure(0.5, {2, 8}, PrivacyUnit::kRating), -1).ok());
  EXPECT_EQ(total, before);
}

// RDP and (epsilon, delta) budgets measure the RDP curve exactly as before pure epsilons existed.
TEST(PrivacyCostTest, RdpAndApproxDpBudgetsOfAnRdpCostAreUnchanged) {
  const RdpCurve curve = Curve({2, 8}, {0.4, 1.6});
  const PrivacyCost c = PrivacyCost::FromRdp(curve, PrivacyUnit::kUser);
  for (const PrivacyBudget& b :
       {PrivacyBudget::Rdp(0.4), PrivacyBudget::Rdp(0.39), PrivacyBudget::Rdp(1.6, 8),
        PrivacyBudget::ApproxDp(3, 1e-5), PrivacyBudget::ApproxDp(1, 1e-9)}) {
    EXPECT_EQ(*SpentEpsilon(c, b), *SpentEpsilon(curve, b));
    EXPECT_EQ(*WithinBudget(c, b), *WithinBudget(curve, b));
  }
  EXPECT_EQ(WithinBudget(c, PrivacyBudget::Rdp(1, 3)).status().code(), absl::StatusCode::kNotFound);
}

// Pure epsilon-DP is (epsilon, delta)-DP for every delta, so an (epsilon, delta) budget takes the
// better of that and the conversion of the RDP curve.
TEST(PrivacyCostTest, ApproxDpTakesTheBetterOfPureAndConverted) {
  const double delta = 1e-5;
  // One release at epsilon 1: the conversion pays log(1/delta)/(alpha - 1) and loses to 1.
  const PrivacyCost once = Pure(1, DefaultOrders());
  const double converted_once = EpsilonImproved(once.rdp(), delta)->epsilon;
  EXPECT_GT(converted_once, 1);
  EXPECT_EQ(*SpentEpsilon(once, PrivacyBudget::ApproxDp(10, delta)), 1);
  // 100 releases at 0.1: RDP <= 100 alpha 0.1^2 / 2 = alpha / 2, so at alpha = 6 (on the grid)
  // the classic conversion gives at most 3 + log(1e5) / 5 = 5.303, well under the pure sum 10.
  PrivacyCost many = *PrivacyCost::Zero(DefaultOrders());
  ASSERT_TRUE(many.Compose(Pure(0.1, DefaultOrders()), 100).ok());
  const double spent = *SpentEpsilon(many, PrivacyBudget::ApproxDp(10, delta));
  EXPECT_EQ(spent, EpsilonImproved(many.rdp(), delta)->epsilon);
  EXPECT_LE(spent, 3 + std::log(1e5) / 5);
  EXPECT_NEAR(many.pure_epsilon(), 10, 1e-12);
}

TEST(PrivacyCostTest, ABudgetPerUserRefusesASpendingPerRating) {
  const PrivacyCost rating = Pure(0.5, {2}, PrivacyUnit::kRating);
  absl::StatusOr<double> spent = SpentEpsilon(rating, PrivacyBudget::PureDp(1, PrivacyUnit::kUser));
  EXPECT_EQ(spent.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(spent.status().message(), AllOf(HasSubstr("rating"), HasSubstr("per user")));
  EXPECT_EQ(*SpentEpsilon(rating, PrivacyBudget::PureDp(1, PrivacyUnit::kRating)), 0.5);
  // A per-user guarantee also bounds a rating.
  EXPECT_EQ(*SpentEpsilon(Pure(0.5, {2}), PrivacyBudget::PureDp(1, PrivacyUnit::kRating)), 0.5);
}

TEST(PrivacyCostTest, ReportGivesEveryConventionAndTheUnit) {
  const PrivacyCost c =
      PrivacyCost::FromRdp(Curve({1.5, 2, 8}, {0.3, 0.4, 1.6}), PrivacyUnit::kUser);
  absl::StatusOr<PrivacyReport> r = Report(c, 1e-5);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rdp_order2, 0.4);
  EXPECT_EQ(r->delta, 1e-5);
  // At order 8: 1.6 + log(7/8) - (log 1e-5 + log 8) / 7.
  EXPECT_NEAR(r->improved.epsilon, 1.6 + std::log(7.0 / 8) - (std::log(1e-5) + std::log(8.0)) / 7,
              1e-12);
  EXPECT_NEAR(r->classic.epsilon, 1.6 + std::log(1e5) / 7, 1e-12);
  EXPECT_EQ(r->pure_epsilon, kInf);
  EXPECT_EQ(r->unit, PrivacyUnit::kUser);
  EXPECT_FALSE(r->heterogeneous);
  EXPECT_THAT(Report(Pure(1, {3}), 1e-5).status().message(), HasSubstr("order 2"));
}

TEST(PrivacyCostTest, FormatReportStatesTheFiguresAndTheUnit) {
  PrivacyReport r;
  r.unit = PrivacyUnit::kUser;
  r.delta = 1e-5;
  r.rdp_order2 = 1;
  r.improved.epsilon = 4.72876;
  EXPECT_EQ(FormatReport(r), "RDP epsilon 1 at alpha 2, (4.72876, 1e-05)-DP per user (worst case)");
  r.unit = PrivacyUnit::kRating;
  r.heterogeneous = true;
  r.pure_epsilon = 2.5;
  EXPECT_EQ(FormatReport(r),
            "pure epsilon 2.5, RDP epsilon 1 at alpha 2, (4.72876, 1e-05)-DP per rating (worst "
            "case; heterogeneous: a participant's own cost may be lower)");
}

// Basic composition's split: k shares add up to at most the total (checked as doubles, the way the
// ledgers add them), and are the exact quotient or a few ulps below it.
TEST(PrivacyCostTest, SplitPureEpsilonFitsTheTotalExactly) {
  int stepped = 0;
  for (double total : {0.05, 0.1, 0.9, 1.0, 1.6, 3.3}) {
    for (int64_t parts : {1, 3, 7, 10, 49, 50, 1000}) {
      const double share = SplitPureEpsilon(total, parts);
      double sum = 0;
      for (int64_t t = 0; t < parts; ++t) sum += share;
      EXPECT_LE(sum, total) << total << " / " << parts;
      const double quotient = total / static_cast<double>(parts);
      EXPECT_LE(share, quotient);
      EXPECT_GE(share, quotient * (1 - 1e-12)) << total << " / " << parts;
      stepped += share < quotient ? 1 : 0;
    }
  }
  EXPECT_GT(stepped, 0);  // some quotients do overshoot (e.g. 7 x (0.1 / 7) > 0.1)
}

}  // namespace
}  // namespace fedmf::dp
