#include "common/algorithms/lib/graph_filter/scorer.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/graph_filter/sparse_block.h"

namespace fedmf::algorithms::graph_filter {

absl::StatusOr<Eigen::VectorXd> GraphFilterScorer::Scores(const data::RatingRow& ratings) const {
  absl::StatusOr<Eigen::MatrixXd> scores = ScoresBatch(absl::MakeConstSpan(&ratings, 1));
  if (!scores.ok()) return scores.status();
  return Eigen::VectorXd(scores->col(0));
}

absl::StatusOr<Eigen::MatrixXd> GraphFilterScorer::ScoresBatch(
    absl::Span<const data::RatingRow> users) const {
  for (const data::RatingRow& row : users) {
    for (int64_t k = 0; k < row.size(); ++k) {
      const int32_t item = row.indices[static_cast<size_t>(k)];
      if (item < 0 || item >= num_items()) {
        return absl::InvalidArgumentError(
            absl::StrCat("item ", item, " outside the model's ", num_items(), " items"));
      }
      if (!std::isfinite(row.ratings[static_cast<size_t>(k)])) {
        return absl::InvalidArgumentError(absl::StrCat("non-finite rating of item ", item));
      }
    }
  }
  return ToColumnMajor(filter_->ApplyToUsers(users));
}

absl::StatusOr<Eigen::VectorXd> GraphFilterScorer::PredictRatings(const data::RatingRow&,
                                                                  double) const {
  return absl::FailedPreconditionError("a graph filter predicts no ratings");
}

}  // namespace fedmf::algorithms::graph_filter
