#include "common/metrics/metrics.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"

namespace fedmf::metrics {
namespace {

// Users are handed out in small chunks: per-user cost varies with the number of test ratings.
constexpr int kUserChunk = 16;

// Per-user sums of one EvaluateErrors pass; summed in user order afterwards for determinism.
struct UserErrors {
  double squared = 0;
  double absolute = 0;
  int64_t count = 0;
};

// Per-user ranking values; `relevant` == 0 marks a user that is not evaluated.
struct UserRanking {
  int64_t relevant = 0;
  double precision = 0;
  double recall = 0;
  double ap = 0;
  double ap_at_n = 0;
  double ndcg = 0;
};

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

// Ranks the candidates of one user and computes its per-user values (see metrics.h).
// `scores` holds the user's predictions, `candidates` is scratch space.
UserRanking RankUser(const data::RatingRow& train_row, const data::RatingRow& test_row,
                     int64_t relevant, absl::Span<const double> scores,
                     std::vector<int32_t>& candidates, const RankingOptions& options) {
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

  UserRanking result;
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

}  // namespace

absl::Status RankingOptions::Validate() const {
  if (top_n < 1) {
    return absl::InvalidArgumentError(absl::StrCat("ranking top_n must be >= 1, got ", top_n));
  }
  if (!std::isfinite(relevance_threshold)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ranking relevance_threshold must be finite, got ", relevance_threshold));
  }
  return absl::OkStatus();
}

ErrorMetrics EvaluateErrors(const data::RatingsDataset& test, const UserScorer& scorer) {
  const int32_t num_users = test.num_users();
  const int32_t num_items = test.num_items();
  std::vector<UserErrors> per_user(num_users);

#pragma omp parallel
  {
    std::vector<double> scores(num_items);  // one buffer per thread, reused across users
#pragma omp for schedule(dynamic, kUserChunk)
    for (int32_t u = 0; u < num_users; ++u) {
      const data::RatingRow row = test.user(u);
      if (row.size() == 0) continue;
      scorer(u, absl::MakeSpan(scores));
      UserErrors& e = per_user[u];
      for (int64_t k = 0; k < row.size(); ++k) {
        const double error = scores[row.indices[k]] - static_cast<double>(row.ratings[k]);
        e.squared += error * error;
        e.absolute += std::abs(error);
      }
      e.count = row.size();
    }
  }

  // Sequential sums in user order: the result is independent of the thread schedule.
  ErrorMetrics result;
  double squared = 0;
  double absolute = 0;
  double user_rmse_sum = 0;
  for (const UserErrors& e : per_user) {
    if (e.count == 0) continue;
    squared += e.squared;
    absolute += e.absolute;
    user_rmse_sum += std::sqrt(e.squared / static_cast<double>(e.count));
    result.num_ratings += e.count;
    ++result.num_users;
  }
  if (result.num_ratings == 0) return result;
  const double n = static_cast<double>(result.num_ratings);
  result.rmse = std::sqrt(squared / n);
  result.mae = absolute / n;
  result.per_user_rmse = user_rmse_sum / static_cast<double>(result.num_users);
  return result;
}

RankingMetrics EvaluateRanking(const data::RatingsDataset& train, const data::RatingsDataset& test,
                               const UserScorer& scorer, const RankingOptions& options) {
  assert(options.Validate().ok());
  assert(train.num_items() == test.num_items() && train.num_users() == test.num_users());
  const int32_t num_users = test.num_users();
  const int32_t num_items = test.num_items();
  // relevant == 0 (the default) marks users that are skipped.
  std::vector<UserRanking> per_user(num_users);
  std::vector<char> has_test(num_users, 0);

#pragma omp parallel
  {
    // One scores buffer and one candidate list per thread, reused across users.
    std::vector<double> scores(num_items);
    std::vector<int32_t> candidates;
    candidates.reserve(num_items);
#pragma omp for schedule(dynamic, kUserChunk)
    for (int32_t u = 0; u < num_users; ++u) {
      const data::RatingRow test_row = test.user(u);
      if (test_row.size() == 0) continue;
      has_test[u] = 1;
      const int64_t relevant = std::count_if(
          test_row.ratings.begin(), test_row.ratings.end(),
          [&options](float r) { return static_cast<double>(r) >= options.relevance_threshold; });
      if (relevant == 0) continue;
      scorer(u, absl::MakeSpan(scores));
      per_user[u] = RankUser(train.user(u), test_row, relevant, scores, candidates, options);
    }
  }

  // Sequential sums in user order: the result is independent of the thread schedule.
  RankingMetrics result;
  for (int32_t u = 0; u < num_users; ++u) {
    const UserRanking& r = per_user[u];
    if (r.relevant == 0) {
      if (has_test[u]) ++result.num_skipped_users;
      continue;
    }
    result.precision += r.precision;
    result.recall += r.recall;
    result.map += r.ap;
    result.map_at_n += r.ap_at_n;
    result.ndcg += r.ndcg;
    ++result.num_users;
  }
  if (result.num_users == 0) return result;
  const double n = static_cast<double>(result.num_users);
  result.precision /= n;
  result.recall /= n;
  result.map /= n;
  result.map_at_n /= n;
  result.ndcg /= n;
  const double pr = result.precision + result.recall;
  result.f1 = pr > 0 ? 2 * result.precision * result.recall / pr : 0.0;
  return result;
}

}  // namespace fedmf::metrics
