#include "common/mf/rating_predictor.h"

#include <cmath>
#include <utility>

#include "Eigen/Cholesky"
#include "absl/strings/str_cat.h"

namespace fedmf::mf {

absl::StatusOr<RatingPredictor> RatingPredictor::Fit(const FactorMatrix& item_factors,
                                                     const data::RatingRow& ratings,
                                                     const RatingPredictorOptions& options,
                                                     double fallback_mean) {
  if (!std::isfinite(options.ridge) || options.ridge < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("rating predictor: ridge=", options.ridge, " must be finite and >= 0"));
  }
  const Eigen::Index rank = item_factors.cols();
  if (ratings.size() == 0) {
    return RatingPredictor(fallback_mean, Eigen::VectorXd::Zero(rank));
  }
  double mean = 0;
  for (int64_t j = 0; j < ratings.size(); ++j) {
    const int32_t item = ratings.indices[j];
    if (item < 0 || item >= item_factors.rows()) {
      return absl::InvalidArgumentError(
          absl::StrCat("rating predictor: item ", item, " outside [0, ", item_factors.rows(), ")"));
    }
    if (!std::isfinite(ratings.ratings[j])) {
      return absl::InvalidArgumentError(
          absl::StrCat("rating predictor: rating of item ", item, " is not finite"));
    }
    mean += ratings.ratings[j];
  }
  mean /= static_cast<double>(ratings.size());
  Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(rank, rank);
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(rank);
  for (int64_t j = 0; j < ratings.size(); ++j) {
    const auto v = item_factors.row(ratings.indices[j]).transpose();
    gram.selfadjointView<Eigen::Lower>().rankUpdate(v);
    rhs += v * (ratings.ratings[j] - mean);
  }
  gram.triangularView<Eigen::StrictlyUpper>() = gram.transpose();
  // The tiny floor keeps the system solvable when every rated item's factor is 0.
  const double penalty = options.ridge * gram.trace() / static_cast<double>(rank) + 1e-12;
  gram.diagonal().array() += penalty;
  return RatingPredictor(mean, gram.ldlt().solve(rhs));
}

double RatingPredictor::Predict(const FactorMatrix& item_factors, int32_t item) const {
  return mean_ + item_factors.row(item).dot(weights_);
}

absl::StatusOr<std::vector<RatingPredictor>> FitRatingPredictors(
    const FactorMatrix& item_factors, const data::RatingsDataset& train,
    const RatingPredictorOptions& options) {
  double sum = 0;
  for (int32_t u = 0; u < train.num_users(); ++u) {
    for (float r : train.user(u).ratings) sum += r;
  }
  const double global_mean =
      train.num_ratings() > 0 ? sum / static_cast<double>(train.num_ratings()) : 0;
  std::vector<RatingPredictor> predictors;
  predictors.reserve(static_cast<size_t>(train.num_users()));
  for (int32_t u = 0; u < train.num_users(); ++u) {
    absl::StatusOr<RatingPredictor> p =
        RatingPredictor::Fit(item_factors, train.user(u), options, global_mean);
    if (!p.ok()) return p.status();
    predictors.push_back(*std::move(p));
  }
  return predictors;
}

}  // namespace fedmf::mf
