#include "common/dp/binary_rr.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "Eigen/Core"
#include "common/dp/rng.h"
#include "gtest/gtest.h"
#include "tests/unit/common/dp_test_stats.h"

namespace fedmf::dp {
namespace {

using testing::kSigmas;

// D (e^eps + 1) / (e^eps - 1) with e^eps = 3: 10 * 4 / 2 = 20.
TEST(BinaryRrTest, MagnitudeByHand) {
  EXPECT_NEAR(BinaryRrMagnitude(10, std::log(3.0)), 20, 1e-12);
}

// Reports (s, T) stand for +/- B e_s; two reports with index 1: +B and -B cancel, a third with
// index 0 positive gives B/3 in coordinate 0.
TEST(BinaryRrTest, EstimatorByHand) {
  const std::vector<BinaryRrReport> reports = {{1, true}, {1, false}, {0, true}};
  const Eigen::VectorXd mean = *BinaryRrEstimateMean(reports, 2, std::log(3.0));
  EXPECT_NEAR(mean[0], 4.0 / 3, 1e-12);  // B = 2 * 2 = 4
  EXPECT_EQ(mean[1], 0);
}

// Half the clients hold x, half x'; entries beyond [-1, 1] count as clamped. The estimate of the
// clients' mean is unbiased: per coordinate within 5 standard errors, with variance per report
// B^2/D - x_j^2 (each report is an independent draw).
TEST(BinaryRrTest, EstimateIsUnbiased) {
  const Eigen::Vector4d x(0.5, -1, 0.2, 2.0), x_prime(-0.5, 0.25, 0.2, -0.1);
  const Eigen::Vector4d clamped_mean = (x.cwiseMin(1) + x_prime) / 2;
  constexpr double kEpsilon = 1;
  constexpr int kClients = 200000;
  Rng rng(1);
  std::vector<BinaryRrReport> reports;
  for (int i = 0; i < kClients; ++i) {
    reports.push_back(*BinaryRrRandomize(i % 2 ? x : x_prime, kEpsilon, rng));
  }
  const Eigen::VectorXd estimate = *BinaryRrEstimateMean(reports, 4, kEpsilon);
  const double b = BinaryRrMagnitude(4, kEpsilon);
  for (int j = 0; j < 4; ++j) {
    const double second_moment = b * b / 4;  // E[report_j^2], the same for every client
    const double se =
        std::sqrt(second_moment - clamped_mean[j] * clamped_mean[j]) / std::sqrt(double{kClients});
    EXPECT_NEAR(estimate[j], clamped_mean[j], kSigmas * se) << j;
  }
}

TEST(BinaryRrTest, RejectsBadInputsAndReports) {
  Rng rng(2);
  EXPECT_FALSE(BinaryRrRandomize(Eigen::VectorXd(0), 1, rng).ok());
  EXPECT_FALSE(BinaryRrRandomize(Eigen::Vector2d(0, 0), 0, rng).ok());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(BinaryRrRandomize(Eigen::Vector2d(nan, nan), 1, rng).ok());
  EXPECT_FALSE(BinaryRrEstimateMean({}, 2, 1).ok());
  const std::vector<BinaryRrReport> bad_high = {{2, true}}, bad_low = {{-1, true}};
  EXPECT_EQ(BinaryRrEstimateMean(bad_high, 2, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(BinaryRrEstimateMean(bad_low, 2, 1).ok());
  const std::vector<BinaryRrReport> ok = {{0, true}};
  EXPECT_FALSE(BinaryRrEstimateMean(ok, 2, -1).ok());
}

}  // namespace
}  // namespace fedmf::dp
