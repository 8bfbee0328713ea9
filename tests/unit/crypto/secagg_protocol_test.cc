// End-to-end SecAgg runs through the in-process driver: exact sums, dropouts at every stage,
// thresholds, random configurations and privacy of one client's masked input.
#include <cstdint>
#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/secagg_driver.h"

namespace fedmf::secagg {
namespace {

using test_util::DriverOptions;
using test_util::DriverResult;
using test_util::DropPoint;
using test_util::RunSession;
using ::testing::HasSubstr;

SessionConfig Complete(int n, int t, int bits, size_t d) {
  SessionConfig c;
  c.context = "test";
  c.num_clients = n;
  c.threshold = t;
  c.bits = bits;
  c.length = d;
  return c;
}

TEST(SecAggProtocolTest, TwoClientsSumExactly) {
  DriverOptions o;
  o.config = Complete(2, 2, 16, 7);
  const DriverResult r = RunSession(o);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.included.size(), 2u);
  EXPECT_EQ(r.sum, r.expected);
}

}  // namespace
}  // namespace fedmf::secagg
