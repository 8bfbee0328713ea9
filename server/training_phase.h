// How a training phase is run: the PhaseSpec of a planned phase (secure sum through a SecAgg
// session whose graph and threshold fit the cohort and the declared dropout and corruption rates,
// or clear uploads the updater checks) and the size check of the task that carries its plan.
// Pure functions of the plan, the options and the updater; the round driver runs the spec.
#ifndef FEDMF_SERVER_TRAINING_PHASE_H_
#define FEDMF_SERVER_TRAINING_PHASE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "fedmf/v1/federation.pb.h"
#include "server/coordinator_options.h"
#include "server/phase_runner.h"

namespace fedmf::server {

// The spec of `plan`'s `attempt` on a cohort of `cohort_size` (logs event=secagg_session for a
// secure sum). Errors: no SecAgg graph fits (cohort.h ChooseGraph).
absl::StatusOr<PhaseSpec> TrainingPhaseSpec(const v1::RoundPlan& plan, int attempt,
                                            int64_t cohort_size, const CoordinatorOptions& options,
                                            const algorithms::Updater& updater);

// The fewest inputs the phase's sum may hold: the plan's n_min, or the whole cohort of a
// fixed-population run.
int64_t MinInputs(const v1::RoundPlan& plan, int64_t cohort_size,
                  const algorithms::Updater& updater);

// OK iff a task carrying `plan` serializes to at most `max_plan_bytes` (with room for the task's
// SecAgg parameters); else RESOURCE_EXHAUSTED naming the plan's size and the flag that raises the
// bound (--max_plan_bytes).
absl::Status CheckTaskSize(const v1::RoundPlan& plan, uint64_t max_plan_bytes);

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_TRAINING_PHASE_H_
