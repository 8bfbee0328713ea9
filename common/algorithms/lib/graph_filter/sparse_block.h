// The sparse kernels of the graph filters, parallel with OpenMP; each output entry is summed by one
// thread in a fixed order, so results do not depend on the thread count.
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_SPARSE_BLOCK_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_SPARSE_BLOCK_H_

#include "Eigen/Core"
#include "absl/types/span.h"
#include "common/algorithms/lib/graph_filter/item_filter.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::algorithms::graph_filter {

// out = a x, for a p x q and x q x B; out is resized to p x B.
void SparseTimesBlock(const SparseRows& a, const Eigen::Ref<const Block>& x, Block& out);

// out = a^T Z for Z the users' indicator block (Indicators): column b is the sum of the rows
// a.row(i) over the items i of users[b]. a is m x q, out q x B. Costs the users' items' row
// lengths, not m x B.
void SumRowsOfUsers(const SparseRows& a, absl::Span<const data::RatingRow> users, Block& out);

// The same matrix stored by columns (each user's column contiguous), copied in cache-sized tiles.
Eigen::MatrixXd ToColumnMajor(const Block& x);

}  // namespace fedmf::algorithms::graph_filter

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_SPARSE_BLOCK_H_
