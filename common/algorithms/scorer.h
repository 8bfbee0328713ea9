// A trained model as the runtime uses it: for one user, from that user's own ratings only, a
// ranking score for every item (recommendations, ranking metrics) and, where the model has them,
// predicted ratings (RMSE/MAE). Factor models (factor_scorer.h) and item-item filters (scores =
// r_u F, no user factor) alike; the runtime ranks and evaluates through this interface only
// (docs/algorithms.md, "Scoring"). An implementation is immutable and thread-safe.
#ifndef FEDMF_COMMON_ALGORITHMS_SCORER_H_
#define FEDMF_COMMON_ALGORITHMS_SCORER_H_

#include <cstdint>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::algorithms {

class Scorer {
 public:
  virtual ~Scorer() = default;

  // m: the items the model scores, indices [0, m).
  virtual int32_t num_items() const = 0;

  // m ranking scores for the user with `ratings` (item indices in [0, m), no repeats): higher
  // ranks first, ties and NaN as common/metrics ranks. InvalidArgument for an item outside the
  // model or a non-finite rating.
  virtual absl::StatusOr<Eigen::VectorXd> Scores(const data::RatingRow& ratings) const = 0;

  // False for a model that only ranks (e.g. a graph filter): it predicts no ratings, and rating
  // errors (RMSE/MAE) are then absent, not 0 (common/metrics/user_metrics.h).
  virtual bool predicts_ratings() const = 0;

  // m predicted ratings for the user with `ratings` (as in Scores). `fallback_mean` is the rating
  // to fall back on where the user's ratings say nothing (a user without ratings): the mean of all
  // train ratings where the caller knows it (central evaluation), else 0 (a client). Errors as
  // Scores; FailedPrecondition when !predicts_ratings().
  virtual absl::StatusOr<Eigen::VectorXd> PredictRatings(const data::RatingRow& ratings,
                                                         double fallback_mean) const = 0;
};

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_SCORER_H_
