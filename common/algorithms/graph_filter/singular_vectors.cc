#include "common/algorithms/graph_filter/singular_vectors.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "Eigen/Eigenvalues"
#include "Spectra/SymEigsSolver.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace fedmf::algorithms::graph_filter {
namespace {

// P~ as a Spectra operator: y = R~^T (R~ x), counting the products.
class GramOperator {
 public:
  using Scalar = double;

  GramOperator(const NormalizedInteractions& r, const LanczosOptions& options)
      : r_(r), options_(options) {}

  Eigen::Index rows() const { return r_.num_items(); }
  Eigen::Index cols() const { return r_.num_items(); }

  void perform_op(const double* x_in, double* y_out) const {
    const Eigen::Map<const Block> x(x_in, r_.num_items(), 1);
    Eigen::Map<Block>(y_out, r_.num_items(), 1) = r_.GramTimes(x);
    ++products_;
    if (options_.progress && options_.progress_every > 0 &&
        products_ % options_.progress_every == 0) {
      options_.progress(products_);
    }
  }

  int64_t products() const { return products_; }

 private:
  const NormalizedInteractions& r_;
  const LanczosOptions& options_;
  mutable int64_t products_ = 0;
};

double SingularValue(double eigenvalue) { return std::sqrt(std::max(eigenvalue, 0.0)); }

// All of P~'s eigenvectors from its dense form, for k = m.
SingularBasis Dense(const NormalizedInteractions& r, int64_t k) {
  const Eigen::MatrixXd gram = Eigen::MatrixXd(r.Gram());
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(gram);
  // Ascending eigenvalues: the last k columns, reversed.
  SingularBasis basis;
  basis.vectors = eigen.eigenvectors().rightCols(k).rowwise().reverse();
  basis.values = eigen.eigenvalues().tail(k).reverse().unaryExpr(&SingularValue);
  return basis;
}

}  // namespace

absl::StatusOr<SingularBasis> TopRightSingularVectors(const NormalizedInteractions& r, int64_t k,
                                                      const LanczosOptions& options) {
  const int64_t m = r.num_items();
  if (k < 1 || k > m) {
    return absl::InvalidArgumentError(
        absl::StrCat("low-pass rank k = ", k, ": needs 1 <= k <= the ", m, " items"));
  }
  if (k == m) return Dense(r, k);
  const int64_t ncv =
      options.basis_size > 0 ? options.basis_size : std::min(m, std::max(2 * k + 1, k + 20));
  if (ncv <= k || ncv > m) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Lanczos basis size ", ncv, ": needs k < size <= m (k = ", k, ", m = ", m, ")"));
  }
  GramOperator op(r, options);
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

}  // namespace fedmf::algorithms::graph_filter
