#include "common/algorithms/lib/graph_filter/singular_vectors.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

#include "Eigen/Eigenvalues"
#include "Spectra/SymEigsSolver.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/graph_filter/sparse_block.h"

namespace fedmf::algorithms::graph_filter {
namespace {

// P~ as a Spectra operator: y = P~ x (factored, R~^T (R~ x), or explicit), counting the products.
class GramOperator {
 public:
  using Scalar = double;
  using Times = std::function<void(const Eigen::Ref<const Block>& x, Block& out)>;

  GramOperator(int64_t m, Times times, const LanczosOptions& options)
      : m_(m), times_(std::move(times)), options_(options) {}

  Eigen::Index rows() const { return m_; }
  Eigen::Index cols() const { return m_; }

  void perform_op(const double* x_in, double* y_out) const {
    const Eigen::Map<const Block> x(x_in, m_, 1);
    times_(x, out_);
    Eigen::Map<Block>(y_out, m_, 1) = out_;
    ++products_;
    if (options_.progress && options_.progress_every > 0 &&
        products_ % options_.progress_every == 0) {
      options_.progress(products_);
    }
  }

  int64_t products() const { return products_; }

 private:
  int64_t m_;
  Times times_;
  const LanczosOptions& options_;
  mutable Block out_;
  mutable int64_t products_ = 0;
};

double SingularValue(double eigenvalue) { return std::sqrt(std::max(eigenvalue, 0.0)); }

// All of P~'s eigenvectors from its dense form, for k = m.
SingularBasis Dense(const SparseRows& sparse_gram, int64_t k) {
  const Eigen::MatrixXd gram = Eigen::MatrixXd(sparse_gram);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(gram);
  // Ascending eigenvalues: the last k columns, reversed.
  SingularBasis basis;
  basis.vectors = eigen.eigenvectors().rightCols(k).rowwise().reverse();
  basis.values = eigen.eigenvalues().tail(k).reverse().unaryExpr(&SingularValue);
  return basis;
}

// The top k eigenpairs of the m x m P~ that `times` applies; `dense` forms it (k = m).
absl::StatusOr<SingularBasis> TopEigenpairs(int64_t m, int64_t k, GramOperator::Times times,
                                            const std::function<SparseRows()>& dense,
                                            const LanczosOptions& options) {
  if (k < 1 || k > m) {
    return absl::InvalidArgumentError(
        absl::StrCat("low-pass rank k = ", k, ": needs 1 <= k <= the ", m, " items"));
  }
  if (k == m) return Dense(dense(), k);
  const int64_t ncv =
      options.basis_size > 0 ? options.basis_size : std::min(m, std::max(2 * k + 1, k + 20));
  if (ncv <= k || ncv > m) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Lanczos basis size ", ncv, ": needs k < size <= m (k = ", k, ", m = ", m, ")"));
  }
  GramOperator op(m, std::move(times), options);
  Spectra::SymEigsSolver<GramOperator> eigs(op, k, ncv);
  eigs.init();
  const Eigen::Index converged = eigs.compute(Spectra::SortRule::LargestAlge, options.max_restarts,
                                              options.tolerance, Spectra::SortRule::LargestAlge);
  if (eigs.info() != Spectra::CompInfo::Successful) {
    return absl::InternalError(absl::StrCat("Lanczos: ", converged, " of ", k,
                                            " eigenvectors of P~ converged after ",
                                            eigs.num_iterations(), " restarts and ", op.products(),
                                            " products (tolerance ", options.tolerance, ")"));
  }
  SingularBasis basis;
  basis.vectors = eigs.eigenvectors(k);
  basis.values = eigs.eigenvalues().unaryExpr(&SingularValue);
  return basis;
}

}  // namespace

absl::StatusOr<SingularBasis> TopRightSingularVectors(const NormalizedInteractions& r, int64_t k,
                                                      const LanczosOptions& options) {
  return TopEigenpairs(
      r.num_items(), k,
      [&r](const Eigen::Ref<const Block>& x, Block& out) { out = r.GramTimes(x); },
      [&r] { return r.Gram(); }, options);
}

absl::StatusOr<SingularBasis> TopRightSingularVectors(const SparseRows& gram, int64_t k,
                                                      const LanczosOptions& options) {
  if (gram.rows() != gram.cols()) {
    return absl::InvalidArgumentError(
        absl::StrCat("P~ is ", gram.rows(), " x ", gram.cols(), ", not square"));
  }
  return TopEigenpairs(
      gram.rows(), k,
      [&gram](const Eigen::Ref<const Block>& x, Block& out) { SparseTimesBlock(gram, x, out); },
      [&gram] { return gram; }, options);
}

}  // namespace fedmf::algorithms::graph_filter
