// A graph-filter model as the runtime's Scorer (common/algorithms/scorer.h): a user's scores are
// r_u F from their binary item row (every rated item counts 1, whatever the rating), no user factor
// and no rating predictions. Blocks of users are scored together (ScoresBatch), which is what makes
// the filters' sparse products cheap.
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_SCORER_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_SCORER_H_

#include <cstdint>
#include <memory>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/algorithms/lib/graph_filter/item_filter.h"
#include "common/algorithms/scorer.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::algorithms::graph_filter {

class GraphFilterScorer final : public Scorer {
 public:
  explicit GraphFilterScorer(std::shared_ptr<const ItemFilter> filter)
      : filter_(std::move(filter)) {}

  int32_t num_items() const override { return filter_->num_items(); }
  absl::StatusOr<Eigen::VectorXd> Scores(const data::RatingRow& ratings) const override;
  // InvalidArgument for an item outside the model or a non-finite rating of any user.
  absl::StatusOr<Eigen::MatrixXd> ScoresBatch(
      absl::Span<const data::RatingRow> users) const override;
  bool predicts_ratings() const override { return false; }
  absl::StatusOr<Eigen::VectorXd> PredictRatings(const data::RatingRow& ratings,
                                                 double fallback_mean) const override;

 private:
  std::shared_ptr<const ItemFilter> filter_;
};

}  // namespace fedmf::algorithms::graph_filter

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_SCORER_H_
