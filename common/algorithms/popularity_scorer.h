// A popularity model as a Scorer (common/algorithms/scorer.h): every user gets the same item
// scores (rated items are excluded when recommending), and no rating predictions. The model of
// the probe and of dp-popularity, and the shape of any ranking-only model without user factors.
#ifndef FEDMF_COMMON_ALGORITHMS_POPULARITY_SCORER_H_
#define FEDMF_COMMON_ALGORITHMS_POPULARITY_SCORER_H_

#include <cstdint>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/scorer.h"

namespace fedmf::algorithms {

class PopularityScorer final : public Scorer {
 public:
  explicit PopularityScorer(Eigen::VectorXd popularity) : popularity_(std::move(popularity)) {}

  int32_t num_items() const override { return static_cast<int32_t>(popularity_.size()); }
  absl::StatusOr<Eigen::VectorXd> Scores(const data::RatingRow& ratings) const override;
  bool predicts_ratings() const override { return false; }
  absl::StatusOr<Eigen::VectorXd> PredictRatings(const data::RatingRow& ratings,
                                                 double fallback_mean) const override;

 private:
  Eigen::VectorXd popularity_;
};

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_POPULARITY_SCORER_H_
