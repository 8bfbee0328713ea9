#include "common/algorithms/factor_scorer.h"

#include <utility>

#include "common/mf/rating_predictor.h"
#include "common/mf/weighted_solve.h"

namespace fedmf::algorithms {

FactorScorer::FactorScorer(mf::FactorMatrix item_factors, double lambda, double ranking_kappa,
                           RatingScale scale)
    : item_factors_(std::move(item_factors)),
      gram_(mf::FactorGram(item_factors_)),
      lambda_(lambda),
      ranking_kappa_(ranking_kappa),
      scale_(scale) {}

absl::StatusOr<Eigen::VectorXd> FactorScorer::UserFactor(const data::RatingRow& ratings) const {
  return mf::SolveUserFactor(item_factors_, gram_, ratings, lambda_, ranking_kappa_);
}

absl::StatusOr<Eigen::VectorXd> FactorScorer::Scores(const data::RatingRow& ratings) const {
  absl::StatusOr<Eigen::VectorXd> u = UserFactor(ratings);
  if (!u.ok()) return u.status();
  Eigen::VectorXd scores = item_factors_ * *u;
  return scores;
}

absl::StatusOr<Eigen::VectorXd> FactorScorer::PredictRatings(const data::RatingRow& ratings,
                                                             double fallback_mean) const {
  absl::StatusOr<mf::RatingPredictor> predictor =
      mf::RatingPredictor::Fit(item_factors_, ratings, {}, fallback_mean);
  if (!predictor.ok()) return predictor.status();
  Eigen::VectorXd predicted = (item_factors_ * predictor->weights()).array() + predictor->mean();
  return scale_.Clamp(std::move(predicted));
}

}  // namespace fedmf::algorithms
