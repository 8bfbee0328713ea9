#include "common/algorithms/lib/graph_filter/sparse_block.h"

#include <algorithm>
#include <cstdint>

namespace fedmf::algorithms::graph_filter {

Block Indicators(absl::Span<const data::RatingRow> users, int32_t num_items) {
  Block z = Block::Zero(num_items, static_cast<Eigen::Index>(users.size()));
  for (size_t b = 0; b < users.size(); ++b) {
    for (int32_t item : users[b].indices) z(item, static_cast<Eigen::Index>(b)) = 1;
  }
  return z;
}

void SparseTimesBlock(const SparseRows& a, const Eigen::Ref<const Block>& x, Block& out) {
  out.resize(a.rows(), x.cols());
  const int64_t rows = a.rows();
  const int64_t width = x.cols();
  if (width == 0 || rows == 0) return;
  const int32_t* outer = a.outerIndexPtr();
  const int32_t* inner = a.innerIndexPtr();
  const double* values = a.valuePtr();
  // Raw loops over rows of `width` values: the gathered rows of x are scattered over memory, and
  // fetching the row a few entries ahead hides most of the latency of those reads.
  constexpr int32_t kAhead = 4;
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t r = 0; r < rows; ++r) {
    double* target = &out(r, 0);
    std::fill(target, target + width, 0.0);
    const int32_t end = outer[r + 1];
    for (int32_t k = outer[r]; k < end; ++k) {
      if (k + kAhead < end) __builtin_prefetch(x.row(inner[k + kAhead]).data());
      const double v = values[k];
      const double* source = x.row(inner[k]).data();
      for (int64_t b = 0; b < width; ++b) target[b] += v * source[b];
    }
  }
}

void SumRowsOfUsers(const SparseRows& a, absl::Span<const data::RatingRow> users, Block& out) {
  out.setZero(a.cols(), static_cast<Eigen::Index>(users.size()));
  const int64_t count = static_cast<int64_t>(users.size());
  // Users in parallel: each column is written by one thread.
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t b = 0; b < count; ++b) {
    for (int32_t item : users[static_cast<size_t>(b)].indices) {
      for (SparseRows::InnerIterator it(a, item); it; ++it) out(it.index(), b) += it.value();
    }
  }
}

Eigen::MatrixXd ToColumnMajor(const Block& x) {
  // In square tiles: a plain copy between the two storage orders reads or writes with a stride of
  // a whole row or column at every element.
  constexpr Eigen::Index kTile = 64;
  Eigen::MatrixXd out(x.rows(), x.cols());
  const int64_t row_tiles = (x.rows() + kTile - 1) / kTile;
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < row_tiles; ++t) {
    const Eigen::Index r = t * kTile;
    const Eigen::Index rows = std::min(kTile, x.rows() - r);
    for (Eigen::Index c = 0; c < x.cols(); c += kTile) {
      const Eigen::Index cols = std::min(kTile, x.cols() - c);
      out.block(r, c, rows, cols) = x.block(r, c, rows, cols);
    }
  }
  return out;
}

}  // namespace fedmf::algorithms::graph_filter
