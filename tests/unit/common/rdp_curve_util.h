// Test helper: an RdpCurve the test knows to be valid (a failure to build it fails the test).
#ifndef FEDMF_TESTS_UNIT_COMMON_RDP_CURVE_UTIL_H_
#define FEDMF_TESTS_UNIT_COMMON_RDP_CURVE_UTIL_H_

#include <utility>
#include <vector>

#include "common/dp/rdp_curve.h"
#include "gtest/gtest.h"

namespace fedmf::dp::test_util {

inline RdpCurve Curve(std::vector<double> orders, std::vector<double> values) {
  absl::StatusOr<RdpCurve> c = RdpCurve::Create(std::move(orders), std::move(values));
  EXPECT_TRUE(c.ok()) << c.status();
  return *c;
}

}  // namespace fedmf::dp::test_util

#endif  // FEDMF_TESTS_UNIT_COMMON_RDP_CURVE_UTIL_H_
