#include "common/algorithms/dpmf_rp/local_update.h"

#include <algorithm>

#include "common/dp/clipping.h"
#include "common/mf/weighted_solve.h"

namespace fedmf::algorithms::dpmf_rp {

absl::StatusOr<LocalGradient> ComputeLocalGradient(const mf::FactorMatrix& item_factors,
                                                   const Eigen::MatrixXd& gram,
                                                   const data::RatingRow& ratings,
                                                   const LocalUpdateParams& params) {
  absl::StatusOr<Eigen::VectorXd> u =
      mf::SolveUserFactor(item_factors, gram, ratings, params.lambda, params.kappa);
  if (!u.ok()) return u.status();
  absl::StatusOr<Eigen::VectorXd> clipped = dp::ClipL1(*u, params.user_l1_clip);
  if (!clipped.ok()) return clipped.status();
  const double e = params.error_clip;
  // Unobserved items: c = 1, r = 0, so w_j = clip(-<u^, v_j>).
  Eigen::VectorXd weights = (-(item_factors * *clipped)).cwiseMax(-e).cwiseMin(e);
  for (int64_t n = 0; n < ratings.size(); ++n) {
    const int32_t j = ratings.indices[n];
    const double error = ratings.ratings[n] - item_factors.row(j).dot(*clipped);
    weights[j] = (1 + params.kappa) * std::clamp(error, -e, e);
  }
  return LocalGradient{.user_factor = *std::move(u),
                       .clipped_factor = *std::move(clipped),
                       .weights = std::move(weights)};
}

}  // namespace fedmf::algorithms::dpmf_rp
