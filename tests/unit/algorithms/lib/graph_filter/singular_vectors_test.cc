// The low-pass filter's singular vectors (Spectra's Lanczos on the factored P~) against Eigen's
// dense SVD of R~.
#include "common/algorithms/lib/graph_filter/singular_vectors.h"

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/lib/graph_filter/test_util.h"

namespace fedmf::algorithms::graph_filter {
namespace {

using test_util::DenseNormalized;
using test_util::DenseR;
using test_util::DenseSingularValues;
using test_util::DenseTopRightSingularVectors;
using test_util::RandomImplicit;

// Compares a basis with the dense SVD's: the singular values, and the subspace through its
// projector S S^T (each vector's sign is arbitrary).
void ExpectMatchesDenseSvd(const Eigen::MatrixXd& normalized, const SingularBasis& basis, int k,
                           double tolerance) {
  const Eigen::VectorXd values = DenseSingularValues(normalized);
  // The top-k subspace is well defined: a gap after the k-th value.
  if (k < values.size()) {
    ASSERT_GT(values[k - 1] - values[k], 1e-3);
  }
  ASSERT_EQ(basis.vectors.cols(), k);
  ASSERT_EQ(basis.values.size(), k);
  EXPECT_LT((basis.values - values.head(k)).cwiseAbs().maxCoeff(), tolerance);
  const Eigen::MatrixXd s = DenseTopRightSingularVectors(normalized, k);
  const Eigen::MatrixXd ours = basis.vectors;
  EXPECT_LT((ours * ours.transpose() - s * s.transpose()).cwiseAbs().maxCoeff(), tolerance);
  EXPECT_LT((ours.transpose() * ours - Eigen::MatrixXd::Identity(k, k)).cwiseAbs().maxCoeff(),
            tolerance);
}

TEST(SingularVectorsTest, LanczosMatchesDenseSvd) {
  const data::RatingsDataset d = RandomImplicit(80, 60, 0.1, 3);
  const NormalizedInteractions r = NormalizedInteractions::Create(d, 0.5).value();
  const Eigen::MatrixXd normalized = DenseNormalized(DenseR(d), 0.5);
  for (int k : {1, 5, 12}) {
    SCOPED_TRACE(k);
    absl::StatusOr<SingularBasis> basis = TopRightSingularVectors(r, k);
    ASSERT_TRUE(basis.ok()) << basis.status();
    ExpectMatchesDenseSvd(normalized, *basis, k, 1e-8);
  }
  // R~'s top singular value is 1 at alpha = 1/2 (eigenvector V^1/2 1 of P~).
  EXPECT_NEAR(TopRightSingularVectors(r, 1)->values[0], 1, 1e-10);
}

TEST(SingularVectorsTest, FullRankUsesTheDenseEigendecomposition) {
  const data::RatingsDataset d = RandomImplicit(30, 12, 0.3, 5);
  const NormalizedInteractions r = NormalizedInteractions::Create(d, 0.5).value();
  absl::StatusOr<SingularBasis> basis = TopRightSingularVectors(r, r.num_items());
  ASSERT_TRUE(basis.ok()) << basis.status();
  const Eigen::MatrixXd ours = basis->vectors;
  // All m vectors: an orthonormal basis; the values are the dense SVD's (the idle item gives 0).
  EXPECT_LT((ours.transpose() * ours - Eigen::MatrixXd::Identity(13, 13)).cwiseAbs().maxCoeff(),
            1e-12);
  EXPECT_LT(
      (basis->values - DenseSingularValues(DenseNormalized(DenseR(d), 0.5))).cwiseAbs().maxCoeff(),
      1e-7);  // sqrt of eigenvalues near 0 loses half the digits
}

TEST(SingularVectorsTest, ProgressAndBadRanks) {
  const data::RatingsDataset d = RandomImplicit(40, 30, 0.2, 9);
  const NormalizedInteractions r = NormalizedInteractions::Create(d, 0.5).value();
  int64_t last = 0;
  LanczosOptions options;
  options.progress_every = 10;
  options.progress = [&last](int64_t products) { last = products; };
  ASSERT_TRUE(TopRightSingularVectors(r, 4, options).ok());
  EXPECT_GE(last, 10);
  EXPECT_EQ(TopRightSingularVectors(r, 0).status().message(),
            "low-pass rank k = 0: needs 1 <= k <= the 31 items");
  EXPECT_FALSE(TopRightSingularVectors(r, 32).ok());
}

}  // namespace
}  // namespace fedmf::algorithms::graph_filter
