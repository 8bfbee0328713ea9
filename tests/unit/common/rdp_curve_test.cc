#include "common/dp/rdp_curve.h"

#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/common/rdp_curve_util.h"

namespace fedmf::dp {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using test_util::kInf;

TEST(RdpCurveTest, DefaultOrdersAreAValidGridContainingTwo) {
  const std::vector<double> orders = DefaultOrders();
  EXPECT_TRUE(ValidateOrders(orders).ok());
  EXPECT_THAT(orders, ::testing::Contains(2.0));
  EXPECT_EQ(orders.front(), 1.05);
  EXPECT_EQ(orders.back(), 1024.0);
}

TEST(RdpCurveTest, ValidateOrdersRejectsBadGrids) {
  EXPECT_THAT(ValidateOrders({}).message(), HasSubstr("empty"));
  EXPECT_THAT(ValidateOrders({1.0, 2.0}).message(), HasSubstr("#0"));
  EXPECT_THAT(ValidateOrders({2.0, 2.0}).message(), HasSubstr("strictly increasing"));
  EXPECT_FALSE(ValidateOrders({2.0, kInf}).ok());
  EXPECT_FALSE(ValidateOrders({std::nan("")}).ok());
}

TEST(RdpCurveTest, CreateValidatesValues) {
  EXPECT_TRUE(RdpCurve::Create({2, 3}, {0.5, kInf}).ok());
  EXPECT_THAT(RdpCurve::Create({2, 3}, {0.5}).status().message(), HasSubstr("1 values for 2"));
  EXPECT_THAT(RdpCurve::Create({2, 3}, {0.5, -1}).status().message(), HasSubstr("order 3"));
  EXPECT_FALSE(RdpCurve::Create({2}, {std::nan("")}).ok());
}

TEST(RdpCurveTest, AtReadsExactOrdersOnly) {
  absl::StatusOr<RdpCurve> curve = RdpCurve::Create({1.5, 2}, {0.25, 0.75});
  ASSERT_TRUE(curve.ok());
  EXPECT_EQ(*curve->At(2), 0.75);
  EXPECT_EQ(curve->At(3).status().code(), absl::StatusCode::kNotFound);
}

TEST(RdpCurveTest, ComposeAddsOrderByOrder) {
  absl::StatusOr<RdpCurve> total = RdpCurve::Create({2, 4}, {1, 2});
  absl::StatusOr<RdpCurve> step = RdpCurve::Create({2, 4}, {0.5, 1});
  ASSERT_TRUE(total.ok() && step.ok());
  ASSERT_TRUE(total->Compose(*step, 3).ok());
  EXPECT_THAT(total->values(), ElementsAre(2.5, 5));
}

TEST(RdpCurveTest, ComposeRejectsOtherGridsAndBadCounts) {
  absl::StatusOr<RdpCurve> total = RdpCurve::Create({2, 4}, {1, 2});
  absl::StatusOr<RdpCurve> other = RdpCurve::Create({2, 5}, {1, 2});
  ASSERT_TRUE(total.ok() && other.ok());
  EXPECT_THAT(total->Compose(*other).message(), HasSubstr("different grids"));
  EXPECT_FALSE(total->Compose(*total, -1).ok());
  EXPECT_FALSE(total->Compose(*total, kInf).ok());
}

TEST(RdpCurveTest, ComposingAnInfiniteCurveZeroTimesAddsNothing) {
  absl::StatusOr<RdpCurve> total = RdpCurve::Zero({2});
  absl::StatusOr<RdpCurve> blatant = RdpCurve::Create({2}, {kInf});
  ASSERT_TRUE(total.ok() && blatant.ok());
  ASSERT_TRUE(total->Compose(*blatant, 0).ok());
  EXPECT_THAT(total->values(), ElementsAre(0.0));
  ASSERT_TRUE(total->Compose(*blatant, 1).ok());
  EXPECT_THAT(total->values(), ElementsAre(kInf));
}

TEST(RdpCurveTest, FromFunctionEvaluatesEveryOrderAndPropagatesErrors) {
  absl::StatusOr<RdpCurve> curve =
      RdpCurve::FromFunction({2, 3}, [](double a) -> absl::StatusOr<double> { return a / 10; });
  ASSERT_TRUE(curve.ok());
  EXPECT_THAT(curve->values(), ElementsAre(0.2, 0.3));
  absl::StatusOr<RdpCurve> failed = RdpCurve::FromFunction(
      {2, 3}, [](double) -> absl::StatusOr<double> { return absl::InternalError("boom"); });
  EXPECT_EQ(failed.status().message(), "boom");
}

}  // namespace
}  // namespace fedmf::dp
