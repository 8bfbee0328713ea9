// HDPMF's model as the runtime scores it (scorer.h): for a user, from their own ratings only, the
// ridge fit u = argmin sum_j (t_j - u^T v_j)^2 + lambda ||u||^2 on the public V, with t_j the
// stretched rating gamma_j R_ij when the model was trained on stretched ratings, and the rescaled
// prediction u^T v_j / gamma_j (Algorithm 1, lines 13-17). The user's private beta_i is not needed:
// the fit is linear in its targets, so fitting beta_i gamma_j R_ij and dividing by beta_i gamma_j
// gives the same prediction. Without stretching t_j = R_ij and the prediction is u^T v_j.
// Scores rank by the unclamped prediction; PredictRatings clamps it to the rating scale.
// HDPMF-R (the ablation) fits the same stretched targets and skips the division by gamma_j (its
// beta_i cancels in the fit, so only the item half of the rescaling is removed).
// The paper's own prediction, an ablation of the refit (Prediction::trained_factor): u^T v_j
// with the user's trained u_i, divided by beta_i gamma_j when stretched (HDPMF-R: not divided).
#ifndef FEDMF_COMMON_ALGORITHMS_HDPMF_SCORER_H_
#define FEDMF_COMMON_ALGORITHMS_HDPMF_SCORER_H_

#include <optional>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "common/algorithms/scorer.h"

namespace fedmf::algorithms::hdpmf {

class HdpmfScorer final : public Scorer {
 public:
  // How the model predicts: `item_weights` gamma (m values in (0, 1]) when trained on stretched
  // ratings, empty otherwise; `rescale` false for HDPMF-R; lambda > 0; the rating scale (unset:
  // predictions are not clamped, skip_prediction_clamp).
  struct Prediction {
    std::vector<double> item_weights;
    bool rescale = true;
    double lambda = 1;
    RatingScale scale{.min = 1, .max = 5};
    // The paper's prediction (score_with_trained_factor): the user's trained u_i instead of the
    // ridge fit, and a stretched prediction divided by beta_i gamma_j, beta_i = user_weight.
    std::optional<Eigen::VectorXd> trained_factor = std::nullopt;
    double user_weight = 1;
  };
  HdpmfScorer(Eigen::MatrixXd item_factors, Prediction prediction)
      : item_factors_(std::move(item_factors)), prediction_(std::move(prediction)) {}

  int32_t num_items() const override { return static_cast<int32_t>(item_factors_.rows()); }
  // The predicted ratings, unclamped (they rank without ties).
  absl::StatusOr<Eigen::VectorXd> Scores(const data::RatingRow& ratings) const override;
  bool predicts_ratings() const override { return true; }
  // Clamped to [rating_min, rating_max]; fallback_mean for every item of a user without ratings.
  absl::StatusOr<Eigen::VectorXd> PredictRatings(const data::RatingRow& ratings,
                                                 double fallback_mean) const override;

  const Eigen::MatrixXd& item_factors() const { return item_factors_; }
  const Prediction& prediction() const { return prediction_; }

 private:
  Eigen::MatrixXd item_factors_;
  Prediction prediction_;
};

}  // namespace fedmf::algorithms::hdpmf

#endif  // FEDMF_COMMON_ALGORITHMS_HDPMF_SCORER_H_
