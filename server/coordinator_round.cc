// The driver side of Coordinator: the round loop, one phase's stages and the sum's use (the
// aggregation's setup is in coordinator_aggregation.cc).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dp/privacy_unit.h"
#include "common/util/event_log.h"
#include "crypto/secagg/stages.h"
#include "server/cohort.h"
#include "server/coordinator.h"
#include "server/population.h"
#include "server/traffic_report.h"
#include "wire/secagg_params.h"

namespace fedmf::server {
namespace {

using Clock = std::chrono::steady_clock;

// Room for the task's SecAgg parameters and participant ids around the plan.
constexpr size_t kTaskOverheadBytes = 1 << 20;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

}  // namespace

absl::Status Coordinator::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  LogEvaluation(state_.updater->round());
  int failures = 0;
  std::string end = "rounds done";
  while (state_.updater->round() < state_.total_rounds && !stop_) {
    absl::StatusOr<RoundOutcome> outcome = RunRound(lock, failures);
    if (!outcome.ok()) return outcome.status();
    if (outcome->population_lost) {
      Finish(outcome->reason);
      return absl::AbortedError(outcome->reason);
    }
    if (outcome->budget_spent) {
      end = "privacy budget spent";
      break;
    }
    if (outcome->applied) {
      failures = 0;
      failed_rounds_in_a_row_ = 0;
      last_failure_.clear();
      if (absl::Status s = MaybeEvaluate(lock, /*last=*/false); !s.ok()) return s;
      continue;
    }
    if (stop_) break;
    last_failure_ = outcome->reason;
    // Without its now excluded culprits the round can succeed: that attempt is not a failure of
    // the run, only its attempt number moves on (a fresh cohort).
    ++failures;
    if (!outcome->excluded.empty()) continue;
    ++failed_rounds_in_a_row_;
    if (options_.max_failed_rounds > 0 && failed_rounds_in_a_row_ >= options_.max_failed_rounds) {
      return absl::AbortedError(absl::StrCat(failed_rounds_in_a_row_,
                                             " rounds in a row failed; last: ", outcome->reason));
    }
    PauseAfterFailure(lock, outcome->reason);
  }
  if (stop_ && end == "rounds done" && state_.updater->round() < state_.total_rounds) {
    EndStreamsForRestart();
    return absl::OkStatus();
  }
  if (absl::Status s = MaybeEvaluate(lock, /*last=*/true); !s.ok()) return s;
  Finish(end);
  return absl::OkStatus();
}

void Coordinator::EndStreamsForRestart() {
  stage_ = "stopped";
  // Not the end of training: a stopped coordinator (a signal: a container restart, a rolling
  // update) resumes from its checkpoint, so its clients must stay and reconnect, which they do on
  // UNAVAILABLE. A training_done result would make them exit for good.
  const std::vector<std::shared_ptr<Connection>> connections = registry_.Connections();
  for (const std::shared_ptr<Connection>& c : connections) {
    c->Close(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "the coordinator stopped before the end of training; reconnect"));
  }
  EventLine("coordinator_stopped")
      .Add("rounds_done", state_.updater->round())
      .Add("total_rounds", state_.total_rounds)
      .Add("streams_ended", connections.size())
      .Add("effect", "clients reconnect to the restarted coordinator");
}

void Coordinator::PauseAfterFailure(std::unique_lock<std::mutex>& lock, const std::string& reason) {
  if (failed_rounds_in_a_row_ < kRetriesBeforeBackoff) return;
  const absl::Duration pause = std::min(
      kMaxBackoff, absl::Seconds(1) * (int64_t{1} << std::min(
                                           failed_rounds_in_a_row_ - kRetriesBeforeBackoff, 5)));
  EventLine("rounds_failing")
      .Add("round", state_.updater->round())
      .Add("failed_in_a_row", failed_rounds_in_a_row_)
      .Add("pause_s", absl::ToDoubleSeconds(pause))
      .Add("last", reason);
  stage_ = "paused after failed rounds";
  cv_.wait_for(lock, absl::ToChronoMilliseconds(pause), [this] { return stop_; });
}

