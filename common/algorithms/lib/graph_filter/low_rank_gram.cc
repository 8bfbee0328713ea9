#include "common/algorithms/lib/graph_filter/low_rank_gram.h"

#include <utility>

namespace fedmf::algorithms::graph_filter {

LowRankGram::LowRankGram(std::shared_ptr<const SingularBasis> basis, Eigen::VectorXd eigenvalues)
    : basis_(std::move(basis)), eigenvalues_(std::move(eigenvalues)) {}

Block LowRankGram::Apply(const Block& x) const {
  const Eigen::MatrixXd coefficients = eigenvalues_.asDiagonal() * (Vectors().transpose() * x);
  return Vectors() * coefficients;
}

Block LowRankGram::ApplyToUsers(absl::Span<const data::RatingRow> users) const {
  const Eigen::Index k = eigenvalues_.size();
  Eigen::MatrixXd coefficients = Eigen::MatrixXd::Zero(k, static_cast<Eigen::Index>(users.size()));
  const auto count = static_cast<int64_t>(users.size());
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t b = 0; b < count; ++b) {
    auto column = coefficients.col(b);
    for (int32_t item : users[static_cast<size_t>(b)].indices) {
      column += basis_->vectors.row(item).head(k).transpose();
    }
  }
  coefficients = eigenvalues_.asDiagonal() * coefficients;
  return Vectors() * coefficients;
}

}  // namespace fedmf::algorithms::graph_filter
