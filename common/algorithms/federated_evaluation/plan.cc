#include "common/algorithms/federated_evaluation/plan.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "fedmf/v1/federated_evaluation.pb.h"

namespace fedmf::algorithms::federated_evaluation {
namespace {

absl::Status Invalid(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("federated evaluation plan: ", what));
}

}  // namespace

absl::StatusOr<v1::RoundPlan> MakePlan(const v1::RoundPlan& model, int64_t cohort_size,
                                       const metrics::RankingOptions& ranking) {
  if (absl::Status s = ranking.Validate(); !s.ok()) return s;
  absl::StatusOr<metrics::MetricCodec> codec = metrics::MetricCodec::ForContributors(cohort_size);
  if (!codec.ok()) return codec.status();
  v1::FederatedEvaluationPlan payload;
  *payload.mutable_model() = model;
  payload.set_top_n(ranking.top_n);
  payload.set_relevance_threshold(ranking.relevance_threshold);
  payload.set_fraction_bits(codec->fraction_bits());
  v1::RoundPlan plan;
  plan.set_algorithm(std::string(kAlgorithmName));
  plan.set_round(model.round());
  plan.set_payload(payload.SerializeAsString());
  plan.set_length(codec->length());
  plan.set_bits(codec->bits());
  plan.set_client_bits(codec->bits());
  plan.set_combination(v1::COMBINATION_SECURE_SUM);
  plan.set_min_contributors(std::min(model.min_contributors(), cohort_size));
  plan.set_max_contributors(cohort_size);
  return plan;
}

absl::StatusOr<EvaluationPlan> ParsePlan(const v1::RoundPlan& plan) {
  if (plan.algorithm() != kAlgorithmName) {
    return Invalid(
        absl::StrCat("algorithm '", plan.algorithm(), "', expected '", kAlgorithmName, "'"));
  }
  v1::FederatedEvaluationPlan payload;
  if (!payload.ParseFromString(plan.payload())) return Invalid("payload does not parse");
  const metrics::RankingOptions ranking{.top_n = payload.top_n(),
                                        .relevance_threshold = payload.relevance_threshold()};
  if (absl::Status s = ranking.Validate(); !s.ok()) {
    return Invalid(absl::StrCat("top_n ", payload.top_n(), ", relevance_threshold ",
                                payload.relevance_threshold(), ": ", s.message()));
  }
  if (payload.model().algorithm() == kAlgorithmName) {
    return Invalid("model.algorithm is federated-evaluation itself");
  }
  if (payload.model().round() != plan.round()) {
    return Invalid(
        absl::StrCat("round ", plan.round(), " but model.round ", payload.model().round()));
  }
  // The metric format is a function of the cohort bound: recompute it rather than trust it.
  absl::StatusOr<metrics::MetricCodec> codec =
      metrics::MetricCodec::ForContributors(plan.max_contributors());
  if (!codec.ok()) {
    return Invalid(
        absl::StrCat("max_contributors ", plan.max_contributors(), ": ", codec.status().message()));
  }
  if (plan.min_contributors() < 0 || plan.min_contributors() > plan.max_contributors()) {
    return Invalid(absl::StrCat("min_contributors ", plan.min_contributors(), " outside [0, ",
                                plan.max_contributors(), "]"));
  }
  const auto differs = [&](absl::string_view field, auto value, auto expected) {
    return Invalid(absl::StrCat(field, " ", value, ", expected ", expected, " for ",
                                plan.max_contributors(), " contributors"));
  };
  if (plan.length() != codec->length()) return differs("length", plan.length(), codec->length());
  if (plan.bits() != codec->bits()) return differs("bits", plan.bits(), codec->bits());
  if (plan.client_bits() != codec->bits()) {
    return differs("client_bits", plan.client_bits(), codec->bits());
  }
  if (plan.combination() != v1::COMBINATION_SECURE_SUM) {
    return differs("combination", static_cast<int>(plan.combination()), "COMBINATION_SECURE_SUM");
  }
  if (payload.fraction_bits() != codec->fraction_bits()) {
    return differs("fraction_bits", payload.fraction_bits(), codec->fraction_bits());
  }
  return EvaluationPlan{
      .model = std::move(*payload.mutable_model()), .ranking = ranking, .codec = *codec};
}

}  // namespace fedmf::algorithms::federated_evaluation
