// Coordinator's federated evaluation rounds (docs/runtime.md, "Federated evaluation"): on the
// current model, sample a cohort, send it EvaluationTasks, secure-sum the users' fixed-point metric
// sums (common/metrics/metric_codec.h) through a SecAgg session of its own, and log the decoded
// metrics. Nothing is charged to the privacy ledger: the sums are released without noise.
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/metrics/metric_codec.h"
#include "common/util/event_log.h"
#include "server/cohort.h"
#include "server/coordinator.h"
#include "server/traffic_report.h"
#include "wire/secagg_params.h"

namespace fedmf::server {
namespace {

// Evaluation cohorts come from their own sampling stream: SampleCohort's attempt number, far
// above any training retry count, so they are reproducible and unrelated to training cohorts.
constexpr int kEvaluationStream = 1 << 30;

// Round-trip precision: the decoded sums are exact up to the fixed-point rounding, and logs are
// compared with the central evaluation at that precision.
std::string Exact(double value) { return absl::StrFormat("%.17g", value); }

}  // namespace

absl::Status Coordinator::MaybeEvaluate(std::unique_lock<std::mutex>& lock, bool last) {
  if (options_.eval_every <= 0 || stop_) return absl::OkStatus();
  const int64_t round = state_.updater->round();
  if (round == last_evaluated_round_) return absl::OkStatus();
  if (!last && round % options_.eval_every != 0) return absl::OkStatus();
  last_evaluated_round_ = round;
  return RunEvaluation(lock);
}

absl::Status Coordinator::RunEvaluation(std::unique_lock<std::mutex>& lock) {
  const int64_t round = state_.updater->round();
  absl::StatusOr<v1::RoundPlan> plan = state_.updater->Plan();
  if (!plan.ok()) return plan.status();
  if (absl::Status s = CheckTaskSize(*plan); !s.ok()) return s;
  const int64_t cohort_size =
      options_.eval_participation > 0
          ? std::max<int64_t>(2, std::llround(options_.eval_participation *
                                              static_cast<double>(options_.num_users)))
          : plan->max_contributors();
  absl::StatusOr<metrics::MetricCodec> codec = metrics::MetricCodec::ForContributors(cohort_size);
  if (!codec.ok()) return codec.status();
  // As in training, every decoded sum holds >= n_min users (capped at a smaller cohort).
  absl::StatusOr<int> threshold = Threshold(
      cohort_size, std::min(plan->min_contributors(), cohort_size), options_.dropout_fraction);
  if (!threshold.ok()) return threshold.status();
  if (!WaitForLiveUsers(lock, cohort_size, round)) return absl::OkStatus();
  absl::StatusOr<std::vector<uint32_t>> cohort = SampleCohort(
      registry_.LiveUsers(), cohort_size, state_.sampling_seed, round, kEvaluationStream);
  if (!cohort.ok()) return cohort.status();

  secagg::SessionConfig config;
  config.context = absl::StrCat(options_.run_id, "/eval-", round);
  config.num_clients = static_cast<int>(cohort_size);
  config.threshold = *threshold;
  config.bits = codec->bits();
  config.length = codec->length();
  // The complete graph's threshold already bounds the inputs: no minimum-inputs rule of its own.
  absl::StatusOr<std::unique_ptr<Aggregation>> aggregation = Aggregation::Secure(
      {round, wire::kEvaluationPhase}, config, std::move(*cohort), nullptr, /*min_inputs=*/0);
  if (!aggregation.ok()) return aggregation.status();
  aggregation_ = std::move(*aggregation);
  last_participants_ = static_cast<int32_t>(cohort_size);
  last_dropouts_ = 0;
  const int64_t in0 = bytes_in_.load(), out0 = bytes_out_.load();
  traffic_.Reset();  // an evaluation round's traffic is reported as a round of its own
  StageSeconds stage_seconds;
  v1::ServerMessage task;
  v1::EvaluationTask* evaluation = task.mutable_evaluation_task();
  evaluation->set_round(round);
  *evaluation->mutable_plan() = *plan;
  *evaluation->mutable_secagg() = wire::ToProto(config);
  evaluation->set_fraction_bits(codec->fraction_bits());
  evaluation->set_top_n(options_.eval_ranking.top_n);
  evaluation->set_relevance_threshold(options_.eval_ranking.relevance_threshold);
  SendTasks(task);
  const absl::Status driven = Drive(lock, "eval:", stage_seconds);
  const std::unique_ptr<Aggregation> done = std::move(aggregation_);
  if (!driven.ok()) return driven;
  const int64_t contributors = static_cast<int64_t>(done->contributors().size());
  last_dropouts_ = static_cast<int32_t>(cohort_size - contributors);
  absl::StatusOr<std::vector<uint64_t>> sum = done->sum();  // the abort reason if aborted
  absl::StatusOr<metrics::MetricCodec::Decoded> decoded =
      sum.ok() ? codec->Decode(*sum, contributors) : sum.status();

  EventLine line("federated_eval");
  line.Add("round", round)
      .Add("applied", decoded.ok() ? "yes" : "no")
      .Add("participants", cohort_size)
      .Add("threshold", config.threshold)
      .Add("contributors", contributors)
      .Add("dropouts", last_dropouts_)
      .Add("fraction_bits", codec->fraction_bits());
  v1::RoundResult result;
  result.set_round(round);
  result.set_phase(wire::kEvaluationPhase);
  result.set_rounds_completed(round);
  result.set_contributors(static_cast<int32_t>(contributors));
  result.set_applied(decoded.ok());
  if (decoded.ok()) {
    const metrics::ErrorMetrics errors = decoded->sums.Errors();
    const metrics::RankingMetrics ranking = decoded->sums.Ranking();
    // A model without rating predictions: RMSE/MAE are absent, not 0 (user_metrics.h).
    const bool errors_absent = decoded->sums.errors_absent();
    const int32_t users_with_test =
        errors_absent ? ranking.num_users + ranking.num_skipped_users : errors.num_users;
    const std::string n = absl::StrCat(options_.eval_ranking.top_n);
    line.Add("users_with_test", users_with_test);
    if (errors_absent) {
      line.Add("rating_errors", "absent");
    } else {
      line.Add("test_ratings", errors.num_ratings)
          .Add("test_rmse", Exact(errors.rmse))
          .Add("test_mae", Exact(errors.mae))
          .Add("per_user_rmse", Exact(errors.per_user_rmse));
    }
    line.Add("ranking_users", ranking.num_users)
        .Add(absl::StrCat("precision", n), Exact(ranking.precision))
        .Add(absl::StrCat("recall", n), Exact(ranking.recall))
        .Add(absl::StrCat("f1_", n), Exact(ranking.f1))
        .Add(absl::StrCat("map", n), Exact(ranking.map))
        .Add(absl::StrCat("ndcg", n), Exact(ranking.ndcg))
        .Add("clamped_users", decoded->clamped_users);
    v1::FederatedEvaluation& e = last_evaluation_.emplace();
    e.set_round(round);
    e.set_contributors(static_cast<int32_t>(contributors));
    e.set_error_users(users_with_test);
    if (errors_absent) {
      e.set_rating_errors_absent(true);
    } else {
      e.set_num_ratings(errors.num_ratings);
      e.set_rmse(errors.rmse);
      e.set_mae(errors.mae);
      e.set_per_user_rmse(errors.per_user_rmse);
    }
    e.set_ranking_users(ranking.num_users);
    e.set_precision(ranking.precision);
    e.set_recall(ranking.recall);
    e.set_f1(ranking.f1);
    e.set_map(ranking.map);
    e.set_ndcg(ranking.ndcg);
    e.set_clamped_users(static_cast<int32_t>(decoded->clamped_users));
  } else {
    result.set_reason(std::string(decoded.status().message()));
    line.Add("reason", decoded.status().message());
  }
  Broadcast(result);  // counted in this round's traffic, as a training round's result is
  line.Add("bytes_in", bytes_in_.load() - in0).Add("bytes_out", bytes_out_.load() - out0);
  AddTraffic(traffic_, cohort_size, line);
  EndRoundTraffic(round, cohort_size, /*evaluation=*/true);
  for (const auto& [key, seconds] : stage_seconds) line.Add(key, seconds);
  line.Add("privacy", "not-charged");
  if (options_.evaluate && decoded.ok()) {
    // Simulation only: the exact central metrics of the same model, for comparison. Only this
    // thread touches the updater.
    lock.unlock();
    absl::StatusOr<Evaluation> central = options_.evaluate(*state_.updater);
    lock.lock();
    if (central.ok() && central->errors.has_value()) {
      line.Add("central_test_rmse", Exact(central->errors->rmse))
          .Add("central_test_mae", Exact(central->errors->mae));
    }
  }
  return absl::OkStatus();
}

}  // namespace fedmf::server
