#include "common/dp/privacy_accountant.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/common/rdp_curve_util.h"

namespace fedmf::dp {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A release with an RDP analysis only, per user.
PrivacyCost RdpCost(std::vector<double> orders, std::vector<double> values) {
  return PrivacyCost::FromRdp(test_util::Curve(std::move(orders), std::move(values)),
                              PrivacyUnit::kUser);
}

using test_util::Pure;

TEST(PrivacyAccountantTest, StartsAtZeroOnTheDefaultGrid) {
  absl::StatusOr<PrivacyAccountant> acc = PrivacyAccountant::Create();
  ASSERT_TRUE(acc.ok());
  EXPECT_EQ(acc->spent().rdp().orders(), DefaultOrders());
  for (double v : acc->spent().rdp().values()) EXPECT_EQ(v, 0.0);
  EXPECT_EQ(acc->spent().pure_epsilon(), 0.0);
  EXPECT_FALSE(PrivacyAccountant::Create({}).ok());
}

TEST(PrivacyAccountantTest, ComposesAcrossMechanismsAndRounds) {
  absl::StatusOr<PrivacyAccountant> acc = PrivacyAccountant::Create({2, 4});
  ASSERT_TRUE(acc.ok());
  ASSERT_TRUE(acc->Compose(RdpCost({2, 4}, {0.125, 0.25}), 3).ok());
  ASSERT_TRUE(acc->Compose(RdpCost({2, 4}, {0.5, 2})).ok());
  EXPECT_THAT(acc->spent().rdp().values(), ElementsAre(0.875, 2.75));
  EXPECT_EQ(acc->Report(1e-5)->rdp_order2, 0.875);
  EXPECT_FALSE(acc->Compose(RdpCost({2, 4}, {1, 1}), -1).ok());
  EXPECT_THAT(acc->Compose(RdpCost({2, 5}, {1, 1})).message(), HasSubstr("different grids"));
  EXPECT_THAT(acc->spent().rdp().values(),
              ElementsAre(0.875, 2.75));  // failed calls changed nothing
}

// Budget 1 at alpha = 2, each step spends 0.125 there (exact in binary): 8 steps fit in total.
TEST(PrivacyAccountantTest, CanAffordAndAffordableCount) {
  absl::StatusOr<PrivacyAccountant> acc = PrivacyAccountant::Create({2, 4});
  ASSERT_TRUE(acc.ok());
  const PrivacyCost step = RdpCost({2, 4}, {0.125, 1});
  const PrivacyBudget budget = PrivacyBudget::Rdp(1.0);
  ASSERT_TRUE(acc->Compose(step, 3).ok());
  EXPECT_TRUE(*acc->CanAfford(step, budget, 5));
  EXPECT_FALSE(*acc->CanAfford(step, budget, 6));
  EXPECT_EQ(*acc->AffordableCount(step, budget, 1000), 5);
  EXPECT_EQ(*acc->AffordableCount(step, budget, 4), 4);
  EXPECT_EQ(*acc->AffordableCount(step, budget, 0), 0);
  EXPECT_EQ(*acc->AffordableCount(RdpCost({2, 4}, {0, 0}), budget, 77), 77);
  EXPECT_FALSE(acc->CanAfford(step, budget, -1).ok());
  EXPECT_FALSE(acc->AffordableCount(step, budget, -1).ok());
  // The order-4 budget is measured at order 4.
  EXPECT_EQ(*acc->AffordableCount(step, PrivacyBudget::Rdp(4.0, 4), 1000), 1);
}

TEST(PrivacyAccountantTest, NothingAffordableOnceOverBudget) {
  absl::StatusOr<PrivacyAccountant> acc = PrivacyAccountant::Create({2});
  ASSERT_TRUE(acc.ok());
  ASSERT_TRUE(acc->Compose(RdpCost({2}, {2.0})).ok());
  EXPECT_EQ(*acc->AffordableCount(RdpCost({2}, {0.0}), PrivacyBudget::Rdp(1.0), 10), 0);
}

// Pure budget 1, each step spends epsilon 0.25 (exact in binary): 4 steps fit, the 5th does not.
TEST(PrivacyAccountantTest, PureBudgetIsTheSumOfEpsilons) {
  absl::StatusOr<PrivacyAccountant> acc = PrivacyAccountant::Create({2, 4});
  ASSERT_TRUE(acc.ok());
  const PrivacyCost step = Pure(0.25, {2, 4});
  const PrivacyBudget budget = PrivacyBudget::PureDp(1.0);
  EXPECT_EQ(*acc->AffordableCount(step, budget, 1000), 4);
  ASSERT_TRUE(acc->Compose(step, 3).ok());
  EXPECT_EQ(acc->spent().pure_epsilon(), 0.75);
  EXPECT_TRUE(*acc->CanAfford(step, budget));
  EXPECT_FALSE(*acc->CanAfford(step, budget, 2));
  EXPECT_EQ(*acc->AffordableCount(step, budget, 1000), 1);
  // An RDP-only release has no pure bound: none fits a pure budget.
  EXPECT_EQ(*acc->AffordableCount(RdpCost({2, 4}, {0, 0}), budget, 1000), 0);
}

}  // namespace
}  // namespace fedmf::dp
