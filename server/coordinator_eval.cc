// Coordinator's federated evaluation rounds (docs/runtime.md, "Federated evaluation"): on the
// current model, sample a cohort and run one phase of the federated-evaluation algorithm
// (federated_evaluator.h: its plan, the decoding of the cohort's secure sum) through a SecAgg
// session of its own, as a training phase runs, and log the metrics. Nothing is charged to the
// privacy ledger: the sums are released without noise.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/util/event_log.h"
#include "server/cohort.h"
#include "server/coordinator.h"
#include "server/federated_evaluator.h"
#include "server/traffic_report.h"
#include "wire/secagg_params.h"

namespace fedmf::server {
namespace {

// Evaluation cohorts come from their own sampling stream: SampleCohort's attempt number, far
// above any training retry count, so they are reproducible and unrelated to training cohorts.
constexpr int kEvaluationStream = 1 << 30;

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
  absl::StatusOr<v1::RoundPlan> model = state_.updater->Plan();
  if (!model.ok()) return model.status();
  const int64_t cohort_size =
      options_.eval_participation > 0
          ? std::max<int64_t>(2, std::llround(options_.eval_participation *
                                              static_cast<double>(options_.num_users)))
          : model->max_contributors();
  absl::StatusOr<FederatedEvaluator> evaluator =
      FederatedEvaluator::Create(*model, cohort_size, options_.eval_ranking);
  if (!evaluator.ok()) return evaluator.status();
  const v1::RoundPlan& plan = evaluator->plan();
  if (absl::Status s = CheckTaskSize(plan, options_.max_plan_bytes); !s.ok()) return s;
  // As in training, every decoded sum holds >= n_min users (capped at a smaller cohort).
  absl::StatusOr<int> threshold =
      Threshold(cohort_size, plan.min_contributors(), options_.dropout_fraction);
  if (!threshold.ok()) return threshold.status();
  if (!WaitForLiveUsers(lock, cohort_size, round)) return absl::OkStatus();
  absl::StatusOr<std::vector<uint32_t>> cohort = SampleCohort(
      registry_.LiveUsers(), cohort_size, state_.sampling_seed, round, kEvaluationStream);
  if (!cohort.ok()) return cohort.status();

  secagg::SessionConfig config;
  config.context = absl::StrCat(options_.run_id, "/eval-", round);
  config.num_clients = static_cast<int>(cohort_size);
  config.threshold = *threshold;
  config.bits = plan.bits();
  config.length = static_cast<size_t>(plan.length());
  last_participants_ = static_cast<int32_t>(cohort_size);
  last_dropouts_ = 0;
  const int64_t in0 = bytes_in_.load(), out0 = bytes_out_.load();
  traffic_.Reset();  // an evaluation round's traffic is reported as a round of its own
  StageSeconds stage_seconds;
  // Unsigned; the complete graph's threshold already bounds the inputs: no minimum-inputs rule of
  // its own.
  if (absl::Status s = StartSession(plan, /*attempt=*/0, config, std::move(*cohort), nullptr,
                                    /*min_inputs=*/0);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = Drive(lock, "eval:", stage_seconds); !s.ok()) return s;
  absl::StatusOr<RoundOutcome> outcome = Finalize(
      lock,
      [&](std::unique_lock<std::mutex>&, const std::vector<uint64_t>& sum,
          const std::vector<uint32_t>& contributors) -> absl::StatusOr<RoundOutcome> {
        const absl::Status decoded =
            evaluator->Decode(sum, static_cast<int64_t>(contributors.size()));
        return RoundOutcome{.applied = decoded.ok(), .reason = std::string(decoded.message())};
      });
  if (!outcome.ok()) return outcome.status();

  EventLine line("federated_eval");
  line.Add("round", round)
      .Add("applied", outcome->applied ? "yes" : "no")
      .Add("participants", cohort_size)
      .Add("threshold", config.threshold)
      .Add("contributors", cohort_size - last_dropouts_)
      .Add("dropouts", last_dropouts_);
  evaluator->AddTo(line);
  if (!outcome->applied) line.Add("reason", outcome->reason);
  if (std::optional<v1::FederatedEvaluation> e = evaluator->evaluation()) last_evaluation_ = *e;
  line.Add("bytes_in", bytes_in_.load() - in0).Add("bytes_out", bytes_out_.load() - out0);
  AddTraffic(traffic_, cohort_size, line);
  EndRoundTraffic(round, cohort_size, /*evaluation=*/true);
  for (const auto& [key, seconds] : stage_seconds) line.Add(key, seconds);
  line.Add("privacy", "not-charged");
  if (options_.evaluate && outcome->applied) {
    // Simulation only: the exact central metrics of the same model, for comparison. Only this
    // thread touches the updater.
    lock.unlock();
    absl::StatusOr<Evaluation> central = options_.evaluate(*state_.updater);
    lock.lock();
    if (central.ok()) evaluator->AddCentral(line, *central);
  }
  return absl::OkStatus();
}

}  // namespace fedmf::server
