// Test helpers: RDP curves and pure-DP costs the test knows to be valid (a failure to build one
// fails the test), and the infinite epsilon they may hold.
#ifndef FEDMF_TESTS_UNIT_COMMON_RDP_CURVE_UTIL_H_
#define FEDMF_TESTS_UNIT_COMMON_RDP_CURVE_UTIL_H_

#include <limits>
#include <utility>
#include <vector>

#include "common/dp/privacy_cost.h"
#include "common/dp/rdp_curve.h"
#include "gtest/gtest.h"

namespace fedmf::dp::test_util {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline RdpCurve Curve(std::vector<double> orders, std::vector<double> values) {
  absl::StatusOr<RdpCurve> c = RdpCurve::Create(std::move(orders), std::move(values));
  EXPECT_TRUE(c.ok()) << c.status();
  return *c;
}

inline PrivacyCost Pure(double epsilon, std::vector<double> orders,
                        PrivacyUnit unit = PrivacyUnit::kUser) {
  absl::StatusOr<PrivacyCost> c = PrivacyCost::FromPureDp(epsilon, std::move(orders), unit);
  EXPECT_TRUE(c.ok()) << c.status();
  return *c;
}

}  // namespace fedmf::dp::test_util

#endif  // FEDMF_TESTS_UNIT_COMMON_RDP_CURVE_UTIL_H_
