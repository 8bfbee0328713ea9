// The top-k right singular vectors of R~ (normalized_interactions.h), i.e. the leading eigenvectors
// of P~ = R~^T R~, the S_k of the ideal low-pass filter (PriviRec eq. 3; GF-CF and BSPM take them
// from sparsesvd, a Lanczos SVD). Computed with Spectra's implicitly restarted Lanczos on the
// operator x -> R~^T (R~ x), so P~ is never formed; with k = m, from the dense eigendecomposition
// of P~ instead. Deterministic (Spectra's fixed start vector).
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_SINGULAR_VECTORS_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_SINGULAR_VECTORS_H_

#include <cstdint>
#include <functional>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/lib/graph_filter/normalized_interactions.h"

namespace fedmf::algorithms::graph_filter {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct SingularBasis {
  RowMatrix vectors;       // m x k, orthonormal columns, by descending singular value
  Eigen::VectorXd values;  // the k singular values of R~, descending (eigenvalues of P~ = their
                           // squares)
};

struct LanczosOptions {
  // Lanczos basis size; 0: min(m, max(2k + 1, k + 20)) (Spectra's advice: ncv >= 2k).
  int64_t basis_size = 0;
  int64_t max_restarts = 1000;
  double tolerance = 1e-10;  // Spectra's relative precision of the eigenvalues
  // Called every `progress_every` products by P~ with the count so far.
  std::function<void(int64_t products)> progress;
  int64_t progress_every = 500;
};

// k in [1, m]; InvalidArgument otherwise, Internal if Lanczos does not converge.
absl::StatusOr<SingularBasis> TopRightSingularVectors(const NormalizedInteractions& r, int64_t k,
                                                      const LanczosOptions& options = {});
// The same from an explicit symmetric P~ (m x m; symmetry is not checked), as PriviRec's clients
// receive it: Lanczos on x -> P~ x. InvalidArgument for a non-square matrix.
absl::StatusOr<SingularBasis> TopRightSingularVectors(const SparseRows& gram, int64_t k,
                                                      const LanczosOptions& options = {});

}  // namespace fedmf::algorithms::graph_filter

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_SINGULAR_VECTORS_H_
