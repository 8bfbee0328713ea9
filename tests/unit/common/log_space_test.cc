#include "common/dp/log_space.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace fedmf::dp {
namespace {

TEST(LogSpaceTest, LogAddAddsInLinearSpace) {
  EXPECT_NEAR(LogAdd(std::log(2.0), std::log(3.0)), std::log(5.0), 1e-15);
  EXPECT_EQ(LogAdd(kLogZero, 1.5), 1.5);
  EXPECT_EQ(LogAdd(1.5, kLogZero), 1.5);
  EXPECT_EQ(LogAdd(kLogZero, kLogZero), kLogZero);
  // No overflow: e^1000 + e^1000 = e^(1000 + log 2).
  EXPECT_NEAR(LogAdd(1000, 1000), 1000 + std::log(2.0), 1e-12);
}

TEST(LogSpaceTest, LogSumExpHandlesEmptyAndHugeTerms) {
  EXPECT_EQ(LogSumExp({}), kLogZero);
  const std::vector<double> huge = {1000, 1000, 1000, 1000};
  EXPECT_NEAR(LogSumExp(huge), 1000 + std::log(4.0), 1e-12);
  const std::vector<double> mixed = {std::log(1.0), std::log(2.0), kLogZero, std::log(7.0)};
  EXPECT_NEAR(LogSumExp(mixed), std::log(10.0), 1e-15);
  const std::vector<double> with_inf = {0, std::numeric_limits<double>::infinity()};
  EXPECT_EQ(LogSumExp(with_inf), std::numeric_limits<double>::infinity());
}

// Reference values: mpmath at 40 digits, log(erfc(x)).
TEST(LogSpaceTest, LogErfcMatchesHighPrecisionValues) {
  EXPECT_NEAR(LogErfc(0.0), 0.0, 1e-15);
  EXPECT_NEAR(LogErfc(1.0), -1.849605509933248, 1e-14);
  EXPECT_NEAR(LogErfc(-2.0), 0.6908055736465877, 1e-14);
  // Around and beyond the switch to the asymptotic series (erfc(30) underflows a double).
  EXPECT_NEAR(LogErfc(25.0) / -628.7920391740717, 1.0, 1e-14);
  EXPECT_NEAR(LogErfc(26.0) / -679.8311997631942, 1.0, 1e-14);
  EXPECT_NEAR(LogErfc(30.0) / -903.9741171106439, 1.0, 1e-14);
}

TEST(LogSpaceTest, LogBinomial) {
  EXPECT_NEAR(LogBinomial(5, 2), std::log(10.0), 1e-14);
  EXPECT_NEAR(LogBinomial(52, 5), std::log(2598960.0), 1e-12);
  EXPECT_EQ(LogBinomial(10, 0), 0.0);
  EXPECT_EQ(LogBinomial(10, 10), 0.0);
  EXPECT_EQ(LogBinomial(10, 11), kLogZero);
  EXPECT_EQ(LogBinomial(10, -1), kLogZero);
}

TEST(LogSpaceTest, Log1pExpNeverOverflows) {
  EXPECT_NEAR(Log1pExp(0.0), std::log(2.0), 1e-15);
  EXPECT_EQ(Log1pExp(1000.0), 1000.0);
  EXPECT_NEAR(Log1pExp(-40.0) / std::exp(-40.0), 1.0, 1e-12);
  EXPECT_NEAR(Log1pExp(31.0), 31.0 + std::exp(-31.0), 1e-14);
}

}  // namespace
}  // namespace fedmf::dp
