#include "server/evaluation_rounds.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/util/event_log.h"
#include "server/cohort.h"
#include "server/federated_evaluator.h"
#include "server/training_phase.h"

namespace fedmf::server {
namespace {

// Evaluation cohorts come from their own sampling stream: SampleCohort's attempt number, far
// above any training retry count, so they are reproducible and unrelated to training cohorts.
constexpr int kEvaluationStream = 1 << 30;

}  // namespace

absl::Status EvaluationRounds::MaybeEvaluate(bool last) {
  if (options_.eval_every <= 0 || roster_.stopped()) return absl::OkStatus();
  const int64_t round = state_.updater->round();
  if (round == last_evaluated_round_) return absl::OkStatus();
  if (!last && round % options_.eval_every != 0) return absl::OkStatus();
  last_evaluated_round_ = round;
  return Evaluate();
}

absl::Status EvaluationRounds::Evaluate() {
  const int64_t round = state_.updater->round();
  absl::StatusOr<v1::RoundPlan> model = state_.updater->Plan();
  if (!model.ok()) return model.status();
  const int64_t cohort_size = cohorts_.CappedByExclusions(
      options_.eval_participation > 0
          ? std::max<int64_t>(2, std::llround(options_.eval_participation *
                                              static_cast<double>(options_.num_users)))
          : model->max_contributors());
  absl::StatusOr<FederatedEvaluator> evaluator =
      FederatedEvaluator::Create(*model, cohort_size, options_.eval_ranking);
  if (!evaluator.ok()) return evaluator.status();
  const v1::RoundPlan& plan = evaluator->plan();
  if (absl::Status s = CheckTaskSize(plan, options_.max_plan_bytes); !s.ok()) return s;
  // As in training, every decoded sum holds >= n_min users (capped at a smaller cohort).
  absl::StatusOr<int> threshold =
      Threshold(cohort_size, plan.min_contributors(), options_.dropout_fraction);
  if (!threshold.ok()) return threshold.status();
  roster_.ReleaseRound();
  if (!cohorts_.WaitForUsers(cohort_size, round)) return absl::OkStatus();
  // Excluded participants take no part in evaluation either: they broke the protocol.
  absl::StatusOr<std::vector<uint32_t>> cohort = SampleCohort(
      roster_.EligibleUsers(), cohort_size, state_.sampling_seed, round, kEvaluationStream);
  if (!cohort.ok()) return cohort.status();

  // Unsigned; the complete graph's threshold already bounds the inputs: no minimum-inputs rule of
  // its own.
  PhaseSpec spec{.plan = plan, .evaluation = true, .stage_prefix = "eval:", .rounds_done = round};
  spec.secagg.emplace();
  spec.secagg->context = absl::StrCat(options_.run_id, "/eval-", round);
  spec.secagg->num_clients = static_cast<int>(cohort_size);
  spec.secagg->threshold = *threshold;
  spec.secagg->bits = plan.bits();
  spec.secagg->length = static_cast<size_t>(plan.length());
  absl::StatusOr<PhaseOutcome> outcome =
      runner_.Run(spec, *std::move(cohort),
                  [&](const std::vector<uint64_t>& sum,
                      const std::vector<uint32_t>& contributors) -> absl::StatusOr<SumVerdict> {
                    const absl::Status decoded =
                        evaluator->Decode(sum, static_cast<int64_t>(contributors.size()));
                    return SumVerdict{.applied = decoded.ok(),
                                      .reason = std::string(decoded.message()),
                                      .rounds_done = round};
                  });
  if (!outcome.ok()) return outcome.status();

  EventLine line("federated_eval");
  line.Add("round", round).Add("applied", outcome->applied ? "yes" : "no");
  outcome->AddFigures(line);
  evaluator->AddTo(line);
  if (!outcome->applied) line.Add("reason", outcome->reason);
  line.Add("privacy", "not-charged");
  const std::optional<v1::FederatedEvaluation> evaluation = evaluator->evaluation();
  board_.Update([&](StatusBoard::Snapshot& s) {
    if (evaluation) *s.status.mutable_federated_evaluation() = *evaluation;
    outcome->PublishTraffic(round, /*evaluation=*/true, s.status);
  });
  if (options_.evaluate && outcome->applied) {
    // Simulation only: the exact central metrics of the same model, for comparison.
    absl::StatusOr<Evaluation> central = options_.evaluate(*state_.updater);
    if (central.ok()) evaluator->AddCentral(line, *central);
  }
  return absl::OkStatus();
}

}  // namespace fedmf::server
