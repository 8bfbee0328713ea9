#include "common/algorithms/hdpmf/scorer.h"

#include <cmath>

#include "Eigen/Cholesky"
#include "absl/strings/str_cat.h"

namespace fedmf::algorithms::hdpmf {

absl::StatusOr<Eigen::VectorXd> HdpmfScorer::Scores(const data::RatingRow& ratings) const {
  const int64_t m = item_factors_.rows();
  for (int64_t k = 0; k < ratings.size(); ++k) {
    if (ratings.indices[k] < 0 || ratings.indices[k] >= m || !std::isfinite(ratings.ratings[k])) {
      return absl::InvalidArgumentError(absl::StrCat("hdpmf scorer: rating of item ",
                                                     ratings.indices[k], " outside the ", m,
                                                     " items or not finite"));
    }
  }
  const std::vector<double>& gamma = prediction_.item_weights;
  if (prediction_.trained_factor) {
    Eigen::VectorXd predicted = item_factors_ * *prediction_.trained_factor;
    if (!gamma.empty() && prediction_.rescale) {
      for (int64_t j = 0; j < m; ++j) predicted[j] /= prediction_.user_weight * gamma[j];
    }
    return predicted;
  }
  const int64_t k_dim = item_factors_.cols();
  Eigen::MatrixXd a = prediction_.lambda * Eigen::MatrixXd::Identity(k_dim, k_dim);
  Eigen::VectorXd b = Eigen::VectorXd::Zero(k_dim);
  for (int64_t k = 0; k < ratings.size(); ++k) {
    const int32_t j = ratings.indices[k];
    const auto v = item_factors_.row(j).transpose();
    a.noalias() += v * v.transpose();
    b += (gamma.empty() ? 1.0 : gamma[j]) * ratings.ratings[k] * v;
  }
  const Eigen::VectorXd u = a.ldlt().solve(b);
  Eigen::VectorXd predicted = item_factors_ * u;
  if (!gamma.empty() && prediction_.rescale) {
    for (int64_t j = 0; j < m; ++j) predicted[j] /= gamma[j];
  }
  return predicted;
}

absl::StatusOr<Eigen::VectorXd> HdpmfScorer::PredictRatings(const data::RatingRow& ratings,
                                                            double fallback_mean) const {
  if (ratings.size() == 0) return Eigen::VectorXd::Constant(item_factors_.rows(), fallback_mean);
  absl::StatusOr<Eigen::VectorXd> predicted = Scores(ratings);
  if (!predicted.ok()) return predicted.status();
  return prediction_.scale.Clamp(*std::move(predicted));
}

}  // namespace fedmf::algorithms::hdpmf
