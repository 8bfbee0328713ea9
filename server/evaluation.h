// Simulation-only exact evaluation: when the coordinator is given the same dataset and split as
// the clients (e.g. the built-in synthetic data), it scores the current model on the test part
// with common/metrics. A real coordinator has no ratings; this exists for demos and experiments.
#ifndef FEDMF_SERVER_EVALUATION_H_
#define FEDMF_SERVER_EVALUATION_H_

#include <optional>

#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "common/data/splits.h"
#include "common/metrics/metrics.h"

namespace fedmf::server {

struct Evaluation {
  std::optional<metrics::ErrorMetrics> errors;  // nullopt: the model predicts no ratings
  metrics::RankingMetrics ranking;              // at the algorithm's RankingOptions (registry.h)
};

// Scores the planned round's model as the clients would (its Scorer, algorithms/scorer.h), each
// user from their train ratings: ranking by the model's scores, RMSE/MAE by its predicted ratings
// (fallback mean: the mean train rating) where it has them. Both on `split.test`.
absl::StatusOr<Evaluation> Evaluate(const algorithms::Updater& updater,
                                    const data::TrainTest& split);

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_EVALUATION_H_
