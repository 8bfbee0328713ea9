#include "common/algorithms/lib/graph_filter/normalized_interactions.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/graph_filter/sparse_block.h"

namespace fedmf::algorithms::graph_filter {
namespace {

// d^e, and 0 for d = 0.
double Power(double d, double e) { return d > 0 ? std::pow(d, e) : 0.0; }

// The rows of `data` (users, or items when `by_item`) as a sparse matrix with entry weights
// user_weight[u] * item_weight[i].
SparseRows Weighted(const data::RatingsDataset& data, bool by_item,
                    const Eigen::VectorXd& user_weight, const Eigen::VectorXd& item_weight) {
  const int32_t rows = by_item ? data.num_items() : data.num_users();
  const int32_t cols = by_item ? data.num_users() : data.num_items();
  SparseRows s(rows, cols);
  s.resizeNonZeros(static_cast<Eigen::Index>(data.num_ratings()));
  int32_t* outer = s.outerIndexPtr();
  int32_t* inner = s.innerIndexPtr();
  double* values = s.valuePtr();
  int64_t k = 0;
  for (int32_t r = 0; r < rows; ++r) {
    outer[r] = static_cast<int32_t>(k);
    const data::RatingRow row = by_item ? data.item(r) : data.user(r);
    for (int32_t c : row.indices) {
      inner[k] = c;
      values[k] = by_item ? item_weight[r] * user_weight[c] : user_weight[r] * item_weight[c];
      ++k;
    }
  }
  outer[rows] = static_cast<int32_t>(k);
  return s;
}

}  // namespace

absl::StatusOr<NormalizedInteractions> NormalizedInteractions::Create(
    const data::RatingsDataset& train, double alpha) {
  if (!(alpha >= 0 && alpha <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("normalization alpha = ", alpha, ": needs 0 <= alpha <= 1"));
  }
  if (train.num_ratings() == 0) {
    return absl::InvalidArgumentError("the training data has no interactions");
  }
  if (train.num_ratings() >= (int64_t{1} << 31)) {
    return absl::InvalidArgumentError("more than 2^31 - 1 interactions");
  }
  NormalizedInteractions r;
  r.alpha_ = alpha;
  r.user_degrees_.resize(train.num_users());
  r.item_degrees_.resize(train.num_items());
  for (int32_t u = 0; u < train.num_users(); ++u) {
    r.user_degrees_[u] = static_cast<double>(train.user(u).size());
  }
  for (int32_t i = 0; i < train.num_items(); ++i) {
    r.item_degrees_[i] = static_cast<double>(train.item(i).size());
  }
  const Eigen::VectorXd user_weight =
      r.user_degrees_.unaryExpr([alpha](double d) { return Power(d, -alpha); });
  const Eigen::VectorXd item_weight =
      r.item_degrees_.unaryExpr([alpha](double d) { return Power(d, alpha - 1); });
  r.by_user_ = Weighted(train, /*by_item=*/false, user_weight, item_weight);
  r.by_item_ = Weighted(train, /*by_item=*/true, user_weight, item_weight);
  return r;
}

Block NormalizedInteractions::GramTimes(const Eigen::Ref<const Block>& x) const {
  Block users, out;
  SparseTimesBlock(by_user_, x, users);
  SparseTimesBlock(by_item_, users, out);
  return out;
}

Block NormalizedInteractions::GramTimesUsers(absl::Span<const data::RatingRow> users) const {
  Block per_user, out;
  SumRowsOfUsers(by_item_, users, per_user);
  SparseTimesBlock(by_item_, per_user, out);
  return out;
}

SparseRows NormalizedInteractions::Gram() const {
  const int32_t m = num_items();
  // Pass 1: the number of entries of each row; pass 2: the entries, columns ascending.
  std::vector<int64_t> counts(static_cast<size_t>(m) + 1, 0);
#pragma omp parallel
  {
    std::vector<int32_t> seen_in_row(static_cast<size_t>(m), -1);
#pragma omp for schedule(dynamic, 64)
    for (int32_t i = 0; i < m; ++i) {
      int64_t count = 0;
      for (SparseRows::InnerIterator u(by_item_, i); u; ++u) {
        for (SparseRows::InnerIterator j(by_user_, u.index()); j; ++j) {
          if (seen_in_row[j.index()] != i) {
            seen_in_row[j.index()] = i;
            ++count;
          }
        }
      }
      counts[static_cast<size_t>(i) + 1] = count;
    }
  }
  for (int32_t i = 0; i < m; ++i) counts[i + 1] += counts[i];
  SparseRows gram(m, m);
  gram.resizeNonZeros(static_cast<Eigen::Index>(counts[m]));
  for (int32_t i = 0; i <= m; ++i) gram.outerIndexPtr()[i] = static_cast<int32_t>(counts[i]);
#pragma omp parallel
  {
    std::vector<double> sum(static_cast<size_t>(m), 0.0);
    std::vector<int32_t> columns;
#pragma omp for schedule(dynamic, 64)
    for (int32_t i = 0; i < m; ++i) {
      columns.clear();
      for (SparseRows::InnerIterator u(by_item_, i); u; ++u) {
        for (SparseRows::InnerIterator j(by_user_, u.index()); j; ++j) {
          if (sum[j.index()] == 0) columns.push_back(j.index());
          sum[j.index()] += u.value() * j.value();
        }
      }
      std::sort(columns.begin(), columns.end());
      int64_t at = counts[i];
      for (int32_t j : columns) {
        gram.innerIndexPtr()[at] = j;
        gram.valuePtr()[at] = sum[j];
        sum[j] = 0;
        ++at;
      }
    }
  }
  return gram;
}

}  // namespace fedmf::algorithms::graph_filter