std::vector<uint32_t> Coordinator::EligibleUsers() const {
  return exclusions_.Without(registry_.LiveUsers());
}

std::vector<uint32_t> Coordinator::HandleMisbehaviour(const Aggregation& done) {
  std::vector<uint32_t> excluded;
  for (const secagg::ServerSession::Misbehaviour& m : done.misbehaviour()) {
    EventLine("secagg_misbehaviour")
        .Add("round", done.tag().round)
        .Add("phase", done.tag().phase)
        .Add("participant", m.client_id)
        .Add("tolerated", m.aborted_session ? "no" : "yes")
        .Add("evidence", m.evidence);
    if (!m.aborted_session || !exclusions_.Exclude(m.client_id, m.evidence)) continue;
    excluded.push_back(m.client_id);
    EventLine("participant_excluded")
        .Add("participant", m.client_id)
        .Add("round", done.tag().round)
        .Add("reason", m.evidence);
  }
  return excluded;
}

void Coordinator::Finish(const std::string& reason) {
  stage_ = "done";
  v1::RoundResult done;
  done.set_round(state_.updater->round());
  done.set_rounds_completed(state_.updater->round());
  done.set_training_done(true);
  done.set_reason(reason);
  // The final model reaches every connected client, which otherwise keeps the model of its last
  // task, one update behind. Between phases (a run stopped mid-round) the next plan is no
  // phase 0 and carries no settled model.
  absl::StatusOr<v1::RoundPlan> next = state_.updater->Plan();
  const bool final_model = next.ok() && next->phase() == 0;
  if (final_model) *done.mutable_final_model() = *std::move(next);
  Broadcast(done);
  EventLine line("training_end");
  line.Add("rounds", state_.updater->round())
      .Add("reason", reason)
      .Add("final_model", final_model ? "sent" : "none");
  for (const auto& [key, value] : state_.updater->Outcome()) line.Add(key, value);
}

absl::StatusOr<bool> Coordinator::BudgetAllows(const v1::RoundPlan& plan) const {
  const std::optional<dp::PrivacyBudget> budget = state_.updater->budget();
  if (!budget) return true;
  absl::StatusOr<std::optional<dp::LedgerEntry>> entry =
      state_.updater->RemainingRoundPrivacyBound(plan.min_contributors(), state_.ledger.orders());
  if (!entry.ok()) return entry.status();
  if (!*entry) return true;
  return state_.ledger.CanAfford(**entry, *budget);
}

absl::Status Coordinator::CheckTaskSize(const v1::RoundPlan& plan, uint64_t max_plan_bytes) {
  // Clients reassemble at most that much (a larger plan goes in chunks up to that).
  if (plan.ByteSizeLong() + kTaskOverheadBytes > max_plan_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "round plan of ", plan.ByteSizeLong(), " bytes (and ", kTaskOverheadBytes,
        " bytes of task) exceeds --max_plan_bytes=", max_plan_bytes, ": raise it (at most ",
        wire::kMaxParseBytes, ") and the clients' --max_download_bytes together"));
  }
  return absl::OkStatus();
}

bool Coordinator::WaitForLiveUsers(std::unique_lock<std::mutex>& lock, int64_t needed,
                                   int64_t round) {
  stage_ = "waiting";
  auto live = [this] {
    const std::vector<uint32_t> users = EligibleUsers();
    return state_.population.frozen() ? state_.population.CountPresent(users)
                                      : static_cast<int64_t>(users.size());
  };
  auto last_log = Clock::now() - std::chrono::seconds(10);
  while (!stop_ && live() < needed) {
    if (Seconds(last_log) >= 5) {
      EventLine line("waiting_for_users");
      line.Add("round", round).Add("live", live()).Add("need", needed);
      if (state_.population.frozen()) line.Add("of", "population");
      last_log = Clock::now();
    }
    cv_.wait_for(lock, std::chrono::seconds(1));
  }
  return !stop_;
}

