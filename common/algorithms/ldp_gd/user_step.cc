#include "common/algorithms/ldp_gd/user_step.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace fedmf::algorithms::ldp_gd {

absl::Status CheckRatings(const data::RatingRow& ratings, int64_t num_items) {
  for (int64_t k = 0; k < ratings.size(); ++k) {
    if (ratings.indices[k] < 0 || ratings.indices[k] >= num_items) {
      return absl::InvalidArgumentError(absl::StrCat("ldp-gd: rated item ", ratings.indices[k],
                                                     " outside the model's ", num_items, " items"));
    }
    if (!std::isfinite(ratings.ratings[k])) {
      return absl::InvalidArgumentError(
          absl::StrCat("ldp-gd: rating of item ", ratings.indices[k], " is not finite"));
    }
  }
  return absl::OkStatus();
}

double ItemGradientEntry(const Eigen::VectorXd& user_factor, const data::RatingRow& ratings,
                         const Eigen::VectorXd& residuals, int32_t item, int l) {
  const auto it = std::lower_bound(ratings.indices.begin(), ratings.indices.end(), item);
  if (it == ratings.indices.end() || *it != item) return 0;
  return -2 * user_factor[l] * residuals[it - ratings.indices.begin()];
}

double ProjectedGradientEntry(const Eigen::MatrixXd& phi, const Eigen::VectorXd& user_factor,
                              const data::RatingRow& ratings, const Eigen::VectorXd& residuals,
                              int64_t s, int l) {
  double sum = 0;
  for (int64_t k = 0; k < ratings.size(); ++k) sum += phi(s, ratings.indices[k]) * residuals[k];
  return -2 * user_factor[l] * sum;
}

void AddItemGradient(const Eigen::VectorXd& user_factor, const data::RatingRow& ratings,
                     const Eigen::VectorXd& residuals, Eigen::MatrixXd& gradient) {
  for (int64_t k = 0; k < ratings.size(); ++k) {
    gradient.row(ratings.indices[k]) -= 2 * residuals[k] * user_factor.transpose();
  }
}

}  // namespace fedmf::algorithms::ldp_gd
