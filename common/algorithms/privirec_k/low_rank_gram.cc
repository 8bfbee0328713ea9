#include "common/algorithms/privirec_k/low_rank_gram.h"

namespace fedmf::algorithms::privirec_k {

graph_filter::Block LowRankGram::Apply(const graph_filter::Block& x) const {
  const Eigen::MatrixXd coefficients =
      basis_->values.asDiagonal() * (basis_->vectors.transpose() * x);
  return basis_->vectors * coefficients;
}

graph_filter::Block LowRankGram::ApplyToUsers(absl::Span<const data::RatingRow> users) const {
  const Eigen::Index k = basis_->vectors.cols();
  Eigen::MatrixXd coefficients = Eigen::MatrixXd::Zero(k, static_cast<Eigen::Index>(users.size()));
  const auto count = static_cast<int64_t>(users.size());
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t b = 0; b < count; ++b) {
    auto column = coefficients.col(b);
    for (int32_t item : users[static_cast<size_t>(b)].indices) {
      column += basis_->vectors.row(item).transpose();
    }
  }
  coefficients = basis_->values.asDiagonal() * coefficients;
  return basis_->vectors * coefficients;
}

}  // namespace fedmf::algorithms::privirec_k
