// The building block of the graph filters (GF-CF, Turbo-CF, BSPM; PriviRec): a linear filter F on
// users' item rows, a user with item row r being scored r F. Filters act on blocks of users at
// once, each user a column of an m x B block (Block, row-major: sparse products then read and
// write contiguous rows of B values). Pure math: no data loading, no runtime.
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_ITEM_FILTER_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_ITEM_FILTER_H_

#include <cstdint>

#include "Eigen/Core"
#include "Eigen/SparseCore"
#include "absl/types/span.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::algorithms::graph_filter {

// A block of vectors, one per column (B users' item vectors: m x B; or their user-space
// intermediates: n x B).
using Block = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
// Sparse matrices (R~, R~^T, an explicit item-item matrix) by rows.
using SparseRows = Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t>;

// The users' binary item rows as the columns of an m x B block: entry (i, b) is 1 iff users[b]
// rated item i (whatever the rating: graph filters read implicit feedback). Items must be in
// [0, num_items) (callers check).
Block Indicators(absl::Span<const data::RatingRow> users, int32_t num_items);

class ItemFilter {
 public:
  virtual ~ItemFilter() = default;

  // m: the filter is m x m.
  virtual int32_t num_items() const = 0;

  // Column b of the result is (x_b^T F)^T = F^T x_b, for x m x B: each column filtered as a user's
  // item row.
  virtual Block Apply(const Block& x) const = 0;

  // Apply(Indicators(users)): the rows r_u F of the users' binary rows. The default forms the
  // indicator block; filters with a cheaper sparse path (a sum over the user's few items)
  // override it. Items must be in [0, num_items()).
  virtual Block ApplyToUsers(absl::Span<const data::RatingRow> users) const {
    return Apply(Indicators(users, num_items()));
  }
};

}  // namespace fedmf::algorithms::graph_filter

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_ITEM_FILTER_H_
