// The item-item filters the graph-filter models combine (item_filter.h):
//   GramFilter          P~ = R~^T R~ in factored form (the centralized normalized item-item matrix)
//   SymmetricSparseFilter  an explicit symmetric sparse m x m matrix (Turbo-CF's P~^{o s}; P~ as
//                       PriviRec's clients receive it)
//   IdealLowPass        F_IDL = V^-1/2 S_k S_k^T V^1/2 (PriviRec eq. 3), from the item degrees and
//                       the top-k right singular vectors of R~
// (and low_rank_gram.h: P~'s rank-k stand-in S Lambda S^T)
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_FILTERS_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_FILTERS_H_

#include <cstdint>
#include <memory>

#include "Eigen/Core"
#include "absl/types/span.h"
#include "common/algorithms/lib/graph_filter/item_filter.h"
#include "common/algorithms/lib/graph_filter/normalized_interactions.h"
#include "common/algorithms/lib/graph_filter/singular_vectors.h"

namespace fedmf::algorithms::graph_filter {

class GramFilter final : public ItemFilter {
 public:
  explicit GramFilter(std::shared_ptr<const NormalizedInteractions> r) : r_(std::move(r)) {}

  int32_t num_items() const override { return r_->num_items(); }
  Block Apply(const Block& x) const override { return r_->GramTimes(x); }
  Block ApplyToUsers(absl::Span<const data::RatingRow> users) const override {
    return r_->GramTimesUsers(users);
  }

 private:
  std::shared_ptr<const NormalizedInteractions> r_;
};

class SymmetricSparseFilter final : public ItemFilter {
 public:
  // `filter` must be square and symmetric (F^T = F: rows serve as columns; not checked).
  explicit SymmetricSparseFilter(SparseRows filter) : filter_(std::move(filter)) {}

  int32_t num_items() const override { return static_cast<int32_t>(filter_.rows()); }
  Block Apply(const Block& x) const override;
  Block ApplyToUsers(absl::Span<const data::RatingRow> users) const override;
  const SparseRows& matrix() const { return filter_; }

 private:
  SparseRows filter_;
};

class IdealLowPass final : public ItemFilter {
 public:
  // `item_degrees`: diag(V) (m); S_k: the first `rank` columns of basis->vectors (m x k', k' >=
  // rank; shared, not copied, with a LowRankGram of the same basis). A degree-0 item gets
  // V^-1/2 = V^1/2 = 0.
  IdealLowPass(const Eigen::VectorXd& item_degrees, std::shared_ptr<const SingularBasis> basis,
               int64_t rank);

  int32_t num_items() const override { return static_cast<int32_t>(basis_->vectors.rows()); }
  // F^T x = V^1/2 S (S^T (V^-1/2 x)).
  Block Apply(const Block& x) const override;
  // The same, with S^T V^-1/2 Z summed over the users' rows of S.
  Block ApplyToUsers(absl::Span<const data::RatingRow> users) const override;

 private:
  auto Vectors() const { return basis_->vectors.leftCols(rank_); }
  Block Expand(const Eigen::MatrixXd& coefficients) const;  // V^1/2 S c

  Eigen::VectorXd inverse_root_;  // V^-1/2
  Eigen::VectorXd root_;          // V^1/2
  std::shared_ptr<const SingularBasis> basis_;
  Eigen::Index rank_;
};

}  // namespace fedmf::algorithms::graph_filter

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_FILTERS_H_
