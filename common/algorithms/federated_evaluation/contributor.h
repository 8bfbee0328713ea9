// The client side of a federated evaluation: every user a participant holds (ForEachUser: its
// own user, or each of a party's users) scores the evaluated model on their test ratings through
// the model's Scorer, exactly as training scores them (or the user's own model, when the algorithm
// keeps one on the device: Contributor::PersonalScorer); the participant's metric sums
// (common/metrics/user_metrics.h) are encoded in the plan's fixed-point format and secure-summed.
// Nothing is contributed to training and no state is changed.
#ifndef FEDMF_COMMON_ALGORITHMS_FEDERATED_EVALUATION_CONTRIBUTOR_H_
#define FEDMF_COMMON_ALGORITHMS_FEDERATED_EVALUATION_CONTRIBUTOR_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/federated_evaluation/plan.h"
#include "common/algorithms/local_data.h"
#include "common/algorithms/scorer.h"
#include "common/metrics/metrics.h"
#include "common/metrics/user_metrics.h"
#include "fedmf/v1/algorithm.pb.h"

namespace fedmf::algorithms::federated_evaluation {

// The metric sums of `data`'s users under `model`: each user's ranking scores and, if the model
// predicts ratings, predicted ratings (fallback mean 0), both from the train ratings, scored on
// the test ratings; a model without rating predictions adds no error part
// (MetricSums::errors_absent). Zero for users without test ratings. InvalidArgument for a test
// item outside the model or invalid options; the model's errors.
absl::StatusOr<metrics::MetricSums> EvaluateUsers(const LocalData& data, const Scorer& model,
                                                  const metrics::RankingOptions& options);

class FederatedEvaluationContributor final : public Contributor {
 public:
  // Validates `plan` (ParsePlan) and builds the evaluated model's own contributor from the plan
  // it carries (MakeContributor: that algorithm's validation).
  static absl::StatusOr<std::unique_ptr<FederatedEvaluationContributor>> Create(
      const v1::RoundPlan& plan);

  // The codec's encoding of EvaluateUsers(data, model, ranking), dense, with the evaluated
  // model's PersonalScorer(data, state) as the model when it has one, else scorer(); `state` is
  // the evaluated algorithm's (state_owner), returned unchanged; `rng` is unused.
  absl::StatusOr<Contribution> Contribute(const LocalData& data, absl::string_view state,
                                          dp::Rng& rng) const override;
  // The evaluated model's scorer.
  const Scorer& scorer() const override { return model_->scorer(); }
  // The evaluated model's algorithm: its state is what a personal model is read from.
  absl::string_view state_owner() const override;

  const EvaluationPlan& plan() const { return plan_; }

 private:
  FederatedEvaluationContributor(EvaluationPlan plan, std::unique_ptr<Contributor> model)
      : plan_(std::move(plan)), model_(std::move(model)) {}

  EvaluationPlan plan_;
  std::unique_ptr<Contributor> model_;
};

}  // namespace fedmf::algorithms::federated_evaluation

#endif  // FEDMF_COMMON_ALGORITHMS_FEDERATED_EVALUATION_CONTRIBUTOR_H_
