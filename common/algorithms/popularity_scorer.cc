#include "common/algorithms/popularity_scorer.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace fedmf::algorithms {

absl::StatusOr<Eigen::VectorXd> PopularityScorer::Scores(const data::RatingRow& ratings) const {
  for (int64_t k = 0; k < ratings.size(); ++k) {
    const int32_t item = ratings.indices[static_cast<size_t>(k)];
    if (item < 0 || item >= num_items()) {
      return absl::InvalidArgumentError(
          absl::StrCat("item ", item, " outside the model's ", num_items(), " items"));
    }
    if (!std::isfinite(ratings.ratings[static_cast<size_t>(k)])) {
      return absl::InvalidArgumentError(absl::StrCat("non-finite rating of item ", item));
    }
  }
  return popularity_;
}

absl::StatusOr<Eigen::VectorXd> PopularityScorer::PredictRatings(const data::RatingRow&,
                                                                 double) const {
  return absl::FailedPreconditionError("a popularity model predicts no ratings");
}

}  // namespace fedmf::algorithms
