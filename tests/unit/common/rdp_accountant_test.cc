#include "common/dp/rdp_accountant.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::dp {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

RdpCurve Curve(std::vector<double> orders, std::vector<double> values) {
  absl::StatusOr<RdpCurve> c = RdpCurve::Create(std::move(orders), std::move(values));
  EXPECT_TRUE(c.ok()) << c.status();
  return *c;
}

TEST(RdpAccountantTest, StartsAtZeroOnTheDefaultGrid) {
  absl::StatusOr<RdpAccountant> acc = RdpAccountant::Create();
  ASSERT_TRUE(acc.ok());
  EXPECT_EQ(acc->spent().orders(), DefaultOrders());
  for (double v : acc->spent().values()) EXPECT_EQ(v, 0.0);
  EXPECT_FALSE(RdpAccountant::Create({}).ok());
}

TEST(RdpAccountantTest, ComposesAcrossMechanismsAndRounds) {
  absl::StatusOr<RdpAccountant> acc = RdpAccountant::Create({2, 4});
  ASSERT_TRUE(acc.ok());
  ASSERT_TRUE(acc->Compose(Curve({2, 4}, {0.125, 0.25}), 3).ok());
  ASSERT_TRUE(acc->Compose(Curve({2, 4}, {0.5, 2})).ok());
  EXPECT_THAT(acc->spent().values(), ElementsAre(0.875, 2.75));
  EXPECT_EQ(acc->Report(1e-5)->rdp_order2, 0.875);
  EXPECT_FALSE(acc->Compose(Curve({2, 4}, {1, 1}), -1).ok());
  EXPECT_THAT(acc->Compose(Curve({2, 5}, {1, 1})).message(), HasSubstr("different grids"));
  EXPECT_THAT(acc->spent().values(), ElementsAre(0.875, 2.75));  // failed calls changed nothing
}

// Budget 1 at alpha = 2, each step spends 0.125 there (exact in binary): 8 steps fit in total.
TEST(RdpAccountantTest, CanAffordAndAffordableCount) {
  absl::StatusOr<RdpAccountant> acc = RdpAccountant::Create({2, 4});
  ASSERT_TRUE(acc.ok());
  const RdpCurve step = Curve({2, 4}, {0.125, 1});
  const PrivacyBudget budget = PrivacyBudget::Rdp(1.0);
  ASSERT_TRUE(acc->Compose(step, 3).ok());
  EXPECT_TRUE(*acc->CanAfford(step, budget, 5));
  EXPECT_FALSE(*acc->CanAfford(step, budget, 6));
  EXPECT_EQ(*acc->AffordableCount(step, budget, 1000), 5);
  EXPECT_EQ(*acc->AffordableCount(step, budget, 4), 4);
  EXPECT_EQ(*acc->AffordableCount(step, budget, 0), 0);
  EXPECT_EQ(*acc->AffordableCount(Curve({2, 4}, {0, 0}), budget, 77), 77);
  EXPECT_FALSE(acc->CanAfford(step, budget, -1).ok());
  EXPECT_FALSE(acc->AffordableCount(step, budget, -1).ok());
  // The order-4 budget is measured at order 4.
  EXPECT_EQ(*acc->AffordableCount(step, PrivacyBudget::Rdp(4.0, 4), 1000), 1);
}

TEST(RdpAccountantTest, NothingAffordableOnceOverBudget) {
  absl::StatusOr<RdpAccountant> acc = RdpAccountant::Create({2});
  ASSERT_TRUE(acc.ok());
  ASSERT_TRUE(acc->Compose(Curve({2}, {2.0})).ok());
  EXPECT_EQ(*acc->AffordableCount(Curve({2}, {0.0}), PrivacyBudget::Rdp(1.0), 10), 0);
}

}  // namespace
}  // namespace fedmf::dp
