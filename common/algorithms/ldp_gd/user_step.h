// One user's part of the gradient descent of Shin et al. eqs. (2)-(6), with M replaced by n (the
// server cannot know M under local DP): the user's item gradient rows
//   g_j = -2 y_ij u (r_ij - u^T v_j)            (zero for an item the user did not rate),
// the entries of it a report picks (Private GD: g_{j,l}; Private GD-DR: (Phi g)_{s,l}), and the
// user's own step u <- u - gamma (-(2/n) sum_j y_ij v_j (r_ij - u^T v_j) + 2 lambda_u u). Shared by
// the federated contributor and the central non-private GD, so both follow one objective.
#ifndef FEDMF_COMMON_ALGORITHMS_LDP_GD_USER_STEP_H_
#define FEDMF_COMMON_ALGORITHMS_LDP_GD_USER_STEP_H_

#include <cstdint>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::algorithms::ldp_gd {

// InvalidArgument unless every rated item is in [0, m) and every rating finite (the ratings come
// from the device's storage or a file).
absl::Status CheckRatings(const data::RatingRow& ratings, int64_t num_items);

// The user's residuals e_j = r_ij - u^T v_j on their rated items, in `ratings` order. V, here and
// in StepUserFactor, is read in place whichever its storage order (a client's row-major
// mf::FactorMatrix, the central trainer's Eigen::MatrixXd): a user costs its ratings, not m d.
template <typename Matrix>
Eigen::VectorXd Residuals(const Eigen::MatrixBase<Matrix>& item_factors,
                          const Eigen::VectorXd& user_factor, const data::RatingRow& ratings) {
  Eigen::VectorXd e(ratings.size());
  for (int64_t k = 0; k < ratings.size(); ++k) {
    e[k] = ratings.ratings[k] - item_factors.row(ratings.indices[k]).dot(user_factor);
  }
  return e;
}

// g_{j,l} for the item at row `item` (binary search among the rated ones; zero if unrated).
double ItemGradientEntry(const Eigen::VectorXd& user_factor, const data::RatingRow& ratings,
                         const Eigen::VectorXd& residuals, int32_t item, int l);

// (Phi g)_{s,l} = sum_j Phi(s, j) g_{j,l} over the rated items.
double ProjectedGradientEntry(const Eigen::MatrixXd& phi, const Eigen::VectorXd& user_factor,
                              const data::RatingRow& ratings, const Eigen::VectorXd& residuals,
                              int64_t s, int l);

// Adds the user's g_j to the rows of `gradient` (m x d) of their rated items.
void AddItemGradient(const Eigen::VectorXd& user_factor, const data::RatingRow& ratings,
                     const Eigen::VectorXd& residuals, Eigen::MatrixXd& gradient);

// u after one step of `step` on V = `item_factors` with `num_users` = n and `lambda_u`.
template <typename Matrix>
Eigen::VectorXd StepUserFactor(const Eigen::MatrixBase<Matrix>& item_factors,
                               const Eigen::VectorXd& user_factor, const data::RatingRow& ratings,
                               int64_t num_users, double lambda_u, double step) {
  const Eigen::VectorXd e = Residuals(item_factors, user_factor, ratings);
  Eigen::VectorXd gradient = 2 * lambda_u * user_factor;
  for (int64_t k = 0; k < ratings.size(); ++k) {
    gradient -= (2 * e[k] / static_cast<double>(num_users)) *
                item_factors.row(ratings.indices[k]).transpose();
  }
  return user_factor - step * gradient;
}

}  // namespace fedmf::algorithms::ldp_gd

#endif  // FEDMF_COMMON_ALGORITHMS_LDP_GD_USER_STEP_H_
