// HDPMF's model as the runtime scores it (scorer.h): for a user, from their own ratings only, the
// ridge fit u = argmin sum_j (t_j - u^T v_j)^2 + lambda ||u||^2 on the public V, with t_j the
// stretched rating gamma_j R_ij when the model was trained on stretched ratings, and the rescaled
// prediction u^T v_j / gamma_j (Algorithm 1, lines 13-17). The user's private beta_i is not needed:
// the fit is linear in its targets, so fitting beta_i gamma_j R_ij and dividing by beta_i gamma_j
// gives the same prediction. Without stretching t_j = R_ij and the prediction is u^T v_j.
#ifndef FEDMF_COMMON_ALGORITHMS_HDPMF_SCORER_H_
#define FEDMF_COMMON_ALGORITHMS_HDPMF_SCORER_H_

#include <vector>

#include "Eigen/Core"
#include "common/algorithms/scorer.h"

namespace fedmf::algorithms::hdpmf {

class HdpmfScorer final : public Scorer {
 public:
  // `item_weights`: gamma (m values in (0, 1]) when stretched, empty otherwise. lambda > 0.
  HdpmfScorer(Eigen::MatrixXd item_factors, std::vector<double> item_weights, double lambda)
      : item_factors_(std::move(item_factors)),
        item_weights_(std::move(item_weights)),
        lambda_(lambda) {}

  int32_t num_items() const override { return static_cast<int32_t>(item_factors_.rows()); }
  // The predicted ratings.
  absl::StatusOr<Eigen::VectorXd> Scores(const data::RatingRow& ratings) const override;
  bool predicts_ratings() const override { return true; }
  // fallback_mean for every item of a user without ratings.
  absl::StatusOr<Eigen::VectorXd> PredictRatings(const data::RatingRow& ratings,
                                                 double fallback_mean) const override;

  const Eigen::MatrixXd& item_factors() const { return item_factors_; }

 private:
  Eigen::MatrixXd item_factors_;
  std::vector<double> item_weights_;
  double lambda_;
};

}  // namespace fedmf::algorithms::hdpmf

#endif  // FEDMF_COMMON_ALGORITHMS_HDPMF_SCORER_H_