absl::StatusOr<Coordinator::RoundOutcome> Coordinator::RunRound(std::unique_lock<std::mutex>& lock,
                                                                int attempt) {
  const int64_t round = state_.updater->round();
  bool earlier_phase_applied = false;
  absl::StatusOr<RoundOutcome> outcome;
  while (true) {
    outcome = RunPhase(lock, attempt);
    if (!outcome.ok() || !outcome->applied) break;
    if (state_.updater->round() != round || stop_) return outcome;
    earlier_phase_applied = true;
  }
  if (outcome.ok() && earlier_phase_applied) {
    // A later phase failed: the round restarts at phase 0 with a fresh cohort.
    state_.updater->AbandonRound();
    if (absl::Status s = Checkpoint(lock); !s.ok()) return s;
  }
  return outcome;
}

absl::StatusOr<std::vector<uint32_t>> Coordinator::PhaseCohort(std::unique_lock<std::mutex>& lock,
                                                               const v1::RoundPlan& plan,
                                                               int attempt) {
  if (state_.updater->fixed_population()) return PopulationCohort(lock, plan);
  if (plan.phase() > 0) {
    // The algorithm's choice, among the users still connected.
    const std::vector<uint32_t> chosen = state_.updater->PhaseParticipants();
    const std::vector<uint32_t> live = EligibleUsers();
    std::vector<uint32_t> cohort;
    std::set_intersection(chosen.begin(), chosen.end(), live.begin(), live.end(),
                          std::back_inserter(cohort));
    return cohort;
  }
  const int64_t cohort_size = plan.max_contributors();
  const int64_t needed =
      first_round_ ? std::max(cohort_size, options_.wait_for_users) : cohort_size;
  first_round_ = false;
  if (!WaitForLiveUsers(lock, needed, plan.round())) return std::vector<uint32_t>();
  return SampleCohort(EligibleUsers(), cohort_size, state_.sampling_seed, plan.round(), attempt);
}

absl::StatusOr<std::vector<uint32_t>> Coordinator::PopulationCohort(
    std::unique_lock<std::mutex>& lock, const v1::RoundPlan& plan) {
  FixedPopulation& population = state_.population;
  if (!population.frozen()) {
    const int64_t needed = options_.wait_for_users > 0
                               ? std::max(options_.wait_for_users, plan.min_contributors())
                               : plan.max_contributors();
    first_round_ = false;
    if (!WaitForLiveUsers(lock, needed, plan.round())) return std::vector<uint32_t>();
    if (absl::Status s = population.Freeze(EligibleUsers()); !s.ok()) return s;
    EventLine("population_frozen")
        .Add("round", plan.round())
        .Add("phase", plan.phase())
        .Add("users", population.size());
  } else if (first_round_) {
    // Resumed: the checkpoint's population, all of it.
    first_round_ = false;
    if (!WaitForLiveUsers(lock, population.size(), plan.round())) return std::vector<uint32_t>();
  }
  if (population.size() > plan.max_contributors()) {
    return absl::FailedPreconditionError(
        absl::StrCat("fixed population of ", population.size(), " exceeds phase ", plan.phase(),
                     " of round ", plan.round(), "'s max_contributors ", plan.max_contributors(),
                     ": a fixed-population plan must admit every user"));
  }
  const std::vector<uint32_t> live = EligibleUsers();
  std::vector<uint32_t> cohort;
  std::set_intersection(population.members().begin(), population.members().end(), live.begin(),
                        live.end(), std::back_inserter(cohort));
  return cohort;
}

int64_t Coordinator::MinInputs(const v1::RoundPlan& plan, int64_t cohort_size) const {
  return state_.updater->fixed_population() ? cohort_size : plan.min_contributors();
}

