// The plan of a federated evaluation (fedmf.v1.FederatedEvaluationPlan in RoundPlan.payload):
// the coordinator builds it around the evaluated model's own plan, every participant parses it
// and checks that its vector format is MetricCodec::ForContributors(max_contributors)'s
// (common/metrics/metric_codec.h), so the secure sum of the cohort's metric sums cannot wrap.
#ifndef FEDMF_COMMON_ALGORITHMS_FEDERATED_EVALUATION_PLAN_H_
#define FEDMF_COMMON_ALGORITHMS_FEDERATED_EVALUATION_PLAN_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/metrics/metric_codec.h"
#include "common/metrics/metrics.h"
#include "fedmf/v1/algorithm.pb.h"

namespace fedmf::algorithms::federated_evaluation {

inline constexpr absl::string_view kAlgorithmName = "federated-evaluation";

// What a valid plan says.
struct EvaluationPlan {
  v1::RoundPlan model;  // the evaluated model's plan
  metrics::RankingOptions ranking;
  metrics::MetricCodec codec;  // the format of the plan's vectors and of their sum
};

// The plan evaluating the model of `model` (e.g. the next training round's plan) with a cohort
// of `cohort_size` users: round model.round(), the metric vector of
// MetricCodec::ForContributors(cohort_size) secure-summed, max_contributors the cohort and
// min_contributors min(model.min_contributors(), cohort_size) (as in training, every decoded sum
// holds n_min users). Phase 0: the runtime tags the aggregation. InvalidArgument for a cohort
// the codec cannot sum or invalid ranking options.
absl::StatusOr<v1::RoundPlan> MakePlan(const v1::RoundPlan& model, int64_t cohort_size,
                                       const metrics::RankingOptions& ranking);

// Validates everything in `plan` (it comes from the network): the algorithm name, the payload,
// the ranking options, a model of another algorithm for the same round, the contributor bounds,
// and length, bits, client_bits, combination and fraction bits against the codec of
// max_contributors. InvalidArgument naming the field and its value; the model plan itself is
// validated by its own algorithm (MakeContributor).
absl::StatusOr<EvaluationPlan> ParsePlan(const v1::RoundPlan& plan);

}  // namespace fedmf::algorithms::federated_evaluation

#endif  // FEDMF_COMMON_ALGORITHMS_FEDERATED_EVALUATION_PLAN_H_
