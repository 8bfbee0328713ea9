// Who a phase invites, decided on the round driver's thread: phase 0 samples the round's cohort
// from the eligible users (live, not excluded) once enough are live; later phases take the
// updater's PhaseParticipants still connected; a fixed-population run (population.h) takes the
// live members of its population, frozen from the users live when its first phase starts. Waits
// through the Roster (bounded by the injected clock) and publishes stage "waiting".
#ifndef FEDMF_SERVER_COHORT_CHOICE_H_
#define FEDMF_SERVER_COHORT_CHOICE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "fedmf/v1/federation.pb.h"
#include "server/checkpoint.h"
#include "server/clock.h"
#include "server/coordinator_options.h"
#include "server/roster.h"
#include "server/status_board.h"

namespace fedmf::server {

class CohortChoice {
 public:
  // `state` is the driver's (its updater, sampling seed and population, which this freezes).
  CohortChoice(const CoordinatorOptions& options, CoordinatorState& state, Roster& roster,
               Clock& clock, StatusBoard& board)
      : options_(options), state_(state), roster_(roster), clock_(clock), board_(board) {}

  // The cohort of `plan`'s `attempt` (earlier failed attempts at this round give fresh cohorts);
  // empty when stopped first. The first round of this process waits for wait_for_users.
  // FailedPrecondition for a fixed population larger than the plan's max_contributors.
  absl::StatusOr<std::vector<uint32_t>> Choose(const v1::RoundPlan& plan, int attempt);
  // `wanted` capped at the participants not excluded: they never come back, so a cohort counting
  // on them would wait forever (as after an attacker holding many ids was excluded).
  int64_t CappedByExclusions(int64_t wanted) const;
  // Waits until `needed` users are eligible (members of the population when it is frozen),
  // logging event=waiting_for_users every 5 s; false if stopped first.
  bool WaitForUsers(int64_t needed, int64_t round);

 private:
  // Choose for a fixed-population run.
  absl::StatusOr<std::vector<uint32_t>> PopulationCohort(const v1::RoundPlan& plan);
  // Eligible users (population members when frozen) now.
  int64_t Eligible() const;

  const CoordinatorOptions& options_;
  CoordinatorState& state_;
  Roster& roster_;
  Clock& clock_;
  StatusBoard& board_;
  bool first_round_ = true;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_COHORT_CHOICE_H_
