// Simulation-only exact evaluation: when the coordinator is given the same dataset and split as
// the clients (e.g. the built-in synthetic data), it scores the current model on the test part
// with common/metrics. A real coordinator has no ratings; this exists for demos and experiments.
#ifndef FEDMF_SERVER_EVALUATION_H_
#define FEDMF_SERVER_EVALUATION_H_

#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "common/data/splits.h"
#include "common/metrics/metrics.h"

namespace fedmf::server {

struct Evaluation {
  metrics::ErrorMetrics errors;
  metrics::RankingMetrics ranking;  // at the algorithm's RankingOptions (registry.h)
};

// Ranking uses every user's factor from the closed-form solve on their train ratings under the
// planned round's model (what the clients would compute); RMSE/MAE use mf::RatingPredictor fitted
// on the same train ratings. Both are scored on `split.test`.
absl::StatusOr<Evaluation> Evaluate(const algorithms::Updater& updater,
                                    const data::TrainTest& split);

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_EVALUATION_H_
