// Accuracy metrics of a rating predictor on held-out ratings: rating errors (RMSE, MAE, the
// per-user-averaged RMSE of DPMF-RP eq. 52) and top-N ranking quality (precision, recall, F1, mAP
// as DPMF-RP Appendix H; Recall@N and NDCG@N as PriviRec Section 4.2). Ranking is over every item
// the user did not rate in training. Results do not depend on the number of OpenMP threads. The
// per-user values and their sums are public in user_metrics.h (federated evaluation computes them
// on the clients).
#ifndef FEDMF_COMMON_METRICS_METRICS_H_
#define FEDMF_COMMON_METRICS_METRICS_H_

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::metrics {

// Writes the predicted rating of every item (scores.size() == num_items) for dense user `user`.
// Must be safe to call concurrently for different users (evaluation runs users in parallel).
using UserScorer = std::function<void(int32_t user, absl::Span<double> scores)>;

// Notation: O_u = the test ratings of user u, e = predicted - true rating, U = users with |O_u| >
// 0.
struct ErrorMetrics {
  double rmse = 0;           // sqrt(sum over all test ratings of e^2 / num_ratings)
  double mae = 0;            // sum over all test ratings of |e| / num_ratings
  double per_user_rmse = 0;  // DPMF-RP eq. 52: (1/|U|) sum_{u in U} sqrt((1/|O_u|) sum_{O_u} e^2)
  int64_t num_ratings = 0;
  int32_t num_users = 0;  // |U|: users with at least one test rating
};

// Ranking setup. Relevance is binary: a test item is relevant iff its test rating is >=
// relevance_threshold. For explicit-rating data (MovieLens, Yelp stars) this is the threshold of
// DPMF-RP Appendix H; for implicit-feedback data stored as rating 1 use a threshold <= 1 so every
// test interaction is relevant, as in PriviRec's Gowalla/Yelp2018/Amazon-Book evaluation.
struct RankingOptions {
  int top_n = 10;                    // N: length of the recommendation list, >= 1
  double relevance_threshold = 4.0;  // a test rating >= this is a relevant item; finite

  // OK iff top_n >= 1 and relevance_threshold is finite. For options read from flags or files.
  absl::Status Validate() const;
};

// DPMF-RP Appendix H: precision/recall/F1/mAP@10 with threshold 4.
inline constexpr RankingOptions kDpmfRpRanking{.top_n = 10, .relevance_threshold = 4.0};
// PriviRec Section 4.2: Recall@20 and NDCG@20 (read `recall` and `ndcg`). Threshold 4 for
// explicit ratings; see RankingOptions for implicit feedback.
inline constexpr RankingOptions kPriviRecRanking{.top_n = 20, .relevance_threshold = 4.0};

// Per evaluated user u (a user with R_u > 0 relevant test items):
//   candidates = every item u did not rate in train (u's test items are candidates), ranked by
//     score descending, ties broken by item index ascending; NaN scores rank as -infinity.
//   list = the first L = min(N, #candidates) candidates; rel(k) = 1 iff the k-th is relevant.
//   tp = sum_{k<=L} rel(k); P(k) = (sum_{j<=k} rel(j)) / k.
//   precision = tp / N (also when L < N); recall = tp / R_u;
//   AP = (1/tp) sum_{k<=L} P(k) rel(k), 0 when tp = 0 (DPMF-RP eq. 56, read literally);
//   AP@N = (1/min(N, R_u)) sum_{k<=L} P(k) rel(k) (the usual AP@N; it also charges the relevant
//     items the list missed, which eq. 56's 1/tp does not);
//   NDCG = DCG / IDCG with DCG = sum_{k<=L} rel(k) / log2(k + 1) and
//     IDCG = sum_{k=1}^{min(N, R_u)} 1 / log2(k + 1).
// Users with test ratings but no relevant one are skipped (num_skipped_users); users without test
// ratings are ignored. Relevant test items that also appear in train count in R_u but can never
// be recommended.
struct RankingMetrics {
  // Means over evaluated users of the per-user values above (0 when there is none).
  double precision = 0;   // DPMF-RP eq. 53
  double recall = 0;      // DPMF-RP eq. 54; PriviRec Recall@N
  double f1 = 0;          // DPMF-RP eq. 55: 2PR/(P+R) of the mean P and mean R; 0 when P+R = 0
  double map = 0;         // DPMF-RP eq. 57: mean AP
  double map_at_n = 0;    // mean AP@N
  double ndcg = 0;        // PriviRec NDCG@N with binary relevance
  int32_t num_users = 0;  // evaluated users (at least one relevant test item)
  int32_t num_skipped_users = 0;  // users with test ratings, none of them relevant
};

// Errors of `scorer` on every rating in `test`. The scorer is called once per user with test
// ratings. A NaN prediction makes the affected metrics NaN.
ErrorMetrics EvaluateErrors(const data::RatingsDataset& test, const UserScorer& scorer);

// Ranking quality of `scorer` for every user of `test`; items each user rated in `train` are never
// recommended. Preconditions: `train` and `test` share one index space (same num_users and
// num_items, e.g. both Subset()s of one dataset) and options.Validate() is OK.
RankingMetrics EvaluateRanking(const data::RatingsDataset& train, const data::RatingsDataset& test,
                               const UserScorer& scorer, const RankingOptions& options = {});

}  // namespace fedmf::metrics

#endif  // FEDMF_COMMON_METRICS_METRICS_H_
