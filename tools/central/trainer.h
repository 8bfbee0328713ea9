// Trains one centralized baseline on a train split and evaluates it on the test split, logging one
// progress line per ALS sweep or GD iteration. Factor models: als, central-mf (DPMF-RP eq. 4),
// ldp-gd (the local-DP MF paper's non-private GD, scored as the federated ldp-gd scores) and
// dp-sgdmf (the FMF privacy paper's central DP-SGD with embedding or gradient clipping);
// hfl-sgdmf (its HFL-SGDMF over s parties in process, hfl_trainer.h: no factor model, each user
// scored by its own party's embeddings); models
// without factors: global-mean and user-mean (predict that mean, rank nothing: every item ties),
// popularity (ranks by train rating count through the shared PopularityScorer, predicts the
// item's mean rating) and the graph filters gf-cf, turbo-cf, bspm-lm and bspm-em
// (common/algorithms/graph_filter: rank through their Scorer in blocks of users, predict no
// ratings).
#ifndef FEDMF_TOOLS_CENTRAL_TRAINER_H_
#define FEDMF_TOOLS_CENTRAL_TRAINER_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/algorithms/hfl_sgdmf/config.h"
#include "common/algorithms/lib/fmf_sgd/config.h"
#include "common/algorithms/lib/graph_filter/config.h"
#include "common/data/ratings_dataset.h"
#include "common/data/splits.h"
#include "common/metrics/metrics.h"
#include "common/mf/als.h"
#include "common/mf/factor_model.h"
#include "fedmf/v1/ldp_gd.pb.h"

namespace fedmf::central {

struct TrainerConfig {
  std::string model = "als";  // "als" or "central-mf"
  mf::ExplicitAlsConfig als{.rank = 20, .lambda = 0.12};
  mf::CentralMfConfig central;
  // ldp-gd: rank, iterations (k), seed, learning_rate, lambda_u and lambda_v, init_scale,
  // score_lambda and score_kappa; the user and item counts come from the data.
  v1::LdpGdConfig gd;
  // dp-sgdmf: rank, unit, clipping, sampling, steps and steps' schedule; its noise multiplier is
  // calibrated from sgdmf_epsilon (0: no noise, the non-private reference) and sgdmf_delta.
  algorithms::fmf_sgd::DpSgdMfConfig sgdmf;
  double sgdmf_epsilon = 0;
  double sgdmf_delta = 1e-5;
  uint64_t sgdmf_seed = 1;  // initialization, trimming, sampling and noise
  // hfl-sgdmf: parties, stages and mode; its step settings are sgdmf's (hfl_trainer.h).
  algorithms::hfl_sgdmf::HflConfig hfl;
  bool clip_predictions = true;  // clip to the training rating range for RMSE/MAE
  // central-mf: RMSE/MAE from mf::RatingPredictor on the item factors (eq. 4's u_i v_j shrinks
  // ratings toward 0; rating_predictor.h), as the federated evaluation does; false: u_i v_j.
  bool rating_predictor = true;
  metrics::RankingOptions ranking;
  metrics::RankingOptions long_ranking{.top_n = 20};
  // The graph filters: the model's settings (graph_filter::PublishedConfig(model), then flags).
  algorithms::graph_filter::GraphFilterConfig graph_filter;
  int32_t block_users = 64;  // users a graph filter scores at once
};

struct FoldResult {
  int fold = 0;
  metrics::ErrorMetrics errors;
  metrics::RankingMetrics ranking;       // at TrainerConfig::ranking
  metrics::RankingMetrics long_ranking;  // at TrainerConfig::long_ranking
  bool rating_errors = true;             // false: the model predicts no ratings, `errors` is absent
  double train_seconds = 0;              // graph filters: building the filter
  double evaluate_seconds = 0;
};

// The models --model can name, for its help and checks.
inline constexpr const char* kModels[] = {"als",       "central-mf",  "ldp-gd",    "dp-sgdmf",
                                          "hfl-sgdmf", "global-mean", "user-mean", "popularity",
                                          "gf-cf",     "turbo-cf",    "bspm-lm",   "bspm-em"};
bool IsFactorModel(const std::string& model);
bool IsGraphFilter(const std::string& model);

// Trains the configured factor model; `fold` only labels progress lines.
absl::StatusOr<mf::FactorModel> Train(const data::RatingsDataset& train,
                                      const TrainerConfig& config, int fold);

absl::StatusOr<FoldResult> TrainAndEvaluate(const data::TrainTest& split,
                                            const TrainerConfig& config, int fold);

}  // namespace fedmf::central

#endif  // FEDMF_TOOLS_CENTRAL_TRAINER_H_
