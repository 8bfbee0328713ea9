// The client-side math of DPMF-RP Algorithm 2 for one user, before projection and privatization:
//   u   = eq. 5, the weighted closed form (mf::SolveUserFactor with kappa and lambda)
//   u^  = u * min(1, B1 / ||u||_1)                                  (eq. 17)
//   w_j = c_ij * clip(r_ij - <u^, v_j>, [-e, e]) for every item j    (eq. 16)
// with c_ij = 1 + kappa and r_ij the rating on the user's rated items, c_ij = 1 and r_ij = 0 on
// all others (eq. 3). The user's gradient rows are f(i, j) = w_j u^ (rank one: F = w u^T), and the
// user's share of eq. 7 is dJ/dv_j = -2 f(i, j) (+ the server's 2 mu v_j).
#ifndef FEDMF_COMMON_ALGORITHMS_DPMF_RP_LOCAL_UPDATE_H_
#define FEDMF_COMMON_ALGORITHMS_DPMF_RP_LOCAL_UPDATE_H_

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/data/ratings_dataset.h"
#include "common/mf/factor_model.h"

namespace fedmf::algorithms::dpmf_rp {

struct LocalUpdateParams {
  double lambda = 0;        // > 0
  double kappa = 0;         // >= 0
  double user_l1_clip = 0;  // B1 > 0
  double error_clip = 0;    // e > 0
};

struct LocalGradient {
  Eigen::VectorXd user_factor;     // u (eq. 5)
  Eigen::VectorXd clipped_factor;  // u^ (eq. 17), ||u^||_1 <= B1
  Eigen::VectorXd weights;         // w (m entries), |w_j| <= c_ij e
};

// `item_factors` is V (m x k) and `gram` = V^T V (k x k, once per round for all users). Error if
// an item index is outside [0, m) or a rating is not finite (mf::SolveUserFactor's checks).
absl::StatusOr<LocalGradient> ComputeLocalGradient(const mf::FactorMatrix& item_factors,
                                                   const Eigen::MatrixXd& gram,
                                                   const data::RatingRow& ratings,
                                                   const LocalUpdateParams& params);

}  // namespace fedmf::algorithms::dpmf_rp

#endif  // FEDMF_COMMON_ALGORITHMS_DPMF_RP_LOCAL_UPDATE_H_
