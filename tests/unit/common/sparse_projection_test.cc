#include "common/dp/sparse_projection.h"

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
using testing::FrequencySe;
using testing::kSigmas;
using testing::Moments;

using testing::RandomMatrix;

// h and sigma for seed 42, m = 6, p = 3, computed from the SplitMix64 definition in the header
// by an independent script: h = (0, 2, 0, 2, 2, 0), sigma = (+, -, +, +, +, -).
TEST(SparseProjectionTest, HashesFollowTheSpecifiedSplitMix64Streams) {
  absl::StatusOr<SparseProjection> s = SparseProjection::Create(6, 3, 42);
  ASSERT_TRUE(s.ok());
  const std::vector<int64_t> buckets = {0, 2, 0, 2, 2, 0};
  const std::vector<int> signs = {1, -1, 1, 1, 1, -1};
  for (int64_t j = 0; j < 6; ++j) {
    EXPECT_EQ(s->bucket(j), buckets[j]) << j;
    EXPECT_EQ(s->sign(j), signs[j]) << j;
  }
}

// With the hashes above: (S X)_0 = x0 + x2 - x5, (S X)_1 = 0, (S X)_2 = -x1 + x3 + x4.
TEST(SparseProjectionTest, ApplyAndTransposeByHand) {
  absl::StatusOr<SparseProjection> s = SparseProjection::Create(6, 3, 42);
  ASSERT_TRUE(s.ok());
  Eigen::MatrixXd x(6, 2);
  x << 1, 0.5, 2, -1, 3, 0, 4, 2, 5, 0, 6, 1;
  Eigen::MatrixXd expected(3, 2);
  expected << -2, -0.5, 0, 0, 7, 3;
  absl::StatusOr<Eigen::MatrixXd> sx = s->Apply(x);
  ASSERT_TRUE(sx.ok());
  EXPECT_EQ(*sx, expected);

  Eigen::MatrixXd y(3, 2);
  y << 1, 2, 3, 4, 5, 6;
  Eigen::MatrixXd expected_t(6, 2);
  expected_t << 1, 2, -5, -6, 1, 2, 5, 6, 5, 6, -1, -2;
  absl::StatusOr<Eigen::MatrixXd> sty = s->ApplyTranspose(y);
  ASSERT_TRUE(sty.ok());
  EXPECT_EQ(*sty, expected_t);
}

TEST(SparseProjectionTest, RejectsBadShapes) {
  EXPECT_FALSE(SparseProjection::Create(0, 3, 1).ok());
  EXPECT_FALSE(SparseProjection::Create(5, 0, 1).ok());
  EXPECT_FALSE(SparseProjection::Create(int64_t{1} << 31, 3, 1).ok());
  absl::StatusOr<SparseProjection> s = SparseProjection::Create(5, 2, 1);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->Apply(Eigen::MatrixXd::Zero(4, 2)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s->ApplyTranspose(Eigen::MatrixXd::Zero(5, 2)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// h uniform on [p] and sigma fair: bucket counts ~ Binomial(m, 1/p), sign counts ~ Binomial(m,
// 1/2).
TEST(SparseProjectionTest, BucketsUniformAndSignsBalanced) {
  constexpr int64_t kM = 100000, kP = 7;
  absl::StatusOr<SparseProjection> s = SparseProjection::Create(kM, kP, 2024);
  ASSERT_TRUE(s.ok());
  std::vector<int> counts(kP, 0);
  int positive = 0;
  for (int64_t j = 0; j < kM; ++j) {
    ++counts[s->bucket(j)];
    positive += s->sign(j) > 0 ? 1 : 0;
  }
  for (int c : counts) EXPECT_NEAR(c / double{kM}, 1.0 / kP, kSigmas * FrequencySe(1.0 / kP, kM));
  EXPECT_NEAR(positive / double{kM}, 0.5, kSigmas * FrequencySe(0.5, kM));
}

// DPMF-RP Lemma 5.1. For pairwise independent h, sigma: E||S^T S X - X||_F^2 = (m-1)/p ||X||_F^2
// exactly (each other row lands in a row's bucket with probability 1/p, cross terms cancel), which
// is below the lemma's 2m/p ||X||_F^2. Averaged over 2000 seeds, within 5 standard errors.
TEST(SparseProjectionTest, Lemma51ProjectionErrorOverSeeds) {
  constexpr int64_t kM = 200, kP = 20, kK = 3;
  Rng rng(5);
  const Eigen::MatrixXd x = RandomMatrix(kM, kK, rng);
  std::vector<double> errors;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    absl::StatusOr<SparseProjection> s = SparseProjection::Create(kM, kP, seed);
    ASSERT_TRUE(s.ok());
    errors.push_back((*s->ApplyTranspose(*s->Apply(x)) - x).squaredNorm());
  }
  const Moments m = ComputeMoments(errors);
  const double norm2 = x.squaredNorm();
  EXPECT_NEAR(m.mean, (kM - 1) / double{kP} * norm2, kSigmas * m.mean_se);
  EXPECT_LE(m.mean, 2.0 * kM / kP * norm2);
}

// DPMF-RP Lemma 4.2: ||S A - S A'||_{1,1} <= ||A - A'||_{1,1}, for random inputs and seeds.
TEST(SparseProjectionTest, Lemma42ProjectionDoesNotIncreaseL1Distance) {
  Rng rng(6);
  for (uint64_t seed = 0; seed < 200; ++seed) {
    absl::StatusOr<SparseProjection> s = SparseProjection::Create(37, 5, seed);
    ASSERT_TRUE(s.ok());
    const Eigen::MatrixXd a = RandomMatrix(37, 4, rng), b = RandomMatrix(37, 4, rng);
    const double projected = (*s->Apply(a) - *s->Apply(b)).cwiseAbs().sum();
    EXPECT_LE(projected, (a - b).cwiseAbs().sum() * (1 + 1e-12));
  }
}

TEST(SparseProjectionTest, MatchesTheDenseMatrixItDefines) {
  absl::StatusOr<SparseProjection> s = SparseProjection::Create(30, 8, 77);
  ASSERT_TRUE(s.ok());
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(8, 30);
  for (int64_t j = 0; j < 30; ++j) dense(s->bucket(j), j) = s->sign(j);
  Rng rng(7);
  const Eigen::MatrixXd x = RandomMatrix(30, 3, rng), y = RandomMatrix(8, 3, rng);
  EXPECT_TRUE(s->Apply(x)->isApprox(dense * x, 1e-14));
  EXPECT_TRUE(s->ApplyTranspose(y)->isApprox(dense.transpose() * y, 1e-14));
}

}  // namespace
}  // namespace fedmf::dp
