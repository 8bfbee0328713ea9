#include "common/dp/clipping.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "Eigen/Core"
#include "common/dp/rng.h"
#include "common/dp/samplers.h"
#include "gtest/gtest.h"

namespace fedmf::dp {
namespace {

TEST(ClippingTest, LeavesShortVectorsUnchanged) {
  const Eigen::Vector3d x(0.3, -0.4, 0);
  EXPECT_EQ(*ClipL2(x, 0.5), x);  // norm exactly 0.5
  EXPECT_EQ(*ClipL1(x, 0.7), x);
}

// (3, 4) has L2 norm 5 and L1 norm 7.
TEST(ClippingTest, ScalesLongVectorsByHand) {
  const Eigen::Vector2d x(3, 4);
  const Eigen::VectorXd l2 = *ClipL2(x, 1);
  EXPECT_NEAR(l2[0], 0.6, 1e-15);
  EXPECT_NEAR(l2[1], 0.8, 1e-15);
  const Eigen::VectorXd l1 = *ClipL1(x, 1);
  EXPECT_NEAR(l1[0], 3.0 / 7, 1e-15);
  EXPECT_NEAR(l1[1], 4.0 / 7, 1e-15);
}

// Property: over random vectors with entries from 1e-300 to 1e200 and random bounds, the computed
// norm of the clipped vector never exceeds the bound, and the direction is kept.
TEST(ClippingTest, NeverExceedsTheBound) {
  Rng rng(1);
  for (int trial = 0; trial < 5000; ++trial) {
    const int64_t d = 1 + static_cast<int64_t>(UniformInt(rng, 50));
    const double magnitude = std::pow(10.0, -300 + 500 * UniformUnit(rng));
    Eigen::VectorXd x(d);
    for (int64_t j = 0; j < d; ++j) x[j] = magnitude * StandardNormal(rng);
    const double c = std::pow(10.0, -5 + 10 * UniformUnit(rng));
    const Eigen::VectorXd l2 = *ClipL2(x, c);
    const Eigen::VectorXd l1 = *ClipL1(x, c);
    ASSERT_LE(l2.norm(), c) << trial;
    ASSERT_LE(l1.lpNorm<1>(), c) << trial;
    if (x.norm() > c) {
      ASSERT_NEAR(l2.norm(), c, 1e-12 * c) << trial;  // clipped onto the sphere, not inside it
    }
    for (int64_t j = 0; j < d; ++j) {
      ASSERT_TRUE(l2[j] == 0 || std::signbit(l2[j]) == std::signbit(x[j]));
    }
  }
}

TEST(ClippingTest, RejectsNonFiniteInputsAndBounds) {
  Eigen::Vector2d x(1, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(ClipL2(x, 1).status().code(), absl::StatusCode::kInvalidArgument);
  x[1] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(ClipL1(x, 1).status().code(), absl::StatusCode::kInvalidArgument);
  const Eigen::Vector2d ok(1, 2);
  EXPECT_FALSE(ClipL2(ok, 0).ok());
  EXPECT_FALSE(ClipL2(ok, -1).ok());
  EXPECT_FALSE(ClipL1(ok, std::numeric_limits<double>::infinity()).ok());
}

}  // namespace
}  // namespace fedmf::dp
