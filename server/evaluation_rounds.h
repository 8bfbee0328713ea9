// Federated evaluation rounds (docs/runtime.md, "Federated evaluation"), scheduled by the round
// driver: after every eval_every-th training round and after the last one, sample a cohort of the
// live users from a sampling stream of its own and run one phase of the federated-evaluation
// algorithm (federated_evaluator.h: its plan, the decoding of the cohort's secure sum) through the
// shared phase runner, unsigned; log the metrics and publish them in Status. Nothing is charged to
// the privacy ledger: the sums are released without noise. A failed round (dropouts, a bad sum)
// is logged, not retried.
#ifndef FEDMF_SERVER_EVALUATION_ROUNDS_H_
#define FEDMF_SERVER_EVALUATION_ROUNDS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "server/checkpoint.h"
#include "server/cohort_choice.h"
#include "server/coordinator_options.h"
#include "server/phase_runner.h"
#include "server/roster.h"
#include "server/status_board.h"

namespace fedmf::server {

class EvaluationRounds {
 public:
  EvaluationRounds(const CoordinatorOptions& options, const CoordinatorState& state, Roster& roster,
                   CohortChoice& cohorts, PhaseRunner& runner, StatusBoard& board)
      : options_(options),
        state_(state),
        roster_(roster),
        cohorts_(cohorts),
        runner_(runner),
        board_(board) {}

  // An evaluation round if one is due after the rounds applied so far (`last`: training ended,
  // evaluate unless this model was evaluated). Errors: local failures only.
  absl::Status MaybeEvaluate(bool last);

 private:
  // One evaluation round of the current model.
  absl::Status Evaluate();

  const CoordinatorOptions& options_;
  const CoordinatorState& state_;
  Roster& roster_;
  CohortChoice& cohorts_;
  PhaseRunner& runner_;
  StatusBoard& board_;
  int64_t last_evaluated_round_ = -1;  // rounds applied when last evaluated
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_EVALUATION_ROUNDS_H_
