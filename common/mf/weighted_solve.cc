#include "common/mf/weighted_solve.h"

#include "Eigen/Cholesky"

namespace fedmf::mf {

Eigen::VectorXd SolveWeightedRow(const Eigen::MatrixXd& gram, const FactorMatrix& other_factors,
                                 const data::RatingRow& row, double kappa, double reg) {
  const Eigen::Index k = other_factors.cols();
  Eigen::MatrixXd lhs = gram;
  lhs.diagonal().array() += reg;
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(k);
  for (int64_t n = 0; n < row.size(); ++n) {
    const auto f = other_factors.row(row.indices[n]).transpose();
    lhs.selfadjointView<Eigen::Lower>().rankUpdate(f, kappa);
    rhs.noalias() += ((1 + kappa) * row.ratings[n]) * f;
  }
  // reg > 0 makes lhs positive definite, so LLT is exact and cheap.
  return lhs.selfadjointView<Eigen::Lower>().llt().solve(rhs);
}

}  // namespace fedmf::mf
