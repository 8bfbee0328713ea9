#include "common/dp/gaussian_projection.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "Eigen/Core"
#include "Eigen/LU"
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

// The recovery of a projection, which must be one.
ProjectionRecovery RecoveryOf(absl::StatusOr<GaussianProjection> phi) {
  EXPECT_TRUE(phi.ok()) << phi.status();
  return ProjectionRecovery::Create(std::make_shared<const GaussianProjection>(*std::move(phi)))
      .value();
}

TEST(GaussianProjectionTest, PseudoInverseIsARightInverse) {
  for (ProjectionEntries entries : {ProjectionEntries::kGaussian, ProjectionEntries::kRademacher}) {
    const ProjectionRecovery phi = RecoveryOf(GaussianProjection::Create(50, 10, 3, entries));
    const Eigen::MatrixXd pinv = phi.PseudoInverse();
    EXPECT_TRUE(
        (phi.projection().matrix() * pinv).isApprox(Eigen::MatrixXd::Identity(10, 10), 1e-10));
    EXPECT_TRUE(phi.Recover(Eigen::MatrixXd::Identity(10, 10))->isApprox(pinv, 1e-12));
    // The factorization uses half of Phi Phi^T: the other half's product gives the same.
    const Eigen::MatrixXd& m = phi.projection().matrix();
    const Eigen::MatrixXd full_gram_pinv = m.transpose() * (m * m.transpose()).inverse();
    EXPECT_TRUE(pinv.isApprox(full_gram_pinv, 1e-10));
  }
}

// Phi^+ Phi is the projector onto the row space of Phi: X = Phi^T W is recovered exactly, and a
// general X is mapped to the minimum-norm solution (its row-space component).
TEST(GaussianProjectionTest, RecoversRowSpaceMatricesAndGivesMinimumNorm) {
  const ProjectionRecovery recovery = RecoveryOf(GaussianProjection::Create(60, 12, 4));
  const GaussianProjection& phi = recovery.projection();
  Rng rng(1);
  const Eigen::MatrixXd in_row_space = phi.matrix().transpose() * RandomMatrix(12, 3, rng);
  EXPECT_TRUE(recovery.Recover(*phi.Apply(in_row_space))->isApprox(in_row_space, 1e-10));

  const Eigen::MatrixXd x = RandomMatrix(60, 3, rng);
  const Eigen::MatrixXd recovered = *recovery.Recover(*phi.Apply(x));
  EXPECT_TRUE((phi.matrix() * recovered).isApprox(phi.matrix() * x, 1e-10));
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
  const ProjectionRecovery recovery = RecoveryOf(GaussianProjection::Create(10, 4, 1));
  EXPECT_EQ(recovery.projection().Apply(Eigen::MatrixXd::Zero(9, 2)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(recovery.Recover(Eigen::MatrixXd::Zero(10, 2)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ProjectionRecovery::Create(nullptr).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Rademacher Phi with q = m = 2 is singular for some seeds (two equal or opposite rows).
TEST(GaussianProjectionTest, ReportsASingularGram) {
  bool saw_singular = false;
  for (uint64_t seed = 0; seed < 64 && !saw_singular; ++seed) {
    absl::StatusOr<GaussianProjection> phi =
        GaussianProjection::Create(2, 2, seed, ProjectionEntries::kRademacher);
    ASSERT_TRUE(phi.ok());  // a client needs Phi only: singular or not, it has it
    saw_singular =
        ProjectionRecovery::Create(std::make_shared<const GaussianProjection>(*std::move(phi)))
            .status()
            .code() == absl::StatusCode::kFailedPrecondition;
  }
  EXPECT_TRUE(saw_singular);
}

}  // namespace
}  // namespace fedmf::dp
