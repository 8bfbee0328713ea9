// P~_k = S Lambda S^T, a rank-k stand-in for P~ from k of its (approximate) eigenvectors S and
// eigenvalues Lambda, as an item filter (item_filter.h): what PriviRec-k's clients hold in place
// of P~ (privirec_k.h), and the central yardstick of that approximation (GraphFilterConfig's
// gram_rank). Applied in factored form, two m x k products per block, never the dense m x m matrix.
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_LOW_RANK_GRAM_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_LOW_RANK_GRAM_H_

#include <cstdint>
#include <memory>

#include "Eigen/Core"
#include "absl/types/span.h"
#include "common/algorithms/lib/graph_filter/item_filter.h"
#include "common/algorithms/lib/graph_filter/singular_vectors.h"

namespace fedmf::algorithms::graph_filter {

class LowRankGram final : public ItemFilter {
 public:
  // S: the first eigenvalues.size() columns of basis->vectors (orthonormal; shared, not copied,
  // with the ideal low-pass built from the same basis); Lambda: `eigenvalues`, at most the basis's
  // columns.
  LowRankGram(std::shared_ptr<const SingularBasis> basis, Eigen::VectorXd eigenvalues);

  int32_t num_items() const override { return static_cast<int32_t>(basis_->vectors.rows()); }
  // S (Lambda (S^T x)).
  Block Apply(const Block& x) const override;
  // The same with S^T r summed over each user's rows of S.
  Block ApplyToUsers(absl::Span<const data::RatingRow> users) const override;

 private:
  auto Vectors() const { return basis_->vectors.leftCols(eigenvalues_.size()); }

  std::shared_ptr<const SingularBasis> basis_;
  Eigen::VectorXd eigenvalues_;
};

}  // namespace fedmf::algorithms::graph_filter

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_LOW_RANK_GRAM_H_
