// The normalized interaction matrix of the graph filters (PriviRec eq. 1; GF-CF, BSPM, Turbo-CF):
//   R~ = U^-alpha R V^(alpha-1),   U = Diag(R 1) (user degrees), V = Diag(1^T R) (item degrees),
// of the binary R of a training set (every rating counts 1), and the normalized item-item matrix
// (eq. 2) P~ = R~^T R~ (= V^-1/2 R^T U^-1 R V^-1/2 at alpha = 1/2). A user or item of degree 0 gets
// weight 0 (the reference codes set the infinite d^-x to 0). P~ is applied in factored form,
// P~ X = R~^T (R~ X): two sparse products of nnz(R) x B each, far cheaper than the dense m x m P~;
// Gram() forms it explicitly (sparse) for the filters that need its entries (Turbo-CF).
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_NORMALIZED_INTERACTIONS_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_NORMALIZED_INTERACTIONS_H_

#include <cstdint>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/lib/graph_filter/item_filter.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::algorithms::graph_filter {

class NormalizedInteractions {
 public:
  // R~ of `train` with exponent alpha in [0, 1]; InvalidArgument otherwise or for an empty
  // dataset.
  static absl::StatusOr<NormalizedInteractions> Create(const data::RatingsDataset& train,
                                                       double alpha);

  int32_t num_users() const { return static_cast<int32_t>(by_user_.rows()); }
  int32_t num_items() const { return static_cast<int32_t>(by_user_.cols()); }
  double alpha() const { return alpha_; }
  const Eigen::VectorXd& user_degrees() const { return user_degrees_; }  // diag(U)
  const Eigen::VectorXd& item_degrees() const { return item_degrees_; }  // diag(V)

  const SparseRows& by_user() const { return by_user_; }  // R~, n x m
  const SparseRows& by_item() const { return by_item_; }  // R~^T, m x n

  // P~ x for x m x B (factored: R~^T (R~ x)).
  Block GramTimes(const Eigen::Ref<const Block>& x) const;
  // P~ Z for Z the users' indicator block; the first product only touches their items.
  Block GramTimesUsers(absl::Span<const data::RatingRow> users) const;

  // P~ = R~^T R~ explicitly (m x m, sparse: an entry for every item pair with a common user), each
  // row summed over users in ascending order, rows in parallel. Costs sum_u d_u^2.
  SparseRows Gram() const;

 private:
  NormalizedInteractions() = default;

  double alpha_ = 0.5;
  Eigen::VectorXd user_degrees_;
  Eigen::VectorXd item_degrees_;
  SparseRows by_user_;
  SparseRows by_item_;
};

}  // namespace fedmf::algorithms::graph_filter

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_NORMALIZED_INTERACTIONS_H_
