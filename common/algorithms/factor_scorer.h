// The scoring (scorer.h) of a matrix-factorization model from its public item factors V and a
// user's own ratings: ranking scores V u with u the user's closed-form factor (DPMF-RP eq. 5,
// mf::SolveUserFactor, with the ranking kappa); predicted ratings from mf::RatingPredictor fitted
// on the same ratings (rating_predictor.h says why ratings and ranking use different fits). The
// one factor path of the runtime: clients, federated and central evaluation all score through it.
#ifndef FEDMF_COMMON_ALGORITHMS_FACTOR_SCORER_H_
#define FEDMF_COMMON_ALGORITHMS_FACTOR_SCORER_H_

#include <cstdint>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/scorer.h"
#include "common/data/ratings_dataset.h"
#include "common/mf/factor_model.h"

namespace fedmf::algorithms {

class FactorScorer final : public Scorer {
 public:
  // `item_factors` is V (m x k); `lambda` > 0 and `ranking_kappa` >= 0 are eq. 5's (validated
  // with the algorithm's config); predicted ratings are clamped to `scale` (when set).
  FactorScorer(mf::FactorMatrix item_factors, double lambda, double ranking_kappa,
               RatingScale scale = {});

  int32_t num_items() const override { return static_cast<int32_t>(item_factors_.rows()); }
  // V u with u = UserFactor(ratings).
  absl::StatusOr<Eigen::VectorXd> Scores(const data::RatingRow& ratings) const override;
  bool predicts_ratings() const override { return true; }
  // mean + V w of mf::RatingPredictor::Fit(V, ratings, default options, fallback_mean), clamped
  // to the scale. Scores are not: they rank, and clamping would tie the top items.
  absl::StatusOr<Eigen::VectorXd> PredictRatings(const data::RatingRow& ratings,
                                                 double fallback_mean) const override;

  // The user's factor u that ranks items (eq. 5 with lambda and the ranking kappa).
  absl::StatusOr<Eigen::VectorXd> UserFactor(const data::RatingRow& ratings) const;
  const mf::FactorMatrix& item_factors() const { return item_factors_; }
  const Eigen::MatrixXd& gram() const { return gram_; }  // V^T V

 private:
  mf::FactorMatrix item_factors_;
  Eigen::MatrixXd gram_;
  double lambda_;
  double ranking_kappa_;
  RatingScale scale_;
};

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_FACTOR_SCORER_H_
