// DP-ALS's item side: the coordinator's solve of every item factor from the decoded sum of the
// users' weighted statistics (config.h layout), the item rows of the confidence-weighted objective
// of DPMF-RP eq. 4 (mf::SolveWeightedRow with the users' factors fixed):
//   A = sum_i u_i u_i^T,  G_j = sum_{i rated j} u_i u_i^T,  b_j = sum_{i rated j} r_ij u_i
//   v_j = (A + kappa G_j + mu I)^{-1} (1 + kappa) b_j
// each statistic unweighted (divided by its weight) and its symmetric matrix rebuilt from the upper
// triangle. item_gram full: G_j as summed (the exact ALS step without noise); count: G_j =
// max(c_j, 0) A / n with c_j the item's decoded rater count; none: G_j = 0. With noise, the Gram
// (A + kappa G_j, or A alone) is first projected onto the positive semidefinite cone (negative
// eigenvalues set to 0: post-processing), so the ridge mu keeps every solve well posed (with
// scale_to_cap the sums weigh each user by sqrt(C / c_i): a weighted ALS step), and each
// b_j is shrunk by max(0, 1 - t k sigma_b^2 / ||b_j||^2) (t = config.linear_shrinkage, sigma_b =
// noise_std / w_b the noise std of one coordinate of b_j): an item with few raters, whose b_j is
// mostly noise, gets a factor near 0 instead of a random one.
#ifndef FEDMF_COMMON_ALGORITHMS_DP_ALS_ITEM_UPDATE_H_
#define FEDMF_COMMON_ALGORITHMS_DP_ALS_ITEM_UPDATE_H_

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/mf/factor_model.h"
#include "fedmf/v1/dp_als.pb.h"

namespace fedmf::algorithms::dp_als {

// The symmetric k x k matrix whose upper triangle (row by row) is values[0, K).
Eigen::MatrixXd FromUpperTriangle(const Eigen::Ref<const Eigen::VectorXd>& values, int rank);

// V (m x k) from the decoded sum (D values, config.h) released with `noise`. InvalidArgument for
// a sum of another length or with a non-finite value.
absl::StatusOr<mf::FactorMatrix> SolveItemFactors(const v1::DpAlsConfig& config,
                                                  const v1::DpAlsNoise& noise,
                                                  const Eigen::VectorXd& sum);

}  // namespace fedmf::algorithms::dp_als

#endif  // FEDMF_COMMON_ALGORITHMS_DP_ALS_ITEM_UPDATE_H_
