#include "common/mf/weighted_solve.h"

#include <cmath>

#include "Eigen/Cholesky"
#include "absl/strings/str_cat.h"

namespace fedmf::mf {
namespace {

absl::Status CheckRatings(const data::RatingRow& ratings, int64_t num_items) {
  for (int64_t n = 0; n < ratings.size(); ++n) {
    if (ratings.indices[n] < 0 || ratings.indices[n] >= num_items) {
      return absl::InvalidArgumentError(absl::StrCat("rating ", n, ": item ", ratings.indices[n],
                                                     " is outside [0, ", num_items, ")"));
    }
    if (!std::isfinite(ratings.ratings[n])) {
      return absl::InvalidArgumentError(
          absl::StrCat("rating ", n, " (item ", ratings.indices[n], ") is not finite"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

Eigen::MatrixXd FactorGram(const FactorMatrix& factors) {
  Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(factors.cols(), factors.cols());
  gram.selfadjointView<Eigen::Lower>().rankUpdate(factors.transpose());
  return gram.selfadjointView<Eigen::Lower>();
}

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

absl::StatusOr<Eigen::VectorXd> SolveUserFactor(const FactorMatrix& item_factors,
                                                const Eigen::MatrixXd& gram,
                                                const data::RatingRow& ratings, double lambda,
                                                double kappa) {
  if (absl::Status s = CheckRatings(ratings, item_factors.rows()); !s.ok()) return s;
  if (gram.rows() != item_factors.cols() || gram.cols() != item_factors.cols()) {
    return absl::InvalidArgumentError(absl::StrCat("gram is ", gram.rows(), " x ", gram.cols(),
                                                   ", rank is ", item_factors.cols()));
  }
  Eigen::VectorXd u = SolveWeightedRow(gram, item_factors, ratings, kappa, lambda);
  if (!u.allFinite()) return absl::InvalidArgumentError("eq. 5 gave a non-finite user factor");
  return u;
}

}  // namespace fedmf::mf
