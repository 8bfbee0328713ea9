// The round loop, on one thread and without a lock of its own: plan each phase, check the budget,
// choose its cohort (cohort_choice.h), run it (phase_runner.h), apply the sum, record the release
// in the privacy ledger, checkpoint, schedule federated evaluation (evaluation_rounds.h), retry a
// failed round (with a growing pause after kRetriesBeforeBackoff failures) until the rounds are
// done, the budget is spent, or Stop; or until every member of two attempts in a row refused the
// plan with the same error (PhaseOutcome::refusal): no retry fixes that, so the run ends with it.
// It owns the CoordinatorState; other threads see its progress only through the StatusBoard it
// publishes, and time only through the injected Clock.
#ifndef FEDMF_SERVER_ROUND_DRIVER_H_
#define FEDMF_SERVER_ROUND_DRIVER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/checkpoint.h"
#include "server/clock.h"
#include "server/cohort_choice.h"
#include "server/coordinator_options.h"
#include "server/evaluation_rounds.h"
#include "server/phase_runner.h"
#include "server/roster.h"
#include "server/status_board.h"

namespace fedmf::server {

class RoundDriver {
 public:
  // `state` is the checkpoint to resume from or a fresh run; publishes the first snapshot.
  RoundDriver(const CoordinatorOptions& options, CoordinatorState state, Roster& roster,
              PhaseRunner& runner, Clock& clock, StatusBoard& board);

  // Runs rounds until done or the budget is spent, then tells every client; or until the roster
  // is stopped, which ends every stream with UNAVAILABLE instead (training is not over: the
  // clients reconnect to the coordinator's restart, which resumes from its checkpoint), or, when
  // the run was cancelled (Roster::run_cancelled), tells every client it is over and returns
  // Cancelled. Errors
  // only for local failures (checkpoint write, updater errors), too many failed rounds, or,
  // after telling every client why: a fixed-population run that lost a member (Aborted), or the
  // same refusal of the plan by every member of two attempts in a row (that refusal's code,
  // InvalidArgument or FailedPrecondition, naming it).
  absl::Status Run();
  // The updater, ledger and seed; only while Run() is not running.
  const CoordinatorState& state() const { return state_; }

  static constexpr int kRetriesBeforeBackoff = 5;
  static constexpr absl::Duration kMaxBackoff = absl::Seconds(30);

 private:
  struct RoundOutcome {
    bool applied = false;
    bool budget_spent = false;
    bool population_lost = false;  // a fixed-population run lost members: it cannot go on
    std::string reason;
    std::vector<uint32_t> excluded = {};  // culprits of this attempt's failure, now excluded
    std::optional<absl::Status> refusal = std::nullopt;  // PhaseOutcome::refusal
  };

  // Every phase of the planned round; `attempt` counts earlier failed attempts at this round
  // (fresh cohort and session context). A failed phase abandons the round (Updater::AbandonRound).
  absl::StatusOr<RoundOutcome> RunRound(int attempt);
  // The planned phase: its cohort, aggregation, and the sum applied.
  absl::StatusOr<RoundOutcome> RunPhase(int attempt);
  // A training phase's SumUse: the ledger, the updater, the checkpoint.
  absl::StatusOr<SumVerdict> ApplyToModel(const std::vector<uint64_t>& sum,
                                          const std::vector<uint32_t>& contributors);
  absl::StatusOr<bool> BudgetAllows(const v1::RoundPlan& plan) const;
  // After a failed round: (past kRetriesBeforeBackoff failures) a pause that grows to
  // kMaxBackoff, cut short by a stop.
  void PauseAfterFailure(const std::string& reason);
  // The run is over for `reason`: every client is told (training_done) and gets the final model,
  // event=training_end. `completed` (rounds done or budget spent, not a run that failed): the
  // final model is also published for devices that check in later.
  void Finish(const std::string& reason, bool completed);
  // A stop before the end of training: every stream ends with UNAVAILABLE, so the clients
  // reconnect (to the restarted coordinator) instead of leaving as on a training_done result.
  void EndStreamsForRestart();
  // Persists state_ to options_.state_dir, if any (event=checkpoint).
  absl::Status Checkpoint();
  // Publishes `model` (the plan after the applied rounds) to options_.models, if any; its
  // version, or nullopt when there is no store or the store failed (logged: publishing serves
  // devices, the run goes on, and a restart that finishes the run publishes again).
  std::optional<v1::ModelVersion> Publish(const v1::RoundPlan& model, bool final);
  // After an applied round: the model, if the round is a multiple of options_.publish_every.
  void MaybePublish();
  // Publishes the round, the population and the privacy spent.
  void PublishProgress();
  // Simulation only (options_.evaluate): logs event=evaluation of the model after `round`.
  void LogEvaluation(int64_t round);

  const CoordinatorOptions& options_;
  CoordinatorState state_;
  Roster& roster_;
  PhaseRunner& runner_;
  Clock& clock_;
  StatusBoard& board_;
  CohortChoice cohorts_;
  EvaluationRounds evaluations_;
  int failed_rounds_in_a_row_ = 0;
  // The refusal that ended the last attempt, if every member refused (PhaseOutcome::refusal).
  std::optional<absl::Status> last_refusal_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_ROUND_DRIVER_H_
