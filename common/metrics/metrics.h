// Accuracy metrics of a rating predictor on held-out ratings: rating errors (RMSE, MAE, the
// per-user-averaged RMSE of DPMF-RP eq. 52) and top-N ranking quality (precision, recall, F1, mAP
// as DPMF-RP Appendix H; Recall@N and NDCG@N as PriviRec Section 4.2). Ranking is over every item
// the user did not rate in training.
#ifndef FEDMF_COMMON_METRICS_METRICS_H_
#define FEDMF_COMMON_METRICS_METRICS_H_

#include <cstdint>
#include <functional>

#include "absl/types/span.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::metrics {

// Writes the predicted rating of every item (scores.size() == num_items) for dense user `user`.
// Must be safe to call concurrently for different users.
using UserScorer = std::function<void(int32_t user, absl::Span<double> scores)>;

struct ErrorMetrics {
  double rmse = 0;           // sqrt(mean over all test ratings of squared error)
  double mae = 0;            // mean over all test ratings of absolute error
  double per_user_rmse = 0;  // DPMF-RP eq. 52: mean over test users of each user's RMSE
  int64_t num_ratings = 0;
  int32_t num_users = 0;  // users with at least one test rating
};

struct RankingOptions {
  int top_n = 10;                    // length of the recommendation list
  double relevance_threshold = 4.0;  // a test rating >= this is a relevant item
};

struct RankingMetrics {
  // Means over evaluated users (users with at least one relevant test item) of per-user values.
  double precision = 0;  // tp / N
  double recall = 0;     // tp / (number of relevant test items)
  double f1 = 0;         // DPMF-RP eq. 55: harmonic mean of the mean precision and mean recall
  double map = 0;        // DPMF-RP eqs. 56-57: AP = (1 / tp) * sum_k P(k) rel(k); 0 when tp = 0
  double ndcg = 0;       // binary-relevance NDCG@N, ideal DCG over min(N, relevant) positions
  int32_t num_users = 0;
};

// Errors of `scorer` on every rating in `test`.
ErrorMetrics EvaluateErrors(const data::RatingsDataset& test, const UserScorer& scorer);

// Ranking quality of `scorer` for every user of `test`; items each user rated in `train` are never
// recommended. `train` and `test` must share one index space (e.g. come from one split).
RankingMetrics EvaluateRanking(const data::RatingsDataset& train, const data::RatingsDataset& test,
                               const UserScorer& scorer, const RankingOptions& options = {});

}  // namespace fedmf::metrics

#endif  // FEDMF_COMMON_METRICS_METRICS_H_