absl::StatusOr<Coordinator::RoundOutcome> Coordinator::RunPhase(std::unique_lock<std::mutex>& lock,
                                                                int attempt) {
  const int64_t round = state_.updater->round();
  absl::StatusOr<v1::RoundPlan> plan = state_.updater->Plan();
  if (!plan.ok()) return plan.status();
  if (absl::Status s = CheckTaskSize(*plan, options_.max_plan_bytes); !s.ok()) return s;
  absl::StatusOr<bool> affordable = BudgetAllows(*plan);
  if (!affordable.ok()) return affordable.status();
  if (!*affordable) {
    return RoundOutcome{.budget_spent = true, .reason = "budget"};
  }

  absl::StatusOr<std::vector<uint32_t>> cohort = PhaseCohort(lock, *plan, attempt);
  if (!cohort.ok()) return cohort.status();
  if (stop_) {
    return RoundOutcome{.reason = "stopped"};
  }
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
  last_participants_ = static_cast<int32_t>(cohort_size);
  last_dropouts_ = 0;
  last_phase_ = plan->phase();
  const int64_t in0 = bytes_in_.load(), out0 = bytes_out_.load();
  traffic_.Reset();
  const auto round_start = Clock::now();
  StageSeconds stage_seconds;
  // fedmf-sim --plain_sum: a secure-sum plan collected by clear uploads (the same sum).
  const bool clear = plan->combination() == v1::COMBINATION_CLEAR || options_.simulation_plain_sum;
  if (absl::Status s = clear ? StartClear(*plan, attempt, std::move(*cohort))
                             : StartSecureSum(*plan, attempt, std::move(*cohort));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = Drive(lock, "", stage_seconds); !s.ok()) return s;
  const int threshold = aggregation_->threshold();
  const std::vector<uint32_t> lost = aggregation_->Lost();
  absl::StatusOr<RoundOutcome> outcome =
      Finalize(lock, [this](std::unique_lock<std::mutex>& l, const std::vector<uint64_t>& sum,
                            const std::vector<uint32_t>& contributors) {
        return ApplyToModel(l, sum, contributors);
      });
  if (!outcome.ok()) return outcome;
  if (state_.updater->fixed_population() && !outcome->applied && !lost.empty()) {
    outcome->population_lost = true;
    outcome->reason =
        PopulationLostReason(state_.population.size(), lost,
                             absl::StrCat("dropped out of phase ", plan->phase(), " of round ",
                                          round, ": ", outcome->reason));
  }
  EventLine line("round");
  line.Add("round", round)
      .Add("phase", plan->phase())
      .Add("attempt", attempt)
      .Add("applied", outcome->applied ? "yes" : "no")
      .Add("participants", cohort_size)
      .Add("threshold", threshold)
      .Add("contributors", cohort_size - last_dropouts_)
      .Add("dropouts", last_dropouts_)
      .Add("bytes_in", bytes_in_.load() - in0)
      .Add("bytes_out", bytes_out_.load() - out0)
      .Add("length", plan->length())
      .Add("bits", plan->bits())
      .Add("round_s", Seconds(round_start));
  for (const auto& [key, seconds] : stage_seconds) line.Add(key, seconds);
  AddTraffic(traffic_, cohort_size, line);
  EndRoundTraffic(round, cohort_size);
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
  if (!outcome->applied) line.Add("reason", outcome->reason);
  return outcome;
}

