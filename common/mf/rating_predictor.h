// Rating prediction for one user from public item factors V and the user's own ratings: the
// user's mean rating plus a ridge regression of their deviations from it on the factors of the
// items they rated,
//   r^_j = mean + <v_j, w>,  w = argmin sum_{j in O} (r_j - mean - <v_j, w>)^2 + lambda' ||w||^2,
// with lambda' = ridge * tr(V_O^T V_O) / k so the penalty follows the scale of V.
// Why: DPMF-RP's objective (eq. 4) fits every unobserved entry to 0 with confidence 1, which is
// right for ranking but shrinks predicted ratings toward 0 (CentralMF's test RMSE is 1.38 on
// ML-100K with eq. 5's user factor). The paper reports RMSE without saying how it predicts; this
// predictor needs nothing beyond what a client already holds, so ranking keeps eq. 5's factor and
// rating predictions (RMSE/MAE, the client's predicted ratings) use this one.
#ifndef FEDMF_COMMON_MF_RATING_PREDICTOR_H_
#define FEDMF_COMMON_MF_RATING_PREDICTOR_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/data/ratings_dataset.h"
#include "common/mf/factor_model.h"

namespace fedmf::mf {

struct RatingPredictorOptions {
  double ridge = 0.1;  // lambda' relative to the mean squared factor norm of the rated items
};

class RatingPredictor {
 public:
  // A user without ratings predicts `fallback_mean` everywhere. Errors: an item index outside
  // `item_factors`, a non-finite rating, ridge < 0 or non-finite.
  static absl::StatusOr<RatingPredictor> Fit(const FactorMatrix& item_factors,
                                             const data::RatingRow& ratings,
                                             const RatingPredictorOptions& options,
                                             double fallback_mean);

  double mean() const { return mean_; }
  const Eigen::VectorXd& weights() const { return weights_; }
  // mean + <v_item, w>; `item` must be a row of the factors the predictor was fitted on.
  double Predict(const FactorMatrix& item_factors, int32_t item) const;

 private:
  RatingPredictor(double mean, Eigen::VectorXd weights)
      : mean_(mean), weights_(std::move(weights)) {}

  double mean_;
  Eigen::VectorXd weights_;
};

// One predictor per user of `train`; users without ratings fall back to the mean of all ratings.
absl::StatusOr<std::vector<RatingPredictor>> FitRatingPredictors(
    const FactorMatrix& item_factors, const data::RatingsDataset& train,
    const RatingPredictorOptions& options);

}  // namespace fedmf::mf

#endif  // FEDMF_COMMON_MF_RATING_PREDICTOR_H_
