#include "tools/central/trainer.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include "absl/time/clock.h"
#include "common/mf/rating_predictor.h"
#include "common/util/event_log.h"

namespace fedmf::central {
namespace {

// Lowest and highest rating in `ds`, the range predictions are clipped to.
std::pair<double, double> RatingRange(const data::RatingsDataset& ds) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (int32_t u = 0; u < ds.num_users(); ++u) {
    for (float r : ds.user(u).ratings) {
      lo = std::min<double>(lo, r);
      hi = std::max<double>(hi, r);
    }
  }
  return {lo, hi};
}

// Scores from mf::RatingPredictor fitted on each user's train ratings and the model's items.
absl::StatusOr<metrics::UserScorer> PredictorScorer(const mf::FactorModel& model,
                                                    const data::RatingsDataset& train) {
  absl::StatusOr<std::vector<mf::RatingPredictor>> fitted =
      mf::FitRatingPredictors(model.item_factors, train, {});
  if (!fitted.ok()) return fitted.status();
  auto predictors = std::make_shared<std::vector<mf::RatingPredictor>>(*std::move(fitted));
  return [&model, predictors](int32_t user, absl::Span<double> scores) {
    const mf::RatingPredictor& p = (*predictors)[static_cast<size_t>(user)];
    Eigen::Map<Eigen::VectorXd>(scores.data(), static_cast<Eigen::Index>(scores.size())) =
        (model.item_factors * p.weights()).array() + p.mean();
  };
}

metrics::UserScorer Clipped(metrics::UserScorer scorer, double lo, double hi) {
  return [scorer = std::move(scorer), lo, hi](int32_t user, absl::Span<double> scores) {
    scorer(user, scores);
    for (double& s : scores) s = std::clamp(s, lo, hi);
  };
}

}  // namespace

absl::StatusOr<mf::FactorModel> Train(const data::RatingsDataset& train,
                                      const TrainerConfig& config, int fold) {
  const auto progress = [fold](int iteration, const mf::FactorModel&) {
    EventLine("iteration").Add("fold", fold).Add("iteration", iteration);
  };
  if (config.model == "central-mf") return mf::TrainCentralMf(train, config.central, progress);
  return mf::TrainExplicitAls(train, config.als, progress);
}

absl::StatusOr<FoldResult> TrainAndEvaluate(const data::TrainTest& split,
                                            const TrainerConfig& config, int fold) {
  const absl::Time start = absl::Now();
  absl::StatusOr<mf::FactorModel> model = Train(split.train, config, fold);
  if (!model.ok()) return model.status();
  FoldResult result;
  result.fold = fold;
  result.train_seconds = absl::ToDoubleSeconds(absl::Now() - start);

  const auto [lo, hi] = RatingRange(split.train);
  const metrics::UserScorer raw = [&](int32_t user, absl::Span<double> scores) {
    model->ScoreUser(user, scores);
  };
  metrics::UserScorer rating_scorer = raw;
  if (config.model == "central-mf" && config.rating_predictor) {
    absl::StatusOr<metrics::UserScorer> predictor = PredictorScorer(*model, split.train);
    if (!predictor.ok()) return predictor.status();
    rating_scorer = *std::move(predictor);
  }
  // Clipping only helps error metrics; for ranking it would create ties at the top of the scale.
  if (config.clip_predictions) rating_scorer = Clipped(std::move(rating_scorer), lo, hi);
  result.errors = metrics::EvaluateErrors(split.test, rating_scorer);
  result.ranking = metrics::EvaluateRanking(split.train, split.test, raw, config.ranking);
  result.long_ranking = metrics::EvaluateRanking(split.train, split.test, raw, config.long_ranking);

  EventLine("fold_done")
      .Add("fold", fold)
      .Add("train_seconds", result.train_seconds)
      .Add("rmse", result.errors.rmse)
      .Add("mae", result.errors.mae)
      .Add("per_user_rmse", result.errors.per_user_rmse)
      .Add("precision", result.ranking.precision)
      .Add("recall", result.ranking.recall)
      .Add("f1", result.ranking.f1)
      .Add("map", result.ranking.map)
      .Add("map_at_n", result.ranking.map_at_n)
      .Add("recall_long", result.long_ranking.recall)
      .Add("ndcg_long", result.long_ranking.ndcg);
  return result;
}

}  // namespace fedmf::central
