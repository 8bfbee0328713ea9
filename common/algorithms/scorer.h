// A trained model as the runtime uses it: for one user, from that user's own ratings only, a
// ranking score for every item (recommendations, ranking metrics) and, where the model has them,
// predicted ratings (RMSE/MAE). Factor models (factor_scorer.h) and item-item filters (scores =
// r_u F, no user factor) alike; the runtime ranks and evaluates through this interface only
// (docs/algorithms.md, "Scoring"). An implementation is immutable and thread-safe.
#ifndef FEDMF_COMMON_ALGORITHMS_SCORER_H_
#define FEDMF_COMMON_ALGORITHMS_SCORER_H_

#include <cmath>
#include <cstdint>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::algorithms {

// The rating scale a model was trained on (the run's --rating_min, --rating_max): predicted
// ratings are clamped to it, since a rating outside it means nothing to a user. Unset (min >= max,
// e.g. a model from before the scale was recorded): nothing is clamped.
struct RatingScale {
  double min = 0;
  double max = 0;

  bool set() const { return min < max; }
  // InvalidArgument unless unset (both 0) or finite with min < max.
  absl::Status Validate() const {
    if ((min == 0 && max == 0) || (std::isfinite(min) && std::isfinite(max) && min < max)) {
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(
        absl::StrCat("rating scale [", min, ", ", max, "]: needs finite bounds, min < max"));
  }
  // `predicted` clamped to [min, max] when set, else unchanged.
  Eigen::VectorXd Clamp(Eigen::VectorXd predicted) const {
    if (set()) predicted = predicted.cwiseMax(min).cwiseMin(max);
    return predicted;
  }
};

class Scorer {
 public:
  virtual ~Scorer() = default;

  // m: the items the model scores, indices [0, m).
  virtual int32_t num_items() const = 0;

  // m ranking scores for the user with `ratings` (item indices in [0, m), no repeats): higher
  // ranks first, ties and NaN as common/metrics ranks. InvalidArgument for an item outside the
  // model or a non-finite rating.
  virtual absl::StatusOr<Eigen::VectorXd> Scores(const data::RatingRow& ratings) const = 0;

  // Scores() of several users at once: column b holds the scores of users[b] (m x users.size()).
  // The default asks Scores() user by user; a model that scores a block of users more cheaply
  // together (the graph filters: sparse products over the whole block) overrides it. Errors as
  // Scores.
  virtual absl::StatusOr<Eigen::MatrixXd> ScoresBatch(
      absl::Span<const data::RatingRow> users) const {
    Eigen::MatrixXd out(num_items(), static_cast<Eigen::Index>(users.size()));
    for (size_t b = 0; b < users.size(); ++b) {
      absl::StatusOr<Eigen::VectorXd> scores = Scores(users[b]);
      if (!scores.ok()) return scores.status();
      if (scores->size() != out.rows()) {
        return absl::InternalError(absl::StrCat("the model gave ", scores->size(),
                                                " scores for its ", out.rows(), " items"));
      }
      out.col(static_cast<Eigen::Index>(b)) = *scores;
    }
    return out;
  }

  // False for a model that only ranks (e.g. a graph filter): it predicts no ratings, and rating
  // errors (RMSE/MAE) are then absent, not 0 (common/metrics/user_metrics.h).
  virtual bool predicts_ratings() const = 0;

  // m predicted ratings for the user with `ratings` (as in Scores), within the model's rating
  // scale where it knows one (RatingScale). `fallback_mean` is the rating
  // to fall back on where the user's ratings say nothing (a user without ratings): the mean of all
  // train ratings where the caller knows it (central evaluation), else 0 (a client). Errors as
  // Scores; FailedPrecondition when !predicts_ratings().
  virtual absl::StatusOr<Eigen::VectorXd> PredictRatings(const data::RatingRow& ratings,
                                                         double fallback_mean) const = 0;
};

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_SCORER_H_
