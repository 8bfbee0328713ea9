#include "common/metrics/user_metrics.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace fedmf::metrics {
namespace {

// NaN compares false with everything, which would break the strict weak order of the sort.
double RankKey(double score) {
  return std::isnan(score) ? -std::numeric_limits<double>::infinity() : score;
}

// True iff `item` is in the user's test row with a rating >= threshold.
bool IsRelevant(const data::RatingRow& test_row, int32_t item, double threshold) {
  const auto it = std::lower_bound(test_row.indices.begin(), test_row.indices.end(), item);
  if (it == test_row.indices.end() || *it != item) return false;
  return test_row.ratings[it - test_row.indices.begin()] >= threshold;
}

}  // namespace

UserErrors EvaluateUserErrors(const data::RatingRow& test_row, absl::Span<const double> scores) {
  UserErrors e;
  for (int64_t k = 0; k < test_row.size(); ++k) {
    const double error = scores[test_row.indices[k]] - static_cast<double>(test_row.ratings[k]);
    e.squared += error * error;
    e.absolute += std::abs(error);
  }
  e.count = test_row.size();
  return e;
}

int64_t CountRelevant(const data::RatingRow& test_row, const RankingOptions& options) {
  return std::count_if(test_row.ratings.begin(), test_row.ratings.end(), [&options](float r) {
    return static_cast<double>(r) >= options.relevance_threshold;
  });
}

UserRanking EvaluateUserRanking(const data::RatingRow& train_row, const data::RatingRow& test_row,
                                absl::Span<const double> scores, const RankingOptions& options,
                                std::vector<int32_t>* scratch) {
  assert(options.Validate().ok());
  UserRanking result;
  const int64_t relevant = CountRelevant(test_row, options);
  if (relevant == 0) return result;
  std::vector<int32_t> local;
  std::vector<int32_t>& candidates = scratch != nullptr ? *scratch : local;
  const int32_t num_items = static_cast<int32_t>(scores.size());
  candidates.clear();
  // Both sequences are sorted by item, so one merge pass drops the training items.
  size_t t = 0;
  for (int32_t i = 0; i < num_items; ++i) {
    while (t < train_row.indices.size() && train_row.indices[t] < i) ++t;
    if (t < train_row.indices.size() && train_row.indices[t] == i) continue;
    candidates.push_back(i);
  }

  const auto before = [&scores](int32_t a, int32_t b) {
    const double sa = RankKey(scores[a]);
    const double sb = RankKey(scores[b]);
    return sa != sb ? sa > sb : a < b;
  };
  const size_t top_n = static_cast<size_t>(options.top_n);
  const size_t list_len = std::min(top_n, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + list_len, candidates.end(), before);

  result.relevant = relevant;
  int64_t tp = 0;
  double precision_sum = 0;  // sum_k P(k) rel(k)
  double dcg = 0;
  for (size_t k = 1; k <= list_len; ++k) {
    if (!IsRelevant(test_row, candidates[k - 1], options.relevance_threshold)) continue;
    ++tp;
    precision_sum += static_cast<double>(tp) / static_cast<double>(k);
    dcg += 1.0 / std::log2(static_cast<double>(k) + 1.0);
  }
  double idcg = 0;
  const int64_t ideal_len = std::min<int64_t>(options.top_n, relevant);
  for (int64_t k = 1; k <= ideal_len; ++k) idcg += 1.0 / std::log2(static_cast<double>(k) + 1.0);

  result.precision = static_cast<double>(tp) / static_cast<double>(options.top_n);
  result.recall = static_cast<double>(tp) / static_cast<double>(relevant);
  result.ap = tp > 0 ? precision_sum / static_cast<double>(tp) : 0.0;
  result.ap_at_n = precision_sum / static_cast<double>(ideal_len);
  result.ndcg = dcg / idcg;  // idcg > 0: relevant >= 1 and top_n >= 1
  return result;
}

void MetricSums::Add(const UserErrors& user) {
  if (user.count == 0) return;
  num_ratings += user.count;
  squared_error += user.squared;
  absolute_error += user.absolute;
  user_rmse += std::sqrt(user.squared / static_cast<double>(user.count));
  ++error_users;
}

void MetricSums::Add(const UserRanking& user, bool has_test) {
  if (user.relevant == 0) {
    if (has_test) ++skipped_users;
    return;
  }
  precision += user.precision;
  recall += user.recall;
  ap += user.ap;
  ap_at_n += user.ap_at_n;
  ndcg += user.ndcg;
  ++ranking_users;
}

bool MetricSums::errors_absent() const {
  return error_users == 0 && ranking_users + skipped_users > 0;
}

ErrorMetrics MetricSums::Errors() const {
  ErrorMetrics result;
  result.num_ratings = num_ratings;
  result.num_users = static_cast<int32_t>(error_users);
  if (num_ratings == 0) return result;
  const double n = static_cast<double>(num_ratings);
  result.rmse = std::sqrt(squared_error / n);
  result.mae = absolute_error / n;
  result.per_user_rmse = user_rmse / static_cast<double>(error_users);
  return result;
}

RankingMetrics MetricSums::Ranking() const {
  RankingMetrics result;
  result.num_users = static_cast<int32_t>(ranking_users);
  result.num_skipped_users = static_cast<int32_t>(skipped_users);
  if (ranking_users == 0) return result;
  const double n = static_cast<double>(ranking_users);
  result.precision = precision / n;
  result.recall = recall / n;
  result.map = ap / n;
  result.map_at_n = ap_at_n / n;
  result.ndcg = ndcg / n;
  const double pr = result.precision + result.recall;
  result.f1 = pr > 0 ? 2 * result.precision * result.recall / pr : 0.0;
  return result;
}

}  // namespace fedmf::metrics
