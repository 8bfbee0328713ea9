// The coordinator's side of one federated evaluation (docs/runtime.md, "Federated evaluation"):
// the plan of the federated-evaluation algorithm (common/algorithms/federated_evaluation/) around
// the current model, tagged with the evaluation phase, and the decoding of the cohort's secure
// sum (common/metrics/metric_codec.h) into the metrics the coordinator logs and reports. Nothing
// is charged to the privacy ledger: the sums are released without noise.
#ifndef FEDMF_SERVER_FEDERATED_EVALUATOR_H_
#define FEDMF_SERVER_FEDERATED_EVALUATOR_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/metrics/metric_codec.h"
#include "common/metrics/metrics.h"
#include "common/util/event_log.h"
#include "fedmf/v1/algorithm.pb.h"
#include "fedmf/v1/federation.pb.h"
#include "server/evaluation.h"

namespace fedmf::server {

class FederatedEvaluator {
 public:
  // The evaluation of the model of `model` (the next training round's plan) by `cohort_size`
  // users, ranking with `ranking` (federated_evaluation::MakePlan's errors).
  static absl::StatusOr<FederatedEvaluator> Create(const v1::RoundPlan& model, int64_t cohort_size,
                                                   const metrics::RankingOptions& ranking);

  // Phase wire::kEvaluationPhase of round model.round(): it never shares a tag with training.
  const v1::RoundPlan& plan() const { return plan_; }

  // Decodes the sum of `contributors` users' vectors and keeps the metrics (MetricCodec::Decode's
  // errors: the sum is then unused).
  absl::Status Decode(absl::Span<const uint64_t> sum, int64_t contributors);

  // Appends the metric format and, once decoded, the metrics to an event=federated_eval line.
  void AddTo(EventLine& line) const;
  // Appends the central metrics of the same model (simulation only), at the precision of AddTo's
  // for comparison.
  void AddCentral(EventLine& line, const Evaluation& central) const;
  // The decoded metrics as Status reports them; nullopt before a successful Decode.
  std::optional<v1::FederatedEvaluation> evaluation() const;

 private:
  FederatedEvaluator(v1::RoundPlan plan, metrics::MetricCodec codec,
                     metrics::RankingOptions ranking)
      : plan_(std::move(plan)), codec_(codec), ranking_(ranking) {}

  v1::RoundPlan plan_;
  metrics::MetricCodec codec_;
  metrics::RankingOptions ranking_;
  std::optional<metrics::MetricCodec::Decoded> decoded_;
  int64_t contributors_ = 0;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_FEDERATED_EVALUATOR_H_
