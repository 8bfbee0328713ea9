#include "common/algorithms/hdpmf/user_math.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace fedmf::algorithms::hdpmf {

absl::Status CheckRatings(const data::RatingRow& ratings, const v1::HdpmfConfig& config) {
  for (int64_t k = 0; k < ratings.size(); ++k) {
    const int32_t item = ratings.indices[k];
    if (item < 0 || item >= config.num_items()) {
      return absl::InvalidArgumentError(
          absl::StrCat("hdpmf: rated item ", item, " outside the ", config.num_items(), " items"));
    }
    const double r = ratings.ratings[k];
    if (!(std::isfinite(r) && r >= config.rating_min() && r <= config.rating_max())) {
      return absl::InvalidArgumentError(absl::StrCat("hdpmf: rating ", r, " of item ", item,
                                                     " outside [", config.rating_min(), ", ",
                                                     config.rating_max(), "]"));
    }
  }
  return absl::OkStatus();
}

bool Stretches(const v1::HdpmfConfig& config) {
  return config.mode() == v1::HDPMF_MODE_PAPER && config.variant() == v1::HDPMF_VARIANT_HDPMF;
}

Eigen::VectorXd Targets(const v1::HdpmfConfig& config, const data::RatingRow& ratings, double beta,
                        const std::vector<double>& item_weights) {
  Eigen::VectorXd t(ratings.size());
  const bool stretch = Stretches(config);
  for (int64_t k = 0; k < ratings.size(); ++k) {
    t[k] = ratings.ratings[k];
    if (stretch) t[k] *= beta * item_weights[ratings.indices[k]];
  }
  return t;
}

Eigen::VectorXd ProjectToUnitBall(Eigen::VectorXd u) {
  const double norm = u.norm();
  if (norm > 1) u /= norm;
  return u;
}

Eigen::VectorXd BoundUserFactor(const v1::HdpmfConfig& config, Eigen::VectorXd u) {
  return config.skip_user_projection() ? u : ProjectToUnitBall(std::move(u));
}

Eigen::MatrixXd RatedItemGradient(const Eigen::MatrixXd& item_factors,
                                  const Eigen::VectorXd& user_factor,
                                  const data::RatingRow& ratings, const Eigen::VectorXd& targets) {
  Eigen::MatrixXd g(ratings.size(), item_factors.cols());
  for (int64_t k = 0; k < ratings.size(); ++k) {
    const int32_t j = ratings.indices[k];
    g.row(k) = 2 * (item_factors.row(j).dot(user_factor) - targets[k]) * user_factor.transpose();
  }
  return g;
}

Eigen::VectorXd StepUserFactor(const Eigen::MatrixXd& item_factors,
                               const Eigen::VectorXd& user_factor, const data::RatingRow& ratings,
                               const Eigen::VectorXd& targets, double lambda, double step) {
  Eigen::VectorXd grad = 2 * lambda * user_factor;
  for (int64_t k = 0; k < ratings.size(); ++k) {
    const int32_t j = ratings.indices[k];
    grad +=
        2 * (item_factors.row(j).dot(user_factor) - targets[k]) * item_factors.row(j).transpose();
  }
  return user_factor - step * grad;
}

}  // namespace fedmf::algorithms::hdpmf
