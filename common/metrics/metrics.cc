#include "common/metrics/metrics.h"

#include <cassert>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/metrics/user_metrics.h"

namespace fedmf::metrics {
namespace {

// Users are handed out in small chunks: per-user cost varies with the number of test ratings.
constexpr int kUserChunk = 16;

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
      per_user[u] = EvaluateUserErrors(row, scores);
    }
  }

  // Sequential sums in user order: the result is independent of the thread schedule.
  MetricSums sums;
  for (const UserErrors& e : per_user) sums.Add(e);
  return sums.Errors();
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
      if (CountRelevant(test_row, options) == 0) continue;  // skipped: no need to score
      scorer(u, absl::MakeSpan(scores));
      per_user[u] = EvaluateUserRanking(train.user(u), test_row, scores, options, &candidates);
    }
  }

  // Sequential sums in user order: the result is independent of the thread schedule.
  MetricSums sums;
  for (int32_t u = 0; u < num_users; ++u) sums.Add(per_user[u], has_test[u] != 0);
  return sums.Ranking();
}

}  // namespace fedmf::metrics
