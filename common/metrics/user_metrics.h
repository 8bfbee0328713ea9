// One user's share of the accuracy metrics of metrics.h, and their sums over users: the central
// evaluation adds these per-user values up user by user, and a federated client computes them
// for its own users and secure-sums them (metric_codec.h). A user's values depend only on that
// user's train row, test row and predicted scores, so both paths use exactly these functions.
#ifndef FEDMF_COMMON_METRICS_USER_METRICS_H_
#define FEDMF_COMMON_METRICS_USER_METRICS_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "common/data/ratings_dataset.h"
#include "common/metrics/metrics.h"

namespace fedmf::metrics {

// Sums over one user's test ratings O_u, with e = score - rating.
struct UserErrors {
  double squared = 0;   // sum of e^2
  double absolute = 0;  // sum of |e|
  int64_t count = 0;    // |O_u|; 0: the user has no test rating
};

// `scores` holds the user's predicted rating of every item.
UserErrors EvaluateUserErrors(const data::RatingRow& test_row, absl::Span<const double> scores);

// The per-user ranking values defined in metrics.h (RankingMetrics). relevant == 0 marks a user
// that is not evaluated (no relevant test item); its other values are 0.
struct UserRanking {
  int64_t relevant = 0;  // R_u
  double precision = 0;
  double recall = 0;
  double ap = 0;
  double ap_at_n = 0;
  double ndcg = 0;
};

// R_u: the user's test ratings >= options.relevance_threshold.
int64_t CountRelevant(const data::RatingRow& test_row, const RankingOptions& options);

// The user's ranking values (metrics.h). `train_row` and `test_row` are the user's rows over one
// item index space, `scores` the predicted rating of every item; options.Validate() must be OK.
// `scratch` (may be null) is reused candidate storage, to avoid an allocation per user.
UserRanking EvaluateUserRanking(const data::RatingRow& train_row, const data::RatingRow& test_row,
                                absl::Span<const double> scores, const RankingOptions& options,
                                std::vector<int32_t>* scratch = nullptr);

// Sums over users of the per-user values, and the metrics they give (metrics.h definitions).
struct MetricSums {
  // Error part, over users with test ratings whose model predicts ratings.
  int64_t num_ratings = 0;
  double squared_error = 0;
  double absolute_error = 0;
  double user_rmse = 0;  // sum of sqrt(squared / count): per-user RMSE, DPMF-RP eq. 52
  int64_t error_users = 0;
  // Ranking part, over evaluated users.
  double precision = 0;
  double recall = 0;
  double ap = 0;
  double ap_at_n = 0;
  double ndcg = 0;
  int64_t ranking_users = 0;
  int64_t skipped_users = 0;  // users with test ratings, none of them relevant

  // Adds one user; a user without test ratings (count == 0) adds nothing.
  void Add(const UserErrors& user);
  // Adds one user; `has_test`: the user has test ratings (so relevant == 0 counts as skipped).
  void Add(const UserRanking& user, bool has_test);

  // True when the error part is absent rather than zero: the sums hold users with test ratings
  // (ranking_users + skipped_users > 0) but no rating error of any (error_users == 0). That
  // happens only when their model predicts no ratings (algorithms/scorer.h), so each added its
  // ranking part alone; reports then show RMSE/MAE as absent, never as 0.
  bool errors_absent() const;

  ErrorMetrics Errors() const;
  RankingMetrics Ranking() const;
};

}  // namespace fedmf::metrics

#endif  // FEDMF_COMMON_METRICS_USER_METRICS_H_
