#include "common/dp/hadamard.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "common/dp/rng.h"
#include "common/dp/samplers.h"
#include "gtest/gtest.h"
#include "tests/unit/common/random_matrix.h"

namespace fedmf::dp {
namespace {

using testing::RandomMatrix;

TEST(HadamardTest, NextPowerOfTwo) {
  EXPECT_EQ(NextPowerOfTwo(1), 1);
  EXPECT_EQ(NextPowerOfTwo(5), 8);
  EXPECT_EQ(NextPowerOfTwo(8), 8);
  EXPECT_EQ(NextPowerOfTwo(1000), 1024);
}

// H_4 rows (1,1,1,1), (1,-1,1,-1), (1,1,-1,-1), (1,-1,-1,1) over 2: H (1,2,3,4) = (5,-1,-2,0).
TEST(HadamardTest, FastTransformByHand) {
  std::vector<double> v = {1, 2, 3, 4};
  ASSERT_TRUE(FastWalshHadamard(absl::MakeSpan(v)).ok());
  EXPECT_EQ(v, (std::vector<double>{5, -1, -2, 0}));
  std::vector<double> e = {1, 0, 0, 0};
  ASSERT_TRUE(FastWalshHadamard(absl::MakeSpan(e)).ok());
  EXPECT_EQ(e, (std::vector<double>{0.5, 0.5, 0.5, 0.5}));
}

TEST(HadamardTest, RejectsLengthsThatAreNotPowersOfTwo) {
  std::vector<double> three = {1, 2, 3};
  EXPECT_FALSE(FastWalshHadamard(absl::MakeSpan(three)).ok());
  EXPECT_FALSE(FastWalshHadamard(absl::Span<double>()).ok());
}

// Column j of H is H e_j; H_ij = (-1)^popcount(i & j) / sqrt(n), and H^T H = I.
TEST(HadamardTest, TransformIsTheOrthonormalSylvesterMatrix) {
  for (int64_t n : {2, 8, 32}) {
    Eigen::MatrixXd h = Eigen::MatrixXd::Identity(n, n);
    for (int64_t j = 0; j < n; ++j)
      ASSERT_TRUE(FastWalshHadamard({h.col(j).data(), size_t(n)}).ok());
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const double sign = std::popcount(static_cast<uint64_t>(i & j)) % 2 ? -1 : 1;
        EXPECT_NEAR(h(i, j), sign / std::sqrt(double(n)), 1e-15);
      }
    }
    EXPECT_TRUE((h.transpose() * h).isApprox(Eigen::MatrixXd::Identity(n, n), 1e-12));
  }
}

// Signs for seed 7 from the SplitMix64 definition (independent script): -,+,-,+,+,-,-,-.
// p = 2: D B = (-1, 2), H_2 D B = (1, -3) / sqrt(2).
TEST(HadamardTest, FlattenByHand) {
  absl::StatusOr<RandomizedHadamard> h = RandomizedHadamard::Create(5, 7);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->padded_rows(), 8);
  const std::vector<int> signs = {-1, 1, -1, 1, 1, -1, -1, -1};
  for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(h->sign(i), signs[i]) << i;

  absl::StatusOr<RandomizedHadamard> two = RandomizedHadamard::Create(2, 7);
  ASSERT_TRUE(two.ok());
  absl::StatusOr<Eigen::MatrixXd> flat = two->Flatten(Eigen::Vector2d(1, 2));
  ASSERT_TRUE(flat.ok());
  EXPECT_NEAR((*flat)(0, 0), 1 / std::sqrt(2.0), 1e-15);
  EXPECT_NEAR((*flat)(1, 0), -3 / std::sqrt(2.0), 1e-15);
}

// RevMat(FlatMat(B)) = B to 1e-12 (entries of order 1), and FlatMat preserves the Frobenius norm.
TEST(HadamardTest, RoundTripIsExactToFloatingTolerance) {
  Rng rng(1);
  for (int64_t p : {1, 5, 100, 1000, 1024}) {
    absl::StatusOr<RandomizedHadamard> h = RandomizedHadamard::Create(p, 100 + p);
    ASSERT_TRUE(h.ok());
    const Eigen::MatrixXd b = RandomMatrix(p, 3, rng);
    absl::StatusOr<Eigen::MatrixXd> flat = h->Flatten(b);
    ASSERT_TRUE(flat.ok());
    EXPECT_NEAR(flat->norm(), b.norm(), 1e-12 * b.norm());
    absl::StatusOr<Eigen::MatrixXd> back = h->Reverse(*flat);
    ASSERT_TRUE(back.ok());
    EXPECT_LE((*back - b).cwiseAbs().maxCoeff(), 1e-12) << p;
  }
}

// |FlatMat(B)_ij| <= ||B_{:,j}||_1 / sqrt(p') for random, sparse and spiky B (property test).
TEST(HadamardTest, FlattenedEntriesObeyTheL1OverSqrtPBound) {
  Rng rng(2);
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t p = 1 + static_cast<int64_t>(UniformInt(rng, 300));
    absl::StatusOr<RandomizedHadamard> h = RandomizedHadamard::Create(p, trial);
    ASSERT_TRUE(h.ok());
    Eigen::MatrixXd b = RandomMatrix(p, 2, rng);
    if (trial % 3 == 1) b = b.cwiseProduct(RandomMatrix(p, 2, rng).cwiseSign().cwiseMax(0));
    if (trial % 3 == 2) {
      b.setZero();
      b(UniformInt(rng, p), 0) = 5;  // one spike: every flattened entry is exactly 5 / sqrt(p')
    }
    const Eigen::MatrixXd flat = *h->Flatten(b);
    const double root = std::sqrt(double(h->padded_rows()));
    for (Eigen::Index j = 0; j < b.cols(); ++j) {
      const double bound = b.col(j).lpNorm<1>() / root;
      EXPECT_LE(flat.col(j).cwiseAbs().maxCoeff(), bound * (1 + 1e-12) + 1e-300);
    }
    EXPECT_LE(flat.cwiseAbs().maxCoeff(),
              FlattenedLinfBound(b.cwiseAbs().sum(), h->padded_rows()) * (1 + 1e-12) + 1e-300);
  }
}

TEST(HadamardTest, RejectsBadShapes) {
  EXPECT_FALSE(RandomizedHadamard::Create(0, 1).ok());
  absl::StatusOr<RandomizedHadamard> h = RandomizedHadamard::Create(5, 1);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->Flatten(Eigen::MatrixXd::Zero(8, 1)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(h->Reverse(Eigen::MatrixXd::Zero(5, 1)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::dp
