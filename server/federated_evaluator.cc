#include "server/federated_evaluator.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/algorithms/federated_evaluation/plan.h"
#include "wire/envelope.h"

namespace fedmf::server {
namespace {

// Round-trip precision: the decoded sums are exact up to the fixed-point rounding, and logs are
// compared with the central evaluation at that precision.
std::string Exact(double value) { return absl::StrFormat("%.17g", value); }

// A model without rating predictions: RMSE/MAE are absent, not 0 (user_metrics.h); its users
// with test ratings are then those the ranking counted.
int32_t UsersWithTest(const metrics::MetricSums& sums) {
  if (!sums.errors_absent()) return sums.Errors().num_users;
  const metrics::RankingMetrics ranking = sums.Ranking();
  return ranking.num_users + ranking.num_skipped_users;
}

}  // namespace

absl::StatusOr<FederatedEvaluator> FederatedEvaluator::Create(
    const v1::RoundPlan& model, int64_t cohort_size, const metrics::RankingOptions& ranking) {
  absl::StatusOr<v1::RoundPlan> plan =
      algorithms::federated_evaluation::MakePlan(model, cohort_size, ranking);
  if (!plan.ok()) return plan.status();
  plan->set_phase(wire::kEvaluationPhase);
  absl::StatusOr<metrics::MetricCodec> codec = metrics::MetricCodec::ForContributors(cohort_size);
  if (!codec.ok()) return codec.status();
  return FederatedEvaluator(*std::move(plan), *codec, ranking);
}

absl::Status FederatedEvaluator::Decode(absl::Span<const uint64_t> sum, int64_t contributors) {
  absl::StatusOr<metrics::MetricCodec::Decoded> decoded = codec_.Decode(sum, contributors);
  if (!decoded.ok()) return decoded.status();
  decoded_ = *std::move(decoded);
  contributors_ = contributors;
  return absl::OkStatus();
}

void FederatedEvaluator::AddTo(EventLine& line) const {
  line.Add("fraction_bits", codec_.fraction_bits());
  if (!decoded_) return;
  const metrics::MetricSums& sums = decoded_->sums;
  const std::string n = absl::StrCat(ranking_.top_n);
  line.Add("users_with_test", UsersWithTest(sums));
  if (sums.errors_absent()) {
    line.Add("rating_errors", "absent");
  } else {
    const metrics::ErrorMetrics errors = sums.Errors();
    line.Add("test_ratings", errors.num_ratings)
        .Add("test_rmse", Exact(errors.rmse))
        .Add("test_mae", Exact(errors.mae))
        .Add("per_user_rmse", Exact(errors.per_user_rmse));
  }
  const metrics::RankingMetrics ranking = sums.Ranking();
  line.Add("ranking_users", ranking.num_users)
      .Add(absl::StrCat("precision", n), Exact(ranking.precision))
      .Add(absl::StrCat("recall", n), Exact(ranking.recall))
      .Add(absl::StrCat("f1_", n), Exact(ranking.f1))
      .Add(absl::StrCat("map", n), Exact(ranking.map))
      .Add(absl::StrCat("ndcg", n), Exact(ranking.ndcg))
      .Add("clamped_users", decoded_->clamped_users);
}

void FederatedEvaluator::AddCentral(EventLine& line, const Evaluation& central) const {
  if (!central.errors.has_value()) return;
  line.Add("central_test_rmse", Exact(central.errors->rmse))
      .Add("central_test_mae", Exact(central.errors->mae));
}

std::optional<v1::FederatedEvaluation> FederatedEvaluator::evaluation() const {
  if (!decoded_) return std::nullopt;
  const metrics::MetricSums& sums = decoded_->sums;
  v1::FederatedEvaluation e;
  e.set_round(plan_.round());
  e.set_contributors(static_cast<int32_t>(contributors_));
  e.set_error_users(UsersWithTest(sums));
  if (sums.errors_absent()) {
    e.set_rating_errors_absent(true);
  } else {
    const metrics::ErrorMetrics errors = sums.Errors();
    e.set_num_ratings(errors.num_ratings);
    e.set_rmse(errors.rmse);
    e.set_mae(errors.mae);
    e.set_per_user_rmse(errors.per_user_rmse);
  }
  const metrics::RankingMetrics ranking = sums.Ranking();
  e.set_ranking_users(ranking.num_users);
  e.set_precision(ranking.precision);
  e.set_recall(ranking.recall);
  e.set_f1(ranking.f1);
  e.set_map(ranking.map);
  e.set_ndcg(ranking.ndcg);
  e.set_clamped_users(static_cast<int32_t>(decoded_->clamped_users));
  return e;
}

}  // namespace fedmf::server
