#include "common/dp/gaussian_projection.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "common/dp/rng.h"
#include "common/dp/samplers.h"
#include "gtest/gtest.h"
#include "tests/unit/common/dp_test_stats.h"
#include "tests/unit/common/random_matrix.h"

namespace fedmf::dp {
namespace {

using testing::ComputeMoments;
using testing::kSigmas;
using testing::Moments;

using testing::RandomMatrix;

TEST(GaussianProjectionTest, PseudoInverseIsARightInverse) {
  for (ProjectionEntries entries : {ProjectionEntries::kGaussian, ProjectionEntries::kRademacher}) {
    absl::StatusOr<GaussianProjection> phi = GaussianProjection::Create(50, 10, 3, entries);
    ASSERT_TRUE(phi.ok()) << phi.status();
    const Eigen::MatrixXd pinv = phi->PseudoInverse();
    EXPECT_TRUE((phi->matrix() * pinv).isApprox(Eigen::MatrixXd::Identity(10, 10), 1e-10));
    EXPECT_TRUE(phi->Recover(Eigen::MatrixXd::Identity(10, 10))->isApprox(pinv, 1e-12));
  }
}

// Phi^+ Phi is the projector onto the row space of Phi: X = Phi^T W is recovered exactly, and a
// general X is mapped to the minimum-norm solution (its row-space component).
TEST(GaussianProjectionTest, RecoversRowSpaceMatricesAndGivesMinimumNorm) {
  absl::StatusOr<GaussianProjection> phi = GaussianProjection::Create(60, 12, 4);
  ASSERT_TRUE(phi.ok());
  Rng rng(1);
  const Eigen::MatrixXd in_row_space = phi->matrix().transpose() * RandomMatrix(12, 3, rng);
  EXPECT_TRUE(phi->Recover(*phi->Apply(in_row_space))->isApprox(in_row_space, 1e-10));

  const Eigen::MatrixXd x = RandomMatrix(60, 3, rng);
  const Eigen::MatrixXd recovered = *phi->Recover(*phi->Apply(x));
  EXPECT_TRUE((phi->matrix() * recovered).isApprox(phi->matrix() * x, 1e-10));
  EXPECT_LT(recovered.norm(), x.norm());
  // x - recovered lies in the null space, orthogonal to the recovered part.
  EXPECT_NEAR((x - recovered).cwiseProduct(recovered).sum(), 0, 1e-9 * x.squaredNorm());
}

// 10000 Gaussian entries of variance 1/q: mean 0 and variance 1/q within 5 standard errors.
TEST(GaussianProjectionTest, GaussianEntriesHaveVarianceOneOverQ) {
  constexpr int64_t kQ = 25;
  absl::StatusOr<GaussianProjection> phi = GaussianProjection::Create(400, kQ, 5);
  ASSERT_TRUE(phi.ok());
  const Eigen::MatrixXd& m = phi->matrix();
  const std::vector<double> entries(m.data(), m.data() + m.size());
  const Moments mo = ComputeMoments(entries);
  EXPECT_NEAR(mo.mean, 0, kSigmas * mo.mean_se);
  EXPECT_NEAR(mo.variance, 1.0 / kQ, kSigmas * mo.variance_se);
}

TEST(GaussianProjectionTest, RademacherEntriesArePlusMinusOneOverSqrtQ) {
  absl::StatusOr<GaussianProjection> phi =
      GaussianProjection::Create(64, 16, 6, ProjectionEntries::kRademacher);
  ASSERT_TRUE(phi.ok());
  EXPECT_EQ(phi->matrix().cwiseAbs(), Eigen::MatrixXd::Constant(16, 64, 0.25));
}

TEST(GaussianProjectionTest, SeedDeterminesTheMatrix) {
  const Eigen::MatrixXd a = GaussianProjection::Create(20, 5, 9)->matrix();
  EXPECT_EQ(a, GaussianProjection::Create(20, 5, 9)->matrix());
  EXPECT_NE(a, GaussianProjection::Create(20, 5, 10)->matrix());
}

TEST(GaussianProjectionTest, RejectsBadShapes) {
  EXPECT_FALSE(GaussianProjection::Create(10, 0, 1).ok());
  EXPECT_FALSE(GaussianProjection::Create(10, 11, 1).ok());
  absl::StatusOr<GaussianProjection> phi = GaussianProjection::Create(10, 4, 1);
  ASSERT_TRUE(phi.ok());
  EXPECT_EQ(phi->Apply(Eigen::MatrixXd::Zero(9, 2)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(phi->Recover(Eigen::MatrixXd::Zero(10, 2)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Rademacher Phi with q = m = 2 is singular for some seeds (two equal or opposite rows).
TEST(GaussianProjectionTest, ReportsASingularGram) {
  bool saw_singular = false;
  for (uint64_t seed = 0; seed < 64 && !saw_singular; ++seed) {
    absl::StatusOr<GaussianProjection> phi =
        GaussianProjection::Create(2, 2, seed, ProjectionEntries::kRademacher);
    saw_singular = phi.status().code() == absl::StatusCode::kFailedPrecondition;
  }
  EXPECT_TRUE(saw_singular);
}

}  // namespace
}  // namespace fedmf::dp
