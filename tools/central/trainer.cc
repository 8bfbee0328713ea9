#include "tools/central/trainer.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include "absl/time/clock.h"
#include "common/algorithms/factor_scorer.h"
#include "common/algorithms/ldp_gd/central_gd.h"
#include "common/algorithms/lib/fmf_sgd/central_dp_sgd.h"
#include "common/algorithms/lib/fmf_sgd/privacy.h"
#include "common/algorithms/lib/graph_filter/build.h"
#include "common/algorithms/lib/graph_filter/scorer.h"
#include "common/algorithms/popularity_scorer.h"
#include "common/algorithms/scorer_evaluation.h"
#include "common/mf/rating_predictor.h"
#include "common/util/event_log.h"
#include "tools/central/hfl_trainer.h"

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

// The non-private GD of the local-DP MF paper on `train`; each user's factor is the one the
// federated ldp-gd scores with (FactorScorer::UserFactor), so both evaluate alike.
absl::StatusOr<mf::FactorModel> TrainLdpGd(const data::RatingsDataset& train,
                                           v1::LdpGdConfig config, int fold) {
  config.set_num_users(train.num_users());
  config.set_num_items(train.num_items());
  config.set_epsilon(1);  // unused: no noise; the config check wants a value
  config.set_projection(v1::LDP_PROJECTION_NONE);
  config.set_correction(false);
  config.set_cohort_size(train.num_users());
  config.set_min_contributors(1);
  absl::StatusOr<algorithms::ldp_gd::CentralGdModel> gd = algorithms::ldp_gd::TrainCentralGd(
      train, config, [fold](int64_t iteration, const Eigen::MatrixXd&) {
        EventLine("iteration").Add("fold", fold).Add("iteration", iteration);
      });
  if (!gd.ok()) return gd.status();
  const algorithms::FactorScorer scorer(gd->item_factors, config.score_lambda(),
                                        config.score_kappa());
  mf::FactorModel model;
  model.algorithm = "ldp-gd";
  model.item_factors = gd->item_factors;
  model.user_factors.resize(train.num_users(), config.rank());
  for (int32_t u = 0; u < train.num_users(); ++u) {
    absl::StatusOr<Eigen::VectorXd> f = scorer.UserFactor(train.user(u));
    if (!f.ok()) return f.status();
    model.user_factors.row(u) = f->transpose();
  }
  return model;
}

// The FMF paper's central DP-SGD; one `privacy` line with our accounting next to the paper's.
absl::StatusOr<mf::FactorModel> TrainDpSgdMf(const data::RatingsDataset& train,
                                             const TrainerConfig& config, int fold) {
  namespace fmf = algorithms::fmf_sgd;
  fmf::DpSgdMfConfig c = config.sgdmf;
  c.noise_multiplier = 0;
  if (config.sgdmf_epsilon > 0) {
    absl::StatusOr<double> z = fmf::CalibrateNoiseMultiplier(
        c, dp::PrivacyBudget::ApproxDp(config.sgdmf_epsilon, config.sgdmf_delta, c.unit));
    if (!z.ok()) return z.status();
    c.noise_multiplier = *z;
  }
  dp::Rng noise_rng(config.sgdmf_seed, /*stream=*/2);
  const int64_t every = std::max<int64_t>(1, fmf::NoisySteps(c) / 10);
  absl::StatusOr<fmf::CentralRun> run = fmf::TrainCentralDpSgdMf(
      train, c, config.sgdmf_seed, noise_rng, [&](int64_t step, const fmf::Embeddings& model) {
        if ((step + 1) % every != 0) return;
        EventLine("iteration")
            .Add("fold", fold)
            .Add("iteration", step + 1)
            .Add("train_mse", fmf::MeanSquaredError(train, model));
      });
  if (!run.ok()) return run.status();
  EventLine line("privacy");
  line.Add("fold", fold)
      .Add("unit", std::string(dp::PrivacyUnitName(c.unit)))
      .Add("clip", std::string(fmf::ClipModeName(c.clip)))
      .Add("trained_ratings", run->trained_ratings)
      .Add("noise_multiplier", c.noise_multiplier)
      .Add("sensitivity", fmf::StepSensitivity(c, true))
      .Add("paper_sensitivity", fmf::PaperStepSensitivity(c, true))
      .Add("noisy_steps", static_cast<int64_t>(run->ledger.entries().size()));
  if (c.noise_multiplier > 0) {
    absl::StatusOr<dp::PrivacyReport> report = run->ledger.Report(config.sgdmf_delta);
    if (!report.ok()) return report.status();
    line.Add("epsilon_budget", config.sgdmf_epsilon)
        .Add("delta", config.sgdmf_delta)
        .Add("epsilon_spent", report->improved.epsilon)
        .Add("epsilon_classic", report->classic.epsilon)
        .Add("paper_c1", fmf::PaperImpliedC1(c, config.sgdmf_epsilon, config.sgdmf_delta));
  }
  mf::FactorModel model;
  model.algorithm = "dp-sgdmf";
  model.user_factors = run->model.users;
  model.item_factors = run->model.items;
  return model;
}

