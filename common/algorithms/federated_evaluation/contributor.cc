#include "common/algorithms/federated_evaluation/contributor.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/registry.h"

namespace fedmf::algorithms::federated_evaluation {
namespace {

absl::Span<const double> AsSpan(const Eigen::VectorXd& v) {
  return absl::Span<const double>(v.data(), static_cast<size_t>(v.size()));
}

}  // namespace

absl::StatusOr<metrics::MetricSums> EvaluateUsers(const LocalData& data, const Scorer& model,
                                                  const metrics::RankingOptions& options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  metrics::MetricSums sums;
  absl::Status status = ForEachUser(
      data, [&](const data::RatingRow& train, const data::RatingRow& test) -> absl::Status {
        if (test.size() == 0) return absl::OkStatus();
        if (test.indices.back() >= model.num_items()) {  // indices are sorted
          return absl::InvalidArgumentError(absl::StrCat("test item ", test.indices.back(),
                                                         " outside the model's ", model.num_items(),
                                                         " items"));
        }
        // As server/evaluation.cc scores centrally; a user with test ratings has train ratings,
        // so the fallback mean (the client does not know the global one) is never used.
        absl::StatusOr<Eigen::VectorXd> scores = model.Scores(train);
        if (!scores.ok()) return scores.status();
        if (model.predicts_ratings()) {
          absl::StatusOr<Eigen::VectorXd> predicted = model.PredictRatings(train, 0);
          if (!predicted.ok()) return predicted.status();
          sums.Add(metrics::EvaluateUserErrors(test, AsSpan(*predicted)));
        }
        sums.Add(metrics::EvaluateUserRanking(train, test, AsSpan(*scores), options),
                 /*has_test=*/true);
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return sums;
}

absl::StatusOr<std::unique_ptr<FederatedEvaluationContributor>>
FederatedEvaluationContributor::Create(const v1::RoundPlan& plan) {
  absl::StatusOr<EvaluationPlan> parsed = ParsePlan(plan);
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<std::unique_ptr<Contributor>> model = MakeContributor(parsed->model);
  if (!model.ok()) {
    return absl::Status(model.status().code(), absl::StrCat("federated evaluation plan: model: ",
                                                            model.status().message()));
  }
  return std::unique_ptr<FederatedEvaluationContributor>(
      new FederatedEvaluationContributor(*std::move(parsed), *std::move(model)));
}

absl::StatusOr<Contribution> FederatedEvaluationContributor::Contribute(const LocalData& data,
                                                                        absl::string_view state,
                                                                        dp::Rng& /*rng*/) const {
  absl::StatusOr<std::unique_ptr<Scorer>> personal = model_->PersonalScorer(data, state);
  if (!personal.ok()) return personal.status();
  absl::StatusOr<metrics::MetricSums> sums =
      EvaluateUsers(data, *personal != nullptr ? **personal : scorer(), plan_.ranking);
  if (!sums.ok()) return sums.status();
  return Contribution{.vector = ContributionVector::Dense(plan_.codec.Encode(*sums)),
                      .state = std::string(state),
                      .user_factor = {}};
}

absl::string_view FederatedEvaluationContributor::state_owner() const {
  return plan_.model.algorithm();
}

}  // namespace fedmf::algorithms::federated_evaluation
