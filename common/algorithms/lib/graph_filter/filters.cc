#include "common/algorithms/lib/graph_filter/filters.h"

#include <cmath>
#include <utility>

#include "common/algorithms/lib/graph_filter/sparse_block.h"

namespace fedmf::algorithms::graph_filter {

Block SymmetricSparseFilter::Apply(const Block& x) const {
  Block out;
  SparseTimesBlock(filter_, x, out);  // F^T x = F x
  return out;
}

Block SymmetricSparseFilter::ApplyToUsers(absl::Span<const data::RatingRow> users) const {
  Block out;
  SumRowsOfUsers(filter_, users, out);
  return out;
}

IdealLowPass::IdealLowPass(const Eigen::VectorXd& item_degrees,
                           std::shared_ptr<const SingularBasis> basis, int64_t rank)
    : inverse_root_(
          item_degrees.unaryExpr([](double d) { return d > 0 ? 1 / std::sqrt(d) : 0.0; })),
      root_(item_degrees.cwiseSqrt()),
      basis_(std::move(basis)),
      rank_(rank) {}

Block IdealLowPass::Expand(const Eigen::MatrixXd& coefficients) const {
  Block out = Vectors() * coefficients;
  out.array().colwise() *= root_.array();
  return out;
}

Block IdealLowPass::Apply(const Block& x) const {
  const Eigen::MatrixXd coefficients = Vectors().transpose() * (inverse_root_.asDiagonal() * x);
  return Expand(coefficients);
}

Block IdealLowPass::ApplyToUsers(absl::Span<const data::RatingRow> users) const {
  Eigen::MatrixXd coefficients =
      Eigen::MatrixXd::Zero(rank_, static_cast<Eigen::Index>(users.size()));
  const int64_t count = static_cast<int64_t>(users.size());
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t b = 0; b < count; ++b) {
    auto column = coefficients.col(b);
    for (int32_t item : users[static_cast<size_t>(b)].indices) {
      column += inverse_root_[item] * basis_->vectors.row(item).head(rank_).transpose();
    }
  }
  return Expand(coefficients);
}

}  // namespace fedmf::algorithms::graph_filter
