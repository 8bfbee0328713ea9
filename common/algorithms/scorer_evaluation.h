// Central evaluation of any Scorer on a train/test split, through the per-user metric values the
// federated evaluation sums (common/metrics/user_metrics.h): every user with test ratings is scored
// from their own train row, ranked by Scores() and, if the model predicts ratings, charged the
// errors of PredictRatings() with the mean train rating as fallback (as server/evaluation.cc).
// Users go through Scorer::ScoresBatch in blocks (a graph filter scores a block far faster than
// its users one by one); a block's per-user metrics are computed in parallel and added in user
// order, so the sums do not depend on the thread count.
#ifndef FEDMF_COMMON_ALGORITHMS_SCORER_EVALUATION_H_
#define FEDMF_COMMON_ALGORITHMS_SCORER_EVALUATION_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/algorithms/scorer.h"
#include "common/data/splits.h"
#include "common/metrics/metrics.h"
#include "common/metrics/user_metrics.h"

namespace fedmf::algorithms {

struct ScorerEvaluationOptions {
  int32_t block_users = 64;  // users per ScoresBatch call, >= 1
  // After each block: users scored so far (of those with test ratings) and their total.
  std::function<void(int64_t users_done, int64_t users_total)> progress;
};

// One MetricSums per entry of `rankings`, each with the same error part. InvalidArgument for
// invalid options, a split whose train and test differ in users or items, or a model scoring
// another number of items than the split has; the model's own errors.
absl::StatusOr<std::vector<metrics::MetricSums>> EvaluateScorer(
    const Scorer& model, const data::TrainTest& split,
    absl::Span<const metrics::RankingOptions> rankings,
    const ScorerEvaluationOptions& options = {});

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_SCORER_EVALUATION_H_
