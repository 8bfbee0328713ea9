#include "common/algorithms/lib/fmf_sgd/embedding_clip.h"

#include <cmath>
#include <limits>

#include "Eigen/Core"
#include "common/dp/rng.h"
#include "common/dp/samplers.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms::fmf_sgd {
namespace {

// Dykstra's alternating projections onto the ball ||y|| <= r and the orthant y >= 0 converge to
// the projection onto their intersection (Boyle and Dykstra 1986): the brute-force reference,
// independent of the closed form's order of steps.
Eigen::VectorXd Dykstra(const Eigen::VectorXd& x, double r) {
  Eigen::VectorXd current = x;
  Eigen::VectorXd p = Eigen::VectorXd::Zero(x.size());
  Eigen::VectorXd q = Eigen::VectorXd::Zero(x.size());
  for (int iteration = 0; iteration < 200000; ++iteration) {
    const Eigen::VectorXd a = current + p;
    const Eigen::VectorXd y = a.norm() > r ? Eigen::VectorXd(a * (r / a.norm())) : a;
    p = a - y;
    const Eigen::VectorXd b = y + q;
    const Eigen::VectorXd next = b.cwiseMax(0.0);
    q = b - next;
    const double change = (next - current).norm();
    current = next;
    if (change < 1e-15 && iteration > 10) break;
  }
  return current;
}

Eigen::VectorXd RandomPoint(dp::Rng& rng, int64_t dim, double scale) {
  Eigen::VectorXd x(dim);
  for (int64_t k = 0; k < dim; ++k) x[k] = scale * dp::StandardNormal(rng);
  return x;
}

// A random point of the feasible set: a non-negative direction at a radius in [0, sqrt(R)].
Eigen::VectorXd RandomFeasible(dp::Rng& rng, int64_t dim, double rating_max) {
  Eigen::VectorXd z = RandomPoint(rng, dim, 1).cwiseAbs();
  if (dp::Bernoulli(rng, 0.3)) z[static_cast<Eigen::Index>(dp::UniformInt(rng, dim))] = 0;
  const double norm = z.norm();
  if (norm == 0) return z;
  return z * (std::sqrt(rating_max) * dp::UniformUnit(rng) / norm);
}

TEST(FmfEmbeddingClipTest, EqualsDykstrasProjectionOnRandomPoints) {
  dp::Rng rng(7);
  for (int trial = 0; trial < 600; ++trial) {
    const int64_t dim = 1 + static_cast<int64_t>(dp::UniformInt(rng, 8));
    const double rating_max = trial % 3 == 0 ? 1 : (trial % 3 == 1 ? 5 : 10);
    const double scale = std::pow(10.0, -1 + 2 * dp::UniformUnit(rng));  // inside and outside
    const Eigen::VectorXd x = RandomPoint(rng, dim, scale);
    const Eigen::VectorXd pi = *ProjectEmbedding(x, rating_max);
    const Eigen::VectorXd reference = Dykstra(x, std::sqrt(rating_max));
    ASSERT_LE((pi - reference).norm(), 1e-9) << "trial " << trial << " x=" << x.transpose();
  }
}

// Pi(x) is the projection onto a convex set C iff Pi(x) is in C and <x - Pi(x), z - Pi(x)> <= 0
// for every z in C.
TEST(FmfEmbeddingClipTest, SatisfiesTheProjectionInequality) {
  dp::Rng rng(8);
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t dim = 1 + static_cast<int64_t>(dp::UniformInt(rng, 20));
    const double rating_max = 5;
    const Eigen::VectorXd x = RandomPoint(rng, dim, 2);
    const Eigen::VectorXd pi = *ProjectEmbedding(x, rating_max);
    ASSERT_GE(pi.minCoeff(), 0) << trial;
    ASSERT_LE(pi.norm(), std::sqrt(rating_max)) << trial;  // exactly, in floating point
    for (int k = 0; k < 50; ++k) {
      const Eigen::VectorXd z = RandomFeasible(rng, dim, rating_max);
      ASSERT_LE((x - pi).dot(z - pi), 1e-12) << trial;
    }
  }
}

TEST(FmfEmbeddingClipTest, LeavesFeasiblePointsAndProjectsRows) {
  dp::Rng rng(9);
  for (int trial = 0; trial < 100; ++trial) {
    const Eigen::VectorXd z = RandomFeasible(rng, 6, 5);
    EXPECT_EQ(*ProjectEmbedding(z, 5), z);
  }
  Eigen::MatrixXd rows(2, 2);
  rows << -1, 2,  // -> (0, 2), inside sqrt(5)
      3, 4;       // -> (3, 4) * sqrt(5) / 5
  ASSERT_TRUE(ProjectRows(rows, 5).ok());
  EXPECT_EQ(rows(0, 0), 0);
  EXPECT_EQ(rows(0, 1), 2);
  EXPECT_NEAR(rows(1, 0), 3 * std::sqrt(5.0) / 5, 1e-15);
  EXPECT_NEAR(rows(1, 1), 4 * std::sqrt(5.0) / 5, 1e-15);
}

TEST(FmfEmbeddingClipTest, GradientBoundIsTwoRToTheThreeHalves) {
  EXPECT_DOUBLE_EQ(RatingGradientBound(5), 2 * 5 * std::sqrt(5.0));
  EXPECT_DOUBLE_EQ(RatingGradientBound(1), 2);
}

TEST(FmfEmbeddingClipTest, RejectsBadInput) {
  const Eigen::VectorXd x = Eigen::VectorXd::Ones(3);
  EXPECT_EQ(ProjectEmbedding(x, 0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ProjectEmbedding(x, -1).status().code(), absl::StatusCode::kInvalidArgument);
  Eigen::VectorXd nan = x;
  nan[1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(ProjectEmbedding(nan, 5).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::algorithms::fmf_sgd
