#include "server/evaluation.h"

#include <memory>
#include <vector>

#include "common/algorithms/registry.h"
#include "common/mf/rating_predictor.h"

namespace fedmf::server {

absl::StatusOr<Evaluation> Evaluate(const algorithms::Updater& updater,
                                    const data::TrainTest& split) {
  absl::StatusOr<v1::RoundPlan> plan = updater.Plan();
  if (!plan.ok()) return plan.status();
  absl::StatusOr<const algorithms::AlgorithmDefinition*> algorithm =
      algorithms::FindAlgorithm(plan->algorithm());
  if (!algorithm.ok()) return algorithm.status();
  absl::StatusOr<std::unique_ptr<algorithms::Contributor>> contributor =
      (*algorithm)->make_contributor(*plan);
  if (!contributor.ok()) return contributor.status();
  const mf::FactorMatrix& items = (*contributor)->item_factors();
  const int32_t num_users = split.train.num_users();
  std::vector<Eigen::VectorXd> factors(static_cast<size_t>(num_users));
  for (int32_t u = 0; u < num_users; ++u) {
    absl::StatusOr<Eigen::VectorXd> f = (*contributor)->UserFactor(split.train.user(u));
    if (!f.ok()) return f.status();
    factors[static_cast<size_t>(u)] = std::move(*f);
  }
  absl::StatusOr<std::vector<mf::RatingPredictor>> predictors =
      mf::FitRatingPredictors(items, split.train, {});
  if (!predictors.ok()) return predictors.status();
  // Ranking: eq. 5's factor (the paper's); ratings: the predictor (rating_predictor.h says why).
  const metrics::UserScorer rank_scorer = [&](int32_t user, absl::Span<double> scores) {
    Eigen::Map<Eigen::VectorXd>(scores.data(), static_cast<Eigen::Index>(scores.size())) =
        items * factors[static_cast<size_t>(user)];
  };
  const metrics::UserScorer rating_scorer = [&](int32_t user, absl::Span<double> scores) {
    const mf::RatingPredictor& p = (*predictors)[static_cast<size_t>(user)];
    Eigen::Map<Eigen::VectorXd>(scores.data(), static_cast<Eigen::Index>(scores.size())) =
        (items * p.weights()).array() + p.mean();
  };
  return Evaluation{
      metrics::EvaluateErrors(split.test, rating_scorer),
      metrics::EvaluateRanking(split.train, split.test, rank_scorer, (*algorithm)->ranking)};
}

}  // namespace fedmf::server
