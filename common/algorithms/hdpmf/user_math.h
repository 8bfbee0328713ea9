// One user's part of HDPMF's objective (eq. 3 without the noise term),
//   sum_j I_ij (t_ij - u_i^T v_j)^2 + lambda ||u_i||^2,   t_ij = W_ij R_ij (paper mode) or R_ij,
// on the device: the targets, the user's item-gradient rows g_j = 2 (u^T v_j - t_ij) u (eq. 4,
// zero for unrated items) and the user's own step u <- u - eta (2 sum_j (u^T v_j - t_ij) v_j
// + 2 lambda u), then kept on the unit ball (BoundUserFactor): Theorem 2's sensitivity assumes
// ||u_i|| <= 1, which the paper never enforces; projecting the model's own u (rather than only the
// u in the gradient) keeps the gradient that of the model being trained. Pure functions of the
// user's data, shared by the contributor and the tests.
#ifndef FEDMF_COMMON_ALGORITHMS_HDPMF_USER_MATH_H_
#define FEDMF_COMMON_ALGORITHMS_HDPMF_USER_MATH_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "common/data/ratings_dataset.h"
#include "fedmf/v1/hdpmf.pb.h"

namespace fedmf::algorithms::hdpmf {

// InvalidArgument unless every rated item is in [0, num_items) and every rating finite and in
// [rating_min, rating_max] (Delta, the sensitivity, assumes the range).
absl::Status CheckRatings(const data::RatingRow& ratings, const v1::HdpmfConfig& config);

// True when the configuration trains on stretched ratings W_ij R_ij and rescales at prediction:
// the HDPMF variant in paper mode.
bool Stretches(const v1::HdpmfConfig& config);

// t_ij in `ratings` order: W_ij R_ij = beta * gamma_j * R_ij when Stretches, else R_ij.
Eigen::VectorXd Targets(const v1::HdpmfConfig& config, const data::RatingRow& ratings, double beta,
                        const std::vector<double>& item_weights);

// u / ||u|| when ||u|| > 1, else u.
Eigen::VectorXd ProjectToUnitBall(Eigen::VectorXd u);

// ProjectToUnitBall(u), or u unchanged under the paper's choice (skip_user_projection).
Eigen::VectorXd BoundUserFactor(const v1::HdpmfConfig& config, Eigen::VectorXd u);

// The rows of the user's m x K item gradient at u = `user_factor` that can be nonzero: row k is
// item ratings.indices[k]'s (the rows of unrated items are zero).
Eigen::MatrixXd RatedItemGradient(const Eigen::MatrixXd& item_factors,
                                  const Eigen::VectorXd& user_factor,
                                  const data::RatingRow& ratings, const Eigen::VectorXd& targets);

// u after one step of `step` on V = `item_factors` (not yet bounded: BoundUserFactor).
Eigen::VectorXd StepUserFactor(const Eigen::MatrixXd& item_factors,
                               const Eigen::VectorXd& user_factor, const data::RatingRow& ratings,
                               const Eigen::VectorXd& targets, double lambda, double step);

}  // namespace fedmf::algorithms::hdpmf

#endif  // FEDMF_COMMON_ALGORITHMS_HDPMF_USER_MATH_H_
