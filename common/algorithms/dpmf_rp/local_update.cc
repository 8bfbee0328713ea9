#include "common/algorithms/dpmf_rp/local_update.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/dp/clipping.h"
#include "common/mf/weighted_solve.h"

namespace fedmf::algorithms::dpmf_rp {
namespace {

absl::Status CheckRatings(const data::RatingRow& ratings, int64_t num_items) {
  for (int64_t n = 0; n < ratings.size(); ++n) {
    if (ratings.indices[n] < 0 || ratings.indices[n] >= num_items) {
      return absl::InvalidArgumentError(absl::StrCat("rating ", n, ": item ", ratings.indices[n],
                                                     " is outside [0, ", num_items, ")"));
    }
    if (!std::isfinite(ratings.ratings[n])) {
      return absl::InvalidArgumentError(
          absl::StrCat("rating ", n, " (item ", ratings.indices[n], ") is not finite"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Eigen::VectorXd> SolveUserFactor(const mf::FactorMatrix& item_factors,
                                                const Eigen::MatrixXd& gram,
                                                const data::RatingRow& ratings, double lambda,
                                                double kappa) {
  if (absl::Status s = CheckRatings(ratings, item_factors.rows()); !s.ok()) return s;
  if (gram.rows() != item_factors.cols() || gram.cols() != item_factors.cols()) {
    return absl::InvalidArgumentError(absl::StrCat("gram is ", gram.rows(), " x ", gram.cols(),
                                                   ", rank is ", item_factors.cols()));
  }
  Eigen::VectorXd u = mf::SolveWeightedRow(gram, item_factors, ratings, kappa, lambda);
  if (!u.allFinite()) return absl::InvalidArgumentError("eq. 5 gave a non-finite user factor");
  return u;
}

absl::StatusOr<LocalGradient> ComputeLocalGradient(const mf::FactorMatrix& item_factors,
                                                   const Eigen::MatrixXd& gram,
                                                   const data::RatingRow& ratings,
                                                   const LocalUpdateParams& params) {
  absl::StatusOr<Eigen::VectorXd> u =
      SolveUserFactor(item_factors, gram, ratings, params.lambda, params.kappa);
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