// The baselines without factors: global-mean, user-mean, popularity (trainer.h).
metrics::UserScorer MeanScorer(const std::string& model, const data::RatingsDataset& train) {
  double total = 0;
  for (int32_t u = 0; u < train.num_users(); ++u) {
    for (float r : train.user(u).ratings) total += r;
  }
  const double global =
      train.num_ratings() > 0 ? total / static_cast<double>(train.num_ratings()) : 0;
  auto per = std::make_shared<std::vector<double>>();
  if (model == "user-mean") {
    for (int32_t u = 0; u < train.num_users(); ++u) {
      const data::RatingRow row = train.user(u);
      double sum = 0;
      for (float r : row.ratings) sum += r;
      per->push_back(row.size() > 0 ? sum / static_cast<double>(row.size()) : global);
    }
    return [per](int32_t user, absl::Span<double> scores) {
      std::fill(scores.begin(), scores.end(), (*per)[static_cast<size_t>(user)]);
    };
  }
  if (model == "popularity") {  // the item's mean rating
    for (int32_t i = 0; i < train.num_items(); ++i) {
      const data::RatingRow col = train.item(i);
      double sum = 0;
      for (float r : col.ratings) sum += r;
      per->push_back(col.size() > 0 ? sum / static_cast<double>(col.size()) : global);
    }
    return [per](int32_t, absl::Span<double> scores) {
      std::copy(per->begin(), per->end(), scores.begin());
    };
  }
  return [global](int32_t, absl::Span<double> scores) {
    std::fill(scores.begin(), scores.end(), global);
  };
}

// The popularity model's ranking: items by train rating count.
algorithms::PopularityScorer PopularityByCount(const data::RatingsDataset& train) {
  Eigen::VectorXd counts(train.num_items());
  for (int32_t i = 0; i < train.num_items(); ++i) {
    counts[i] = static_cast<double>(train.item(i).size());
  }
  return algorithms::PopularityScorer(std::move(counts));
}

// Both rankings of `result` through `model`'s Scorer, blocks of users at a time, one progress line
// per block.
absl::Status RankThroughScorer(const algorithms::Scorer& model, const data::TrainTest& split,
                               const TrainerConfig& config, int fold, FoldResult& result) {
  const absl::Time start = absl::Now();
  const metrics::RankingOptions rankings[] = {config.ranking, config.long_ranking};
  algorithms::ScorerEvaluationOptions options;
  options.block_users = config.block_users;
  options.progress = [fold, start](int64_t done, int64_t total) {
    EventLine("evaluate")
        .Add("fold", fold)
        .Add("users", done)
        .Add("of", total)
        .Add("seconds", absl::ToDoubleSeconds(absl::Now() - start));
  };
  absl::StatusOr<std::vector<metrics::MetricSums>> sums =
      algorithms::EvaluateScorer(model, split, rankings, options);
  if (!sums.ok()) return sums.status();
  result.ranking = (*sums)[0].Ranking();
  result.long_ranking = (*sums)[1].Ranking();
  return absl::OkStatus();
}

// A graph filter built on the train split (progress lines per stage and during the singular
// vectors), ranked through its Scorer; it predicts no ratings.
absl::StatusOr<FoldResult> EvaluateGraphFilter(const data::TrainTest& split,
                                               const TrainerConfig& config, int fold) {
  FoldResult result;
  result.fold = fold;
  result.rating_errors = false;
  const absl::Time start = absl::Now();
  algorithms::graph_filter::BuildProgress progress;
  progress.stage = [fold](absl::string_view stage, double seconds, absl::string_view detail) {
    EventLine("filter_stage")
        .Add("fold", fold)
        .Add("stage", stage)
        .Add("seconds", seconds)
        .Add("detail", detail);
  };
  progress.lanczos = [fold, start](int64_t products) {
    EventLine("lanczos")
        .Add("fold", fold)
        .Add("products", products)
        .Add("seconds", absl::ToDoubleSeconds(absl::Now() - start));
  };
  absl::StatusOr<std::shared_ptr<const algorithms::graph_filter::ItemFilter>> filter =
      algorithms::graph_filter::BuildCentralFilter(split.train, config.graph_filter, progress);
  if (!filter.ok()) return filter.status();
  result.train_seconds = absl::ToDoubleSeconds(absl::Now() - start);
  const algorithms::graph_filter::GraphFilterScorer scorer(*std::move(filter));
  const absl::Time evaluate = absl::Now();
  if (absl::Status s = RankThroughScorer(scorer, split, config, fold, result); !s.ok()) return s;
  result.evaluate_seconds = absl::ToDoubleSeconds(absl::Now() - evaluate);
  return result;
}