absl::Status Coordinator::Drive(std::unique_lock<std::mutex>& lock, absl::string_view stage_prefix,
                                StageSeconds& stage_seconds) {
  const bool evaluation = aggregation_->tag().evaluation();
  metrics_.AggregationStarted(evaluation);
  while (!aggregation_->Finished()) {
    const std::string stage = aggregation_->StageName();
    stage_ = absl::StrCat(stage_prefix, stage);
    const int64_t dropped_before = aggregation_->DroppedSoFar();
    const auto start = Clock::now();
    cv_.wait_until(lock, start + absl::ToChronoMilliseconds(options_.stage_timeout),
                   [this] { return stop_ || aggregation_->ReadyToClose(); });
    const char* key = aggregation_->StageKey();
    absl::StatusOr<Aggregation::Envelopes> next = aggregation_->CloseStage();
    const double seconds = Seconds(start);
    stage_seconds.emplace_back(key, seconds);
    metrics_.StageClosed(evaluation, stage, seconds, aggregation_->DroppedSoFar() - dropped_before);
    if (!next.ok()) return next.status();
    Route(std::move(*next));
  }
  return absl::OkStatus();
}

absl::StatusOr<Coordinator::RoundOutcome> Coordinator::Finalize(std::unique_lock<std::mutex>& lock,
                                                                const SumUse& use) {
  const int64_t round = state_.updater->round();
  const std::unique_ptr<Aggregation> done = std::move(aggregation_);
  const absl::StatusOr<std::vector<uint64_t>> collected = done->sum();
  const std::vector<uint32_t> contributors = done->contributors();
  const int64_t n = static_cast<int64_t>(contributors.size());
  last_dropouts_ = last_participants_ - static_cast<int32_t>(n);
  RoundOutcome outcome;
  v1::RoundResult result;
  result.set_round(round);
  result.set_phase(done->tag().phase);
  result.set_contributors(static_cast<int32_t>(n));
  if (!collected.ok()) {
    outcome.reason = std::string(collected.status().message());
  } else {
    absl::StatusOr<RoundOutcome> used = use(lock, *collected, contributors);
    if (!used.ok()) return used.status();
    outcome = *std::move(used);
  }
  outcome.excluded = HandleMisbehaviour(*done);
  metrics_.AggregationEnded(done->tag().evaluation(), outcome.applied);
  result.set_rounds_completed(state_.updater->round());
  result.set_applied(outcome.applied);
  result.set_reason(outcome.reason);
  Broadcast(result);
  return outcome;
}

absl::StatusOr<Coordinator::RoundOutcome> Coordinator::ApplyToModel(
    std::unique_lock<std::mutex>& lock, const std::vector<uint64_t>& sum,
    const std::vector<uint32_t>& contributors) {
  const int64_t round = state_.updater->round();
  RoundOutcome outcome;
  // The server saw the sum: the release happened, so it is in the ledger whatever follows.
  absl::StatusOr<std::optional<dp::LedgerEntry>> entry = state_.updater->RoundPrivacy(
      static_cast<int64_t>(contributors.size()), state_.ledger.orders());
  if (!entry.ok()) return entry.status();
  if (*entry) {
    if (absl::Status s = state_.ledger.Append(std::move(**entry)); !s.ok()) return s;
  }
  if (absl::Status s = state_.updater->ApplySum(sum, contributors); !s.ok()) {
    outcome.reason = absl::StrCat("sum discarded: ", s.message());
  } else {
    outcome.applied = true;
  }
  if (absl::Status s = Checkpoint(lock); !s.ok()) return s;
  if (state_.updater->round() != round) {
    lock.unlock();  // only this thread touches the updater
    LogEvaluation(state_.updater->round());
    lock.lock();
  }
  return outcome;
}

absl::Status Coordinator::Checkpoint(std::unique_lock<std::mutex>& lock) {
  if (options_.state_dir.empty()) return absl::OkStatus();
  stage_ = "checkpoint";
  lock.unlock();  // only this thread touches the updater and ledger
  const absl::Status saved = SaveCheckpoint(options_.state_dir, state_);
  if (saved.ok()) {
    EventLine("checkpoint")
        .Add("rounds_done", state_.updater->round())
        .Add("ledger_entries", state_.ledger.entries().size());
  }
  lock.lock();
  return saved;
}

void Coordinator::LogEvaluation(int64_t round) {
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
