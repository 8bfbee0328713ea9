#include "server/round_driver.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dp/privacy_unit.h"
#include "common/util/event_log.h"
#include "server/population.h"
#include "server/training_phase.h"

namespace fedmf::server {

RoundDriver::RoundDriver(const CoordinatorOptions& options, CoordinatorState state, Roster& roster,
                         PhaseRunner& runner, Clock& clock, StatusBoard& board)
    : options_(options),
      state_(std::move(state)),
      roster_(roster),
      runner_(runner),
      clock_(clock),
      board_(board),
      cohorts_(options_, state_, roster, clock, board),
      evaluations_(options_, state_, roster, cohorts_, runner, board) {
  board_.Update([this](StatusBoard::Snapshot& s) {
    s.status.set_stage("starting");
    s.status.set_run_id(options_.run_id);
    s.status.set_total_rounds(state_.total_rounds);
    s.status.set_delta(options_.report_delta);
    s.status.set_traffic_round(-1);
    if (state_.population.frozen()) {
      s.population = std::make_shared<const FixedPopulation>(state_.population);
    }
  });
  PublishProgress();
}

void RoundDriver::PublishProgress() {
  board_.Update([this](StatusBoard::Snapshot& s) {
    s.status.set_round(state_.updater->round());
    s.status.set_population(static_cast<int32_t>(state_.population.size()));
    if (absl::StatusOr<dp::PrivacyReport> report = state_.ledger.Report(options_.report_delta);
        report.ok() && !state_.ledger.entries().empty()) {
      s.status.set_epsilon_rdp2(report->rdp_order2);
      s.status.set_epsilon_dp(report->improved.epsilon);
      s.status.set_privacy_unit(std::string(dp::PrivacyUnitName(report->unit)));
      s.status.set_privacy_bound(std::string(dp::PrivacyBoundName(*report)));
    }
  });
}

absl::Status RoundDriver::Run() {
  LogEvaluation(state_.updater->round());
  int failures = 0;
  std::string end = "rounds done";
  while (state_.updater->round() < state_.total_rounds && !roster_.stopped()) {
    absl::StatusOr<RoundOutcome> outcome = RunRound(failures);
    if (!outcome.ok()) return outcome.status();
    if (outcome->population_lost) {
      Finish(outcome->reason, /*completed=*/false);
      return absl::AbortedError(outcome->reason);
    }
    if (outcome->budget_spent) {
      end = "privacy budget spent";
      break;
    }
    if (outcome->refusal && last_refusal_ == outcome->refusal) {
      // Every member of two fresh cohorts refused alike: the plan, not a client, is at fault.
      const std::string reason =
          absl::StrCat("every participant of 2 attempts in a row refused the plan: ",
                       outcome->refusal->message());
      Finish(reason, /*completed=*/false);
      return absl::Status(outcome->refusal->code(), reason);
    }
    last_refusal_ = outcome->refusal;
    if (outcome->applied) {
      failures = 0;
      failed_rounds_in_a_row_ = 0;
      board_.Update([](StatusBoard::Snapshot& s) {
        s.status.set_failed_rounds_in_a_row(0);
        s.status.clear_last_failure();
      });
      MaybePublish();
      if (absl::Status s = evaluations_.MaybeEvaluate(/*last=*/false); !s.ok()) return s;
      continue;
    }
    if (roster_.stopped()) break;
    // Without its now excluded culprits the round can succeed: that attempt is not a failure of
    // the run, only its attempt number moves on (a fresh cohort).
    ++failures;
    if (outcome->excluded.empty()) ++failed_rounds_in_a_row_;
    board_.Update([&](StatusBoard::Snapshot& s) {
      s.status.set_last_failure(outcome->reason);
      s.status.set_failed_rounds_in_a_row(failed_rounds_in_a_row_);
    });
    if (!outcome->excluded.empty()) continue;
    if (options_.max_failed_rounds > 0 && failed_rounds_in_a_row_ >= options_.max_failed_rounds) {
      return absl::AbortedError(absl::StrCat(failed_rounds_in_a_row_,
                                             " rounds in a row failed; last: ", outcome->reason));
    }
    PauseAfterFailure(outcome->reason);
  }
  if (roster_.stopped() && end == "rounds done" && state_.updater->round() < state_.total_rounds) {
    if (roster_.run_cancelled()) {
      Finish("run cancelled", /*completed=*/false);
      return absl::CancelledError("run cancelled");
    }
    EndStreamsForRestart();
    return absl::OkStatus();
  }
  if (absl::Status s = evaluations_.MaybeEvaluate(/*last=*/true); !s.ok()) return s;
  Finish(end, /*completed=*/true);
  return absl::OkStatus();
}

void RoundDriver::EndStreamsForRestart() {
  board_.SetStage("stopped");
  // Not the end of training: a stopped coordinator (a signal: a container restart, a rolling
  // update) resumes from its checkpoint, so its clients must stay and reconnect, which they do on
  // UNAVAILABLE. A training_done result would make them exit for good.
  const int ended = roster_.CloseAll(
      absl::UnavailableError("the coordinator stopped before the end of training; reconnect"));
  EventLine("coordinator_stopped")
      .Add("rounds_done", state_.updater->round())
      .Add("total_rounds", state_.total_rounds)
      .Add("streams_ended", ended)
      .Add("effect", "clients reconnect to the restarted coordinator");
}

void RoundDriver::PauseAfterFailure(const std::string& reason) {
  if (failed_rounds_in_a_row_ < kRetriesBeforeBackoff) return;
  const absl::Duration pause = std::min(
      kMaxBackoff, absl::Seconds(1) * (int64_t{1} << std::min(
                                           failed_rounds_in_a_row_ - kRetriesBeforeBackoff, 5)));
  EventLine("rounds_failing")
      .Add("round", state_.updater->round())
      .Add("failed_in_a_row", failed_rounds_in_a_row_)
      .Add("pause_s", absl::ToDoubleSeconds(pause))
      .Add("last", reason);
  board_.SetStage("paused after failed rounds");
  roster_.AwaitStop(clock_.Now() + pause);
}

void RoundDriver::Finish(const std::string& reason, bool completed) {
  board_.SetStage("done");
  v1::RoundResult done;
  done.set_round(state_.updater->round());
  done.set_rounds_completed(state_.updater->round());
  // A service's clients stay for its next run; a one-shot run's are done.
  if (options_.service_run) {
    done.set_run_done(true);
  } else {
    done.set_training_done(true);
  }
  done.set_reason(reason);
  // The final model reaches every connected client, which otherwise keeps the model of its last
  // task, one update behind. Between phases (a run stopped mid-round) the next plan is no
  // phase 0 and carries no settled model.
  absl::StatusOr<v1::RoundPlan> next = state_.updater->Plan();
  const bool final_model = next.ok() && next->phase() == 0;
  std::optional<v1::ModelVersion> version;
  if (final_model) {
    if (completed) version = Publish(*next, /*final=*/true);
    if (version) *done.mutable_final_model_version() = *version;
    *done.mutable_final_model() = *std::move(next);
  }
  roster_.Broadcast(done);
  EventLine line("training_end");
  line.Add("rounds", state_.updater->round())
      .Add("reason", reason)
      .Add("final_model", final_model ? "sent" : "none");
  if (version) line.Add("model_version", version->version());
  for (const auto& [key, value] : state_.updater->Outcome()) line.Add(key, value);
}

absl::StatusOr<bool> RoundDriver::BudgetAllows(const v1::RoundPlan& plan) const {
  const std::optional<dp::PrivacyBudget> budget = state_.updater->budget();
  if (!budget) return true;
  absl::StatusOr<std::optional<dp::LedgerEntry>> entry =
      state_.updater->RemainingRoundPrivacyBound(plan.min_contributors(), state_.ledger.orders());
  if (!entry.ok()) return entry.status();
  if (!*entry) return true;
  return state_.ledger.CanAfford(**entry, *budget);
}

absl::StatusOr<RoundDriver::RoundOutcome> RoundDriver::RunRound(int attempt) {
  const int64_t round = state_.updater->round();
  bool earlier_phase_applied = false;
  absl::StatusOr<RoundOutcome> outcome;
  while (true) {
    outcome = RunPhase(attempt);
    if (!outcome.ok() || !outcome->applied) break;
    if (state_.updater->round() != round || roster_.stopped()) return outcome;
    earlier_phase_applied = true;
  }
  if (outcome.ok() && earlier_phase_applied) {
    // A later phase failed: the round restarts at phase 0 with a fresh cohort.
    state_.updater->AbandonRound();
    if (absl::Status s = Checkpoint(); !s.ok()) return s;
  }
  return outcome;
}

absl::StatusOr<RoundDriver::RoundOutcome> RoundDriver::RunPhase(int attempt) {
  const int64_t round = state_.updater->round();
  absl::StatusOr<v1::RoundPlan> plan = state_.updater->Plan();
  if (!plan.ok()) return plan.status();
  if (absl::Status s = CheckTaskSize(*plan, options_.max_plan_bytes); !s.ok()) return s;
  absl::StatusOr<bool> affordable = BudgetAllows(*plan);
  if (!affordable.ok()) return affordable.status();
  if (!*affordable) return RoundOutcome{.budget_spent = true, .reason = "budget"};

  absl::StatusOr<std::vector<uint32_t>> cohort = cohorts_.Choose(*plan, attempt);
  if (!cohort.ok()) return cohort.status();
  if (roster_.stopped()) return RoundOutcome{.reason = "stopped"};
  const int64_t cohort_size = static_cast<int64_t>(cohort->size());
  if (state_.updater->fixed_population() && cohort_size < state_.population.size()) {
    return RoundOutcome{
        .population_lost = true,
        .reason = PopulationLostReason(
            state_.population.size(), state_.population.Missing(*cohort),
            absl::StrCat("gone when phase ", plan->phase(), " of round ", round, " started"))};
  }
  if (cohort_size < std::max<int64_t>(plan->min_contributors(), 1)) {
    return RoundOutcome{.reason = absl::StrCat("phase ", plan->phase(), ": ", cohort_size,
                                               " participants left, fewer than ",
                                               plan->min_contributors())};
  }
  board_.Update([&](StatusBoard::Snapshot& s) { s.status.set_phase(plan->phase()); });
  absl::StatusOr<PhaseSpec> spec =
      TrainingPhaseSpec(*plan, attempt, cohort_size, options_, *state_.updater);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<PhaseOutcome> phase = runner_.Run(
      *spec, *std::move(cohort),
      [this](const std::vector<uint64_t>& sum, const std::vector<uint32_t>& contributors) {
        return ApplyToModel(sum, contributors);
      });
  if (!phase.ok()) return phase.status();
  RoundOutcome outcome{.applied = phase->applied,
                       .budget_spent = false,
                       .population_lost = false,
                       .reason = phase->reason,
                       .excluded = phase->excluded,
                       .refusal = phase->refusal};
  if (state_.updater->fixed_population() && !outcome.applied && !phase->lost.empty()) {
    outcome.population_lost = true;
    outcome.reason = PopulationLostReason(state_.population.size(), phase->lost,
                                          absl::StrCat("dropped out of phase ", plan->phase(),
                                                       " of round ", round, ": ", outcome.reason));
  }
  EventLine line("round");
  line.Add("round", round)
      .Add("phase", plan->phase())
      .Add("attempt", attempt)
      .Add("applied", outcome.applied ? "yes" : "no")
      .Add("length", plan->length())
      .Add("bits", plan->bits())
      .Add("round_s", phase->seconds);
  phase->AddFigures(line);
  board_.Update([&](StatusBoard::Snapshot& s) {
    phase->PublishTraffic(round, /*evaluation=*/false, s.status);
  });
  if (state_.ledger.entries().empty()) {
    line.Add("privacy", "no-noise-released");
  } else if (absl::StatusOr<dp::PrivacyReport> report = state_.ledger.Report(options_.report_delta);
             report.ok()) {
    line.Add("epsilon_rdp2", report->rdp_order2)
        .Add("epsilon_dp", report->improved.epsilon)
        .Add("delta", options_.report_delta)
        .Add("privacy_unit", dp::PrivacyUnitName(report->unit))
        .Add("privacy_bound", dp::PrivacyBoundName(*report));
    if (std::isfinite(report->pure_epsilon)) line.Add("epsilon_pure", report->pure_epsilon);
  }
  if (!outcome.applied) line.Add("reason", outcome.reason);
  return outcome;
}

absl::StatusOr<SumVerdict> RoundDriver::ApplyToModel(const std::vector<uint64_t>& sum,
                                                     const std::vector<uint32_t>& contributors) {
  const int64_t round = state_.updater->round();
  SumVerdict verdict;
  // The server saw the sum: the release happened, so it is in the ledger whatever follows.
  absl::StatusOr<std::optional<dp::LedgerEntry>> entry = state_.updater->RoundPrivacy(
      static_cast<int64_t>(contributors.size()), state_.ledger.orders());
  if (!entry.ok()) return entry.status();
  if (*entry) {
    if (absl::Status s = state_.ledger.Append(std::move(**entry)); !s.ok()) return s;
  }
  if (absl::Status s = state_.updater->ApplySum(sum, contributors); !s.ok()) {
    verdict.reason = absl::StrCat("sum discarded: ", s.message());
  } else {
    verdict.applied = true;
  }
  verdict.rounds_done = state_.updater->round();
  PublishProgress();
  if (absl::Status s = Checkpoint(); !s.ok()) return s;
  if (state_.updater->round() != round) LogEvaluation(state_.updater->round());
  return verdict;
}

absl::Status RoundDriver::Checkpoint() {
  if (options_.state_dir.empty()) return absl::OkStatus();
  board_.SetStage("checkpoint");
  const absl::Status saved = SaveCheckpoint(options_.state_dir, state_);
  if (saved.ok()) {
    EventLine("checkpoint")
        .Add("rounds_done", state_.updater->round())
        .Add("ledger_entries", state_.ledger.entries().size());
  }
  return saved;
}

void RoundDriver::MaybePublish() {
  const int64_t round = state_.updater->round();
  if (options_.publish_every <= 0 || round % options_.publish_every != 0 ||
      round >= state_.total_rounds) {
    return;  // the last round's model is published by Finish, as the final one
  }
  absl::StatusOr<v1::RoundPlan> next = state_.updater->Plan();
  if (next.ok() && next->phase() == 0) Publish(*next, /*final=*/false);
}

std::optional<v1::ModelVersion> RoundDriver::Publish(const v1::RoundPlan& model, bool final) {
  if (options_.models == nullptr) return std::nullopt;
  v1::ModelVersion info;
  info.set_run_id(options_.run_id);
  info.set_round(state_.updater->round());
  info.set_algorithm(state_.algorithm);
  info.set_final(final);
  if (absl::StatusOr<dp::PrivacyReport> report = state_.ledger.Report(options_.report_delta);
      report.ok() && !state_.ledger.entries().empty()) {
    info.set_epsilon_dp(report->improved.epsilon);
    info.set_delta(options_.report_delta);
    info.set_privacy_unit(std::string(dp::PrivacyUnitName(report->unit)));
  }
  absl::StatusOr<v1::ModelVersion> published = options_.models->Publish(std::move(info), model);
  if (!published.ok()) {
    EventLine("model_publish_failed")
        .Add("round", state_.updater->round())
        .Add("error", published.status().ToString());
    return std::nullopt;
  }
  return *std::move(published);
}

void RoundDriver::LogEvaluation(int64_t round) {
  if (!options_.evaluate) return;
  if (round % options_.evaluate_every != 0 && round != state_.total_rounds) return;
  absl::StatusOr<Evaluation> e = options_.evaluate(*state_.updater);
  if (!e.ok()) {
    EventLine("evaluation").Add("round", round).Add("error", e.status().ToString());
    return;
  }
  const std::string n = absl::StrCat(options_.eval_ranking.top_n);
  EventLine line("evaluation");
  line.Add("round", round);
  if (e->errors.has_value()) {
    line.Add("test_rmse", e->errors->rmse).Add("test_mae", e->errors->mae);
  } else {
    line.Add("rating_errors", "absent");  // the model predicts no ratings
  }
  line.Add(absl::StrCat("precision", n), e->ranking.precision)
      .Add(absl::StrCat("recall", n), e->ranking.recall)
      .Add(absl::StrCat("f1_", n), e->ranking.f1)
      .Add(absl::StrCat("map", n), e->ranking.map)
      .Add(absl::StrCat("map_at_n", n), e->ranking.map_at_n)
      .Add(absl::StrCat("ndcg", n), e->ranking.ndcg);
}

}  // namespace fedmf::server