void LogFold(const FoldResult& result) {
  EventLine line("fold_done");
  line.Add("fold", result.fold)
      .Add("train_seconds", result.train_seconds)
      .Add("evaluate_seconds", result.evaluate_seconds);
  if (result.rating_errors) {
    line.Add("rmse", result.errors.rmse)
        .Add("mae", result.errors.mae)
        .Add("per_user_rmse", result.errors.per_user_rmse);
  } else {
    line.Add("rating_errors", "absent");
  }
  line.Add("precision", result.ranking.precision)
      .Add("recall", result.ranking.recall)
      .Add("f1", result.ranking.f1)
      .Add("map", result.ranking.map)
      .Add("map_at_n", result.ranking.map_at_n)
      .Add("recall_long", result.long_ranking.recall)
      .Add("ndcg_long", result.long_ranking.ndcg);
}

}  // namespace

bool IsFactorModel(const std::string& model) {
  return model == "als" || model == "central-mf" || model == "ldp-gd" || model == "dp-sgdmf";
}

bool IsGraphFilter(const std::string& model) {
  return model == "gf-cf" || model == "turbo-cf" || model == "bspm-lm" || model == "bspm-em";
}

absl::StatusOr<mf::FactorModel> Train(const data::RatingsDataset& train,
                                      const TrainerConfig& config, int fold) {
  const auto progress = [fold](int iteration, const mf::FactorModel&) {
    EventLine("iteration").Add("fold", fold).Add("iteration", iteration);
  };
  if (config.model == "central-mf") return mf::TrainCentralMf(train, config.central, progress);
  if (config.model == "ldp-gd") return TrainLdpGd(train, config.gd, fold);
  if (config.model == "dp-sgdmf") return TrainDpSgdMf(train, config, fold);
  if (config.model == "als") return mf::TrainExplicitAls(train, config.als, progress);
  return absl::InvalidArgumentError(
      absl::StrCat("model '", config.model, "' has no factors to train"));
}

absl::StatusOr<FoldResult> TrainAndEvaluate(const data::TrainTest& split,
                                            const TrainerConfig& config, int fold) {
  if (IsGraphFilter(config.model)) {
    absl::StatusOr<FoldResult> result = EvaluateGraphFilter(split, config, fold);
    if (result.ok()) LogFold(*result);
    return result;
  }
  const absl::Time start = absl::Now();
  FoldResult result;
  result.fold = fold;
  std::shared_ptr<const mf::FactorModel> model;
  metrics::UserScorer raw, rating_scorer;
  if (IsFactorModel(config.model)) {
    absl::StatusOr<mf::FactorModel> trained = Train(split.train, config, fold);
    if (!trained.ok()) return trained.status();
    model = std::make_shared<const mf::FactorModel>(*std::move(trained));
    raw = [model](int32_t user, absl::Span<double> scores) { model->ScoreUser(user, scores); };
    rating_scorer = raw;
    // dp-sgdmf's released U and V are the model: its predictions are <u_i, v_j> as the paper's.
    if (config.model != "als" && config.model != "dp-sgdmf" && config.rating_predictor) {
      absl::StatusOr<metrics::UserScorer> predictor = PredictorScorer(*model, split.train);
      if (!predictor.ok()) return predictor.status();
      rating_scorer = *std::move(predictor);  // refers to *model, alive until we return
    }
  } else if (config.model == "hfl-sgdmf") {
    absl::StatusOr<metrics::UserScorer> scorer = TrainHflSgdMf(split, config, fold);
    if (!scorer.ok()) return scorer.status();
    rating_scorer = *std::move(scorer);
    raw = rating_scorer;
  } else {
    rating_scorer = MeanScorer(config.model, split.train);
    raw = rating_scorer;  // the means rank nothing (constant scores); popularity: below
  }
  result.train_seconds = absl::ToDoubleSeconds(absl::Now() - start);

  const auto [lo, hi] = RatingRange(split.train);
  // Clipping only helps error metrics; for ranking it would create ties at the top of the scale.
  if (config.clip_predictions) rating_scorer = Clipped(std::move(rating_scorer), lo, hi);
  const absl::Time evaluate = absl::Now();
  result.errors = metrics::EvaluateErrors(split.test, rating_scorer);
  if (config.model == "popularity") {
    if (absl::Status s =
            RankThroughScorer(PopularityByCount(split.train), split, config, fold, result);
        !s.ok()) {
      return s;
    }
  } else {
    result.ranking = metrics::EvaluateRanking(split.train, split.test, raw, config.ranking);
    result.long_ranking =
        metrics::EvaluateRanking(split.train, split.test, raw, config.long_ranking);
  }
  result.evaluate_seconds = absl::ToDoubleSeconds(absl::Now() - evaluate);
  LogFold(result);
  return result;
}

}  // namespace fedmf::central
