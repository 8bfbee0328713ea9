// Trains one centralized baseline on a train split and evaluates it on the test split, logging one
// progress line per ALS sweep.
#ifndef FEDMF_TOOLS_CENTRAL_TRAINER_H_
#define FEDMF_TOOLS_CENTRAL_TRAINER_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/data/ratings_dataset.h"
#include "common/data/splits.h"
#include "common/metrics/metrics.h"
#include "common/mf/als.h"
#include "common/mf/factor_model.h"

namespace fedmf::central {

struct TrainerConfig {
  std::string model = "als";  // "als" or "central-mf"
  mf::ExplicitAlsConfig als{.rank = 20, .lambda = 0.12};
  mf::CentralMfConfig central;
  bool clip_predictions = true;  // clip to the training rating range for RMSE/MAE
  // central-mf: RMSE/MAE from mf::RatingPredictor on the item factors (eq. 4's u_i v_j shrinks
  // ratings toward 0; rating_predictor.h), as the federated evaluation does; false: u_i v_j.
  bool rating_predictor = true;
  metrics::RankingOptions ranking;
  metrics::RankingOptions long_ranking{.top_n = 20};
};

struct FoldResult {
  int fold = 0;
  metrics::ErrorMetrics errors;
  metrics::RankingMetrics ranking;       // at TrainerConfig::ranking
  metrics::RankingMetrics long_ranking;  // at TrainerConfig::long_ranking
  double train_seconds = 0;
};

// Trains the configured model; `fold` only labels progress lines.
absl::StatusOr<mf::FactorModel> Train(const data::RatingsDataset& train,
                                      const TrainerConfig& config, int fold);

absl::StatusOr<FoldResult> TrainAndEvaluate(const data::TrainTest& split,
                                            const TrainerConfig& config, int fold);

}  // namespace fedmf::central

#endif  // FEDMF_TOOLS_CENTRAL_TRAINER_H_
