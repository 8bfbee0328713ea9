// One phase of a round, training or federated evaluation alike: Run(spec, cohort) builds the
// phase's Aggregation (SecAgg session or clear uploads), invites the cohort through the stream
// router, closes each stage when everyone answered or at its deadline (late = dropped), hands the
// sum to the caller's SumUse, excludes the session's culprits, and tells every client the result.
// A phase every member declines closes its stage at once (nobody is awaited) and reports the
// refusal when all of them refused the plan with one error (PhaseOutcome::refusal).
// The router (PhaseTransport, its narrow interface for this) delivers the streams' messages into
// the aggregation under its lock; closing a stage (unmasking), using the sum (ApplySum, a
// checkpoint) run here, on the driver thread, outside any lock: the router queues what arrives
// meanwhile. Errors: local failures only.
#ifndef FEDMF_SERVER_PHASE_RUNNER_H_
#define FEDMF_SERVER_PHASE_RUNNER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/util/event_log.h"
#include "crypto/secagg/signing_directory.h"
#include "fedmf/v1/federation.pb.h"
#include "server/aggregation.h"
#include "server/clock.h"
#include "server/coordinator_metrics.h"
#include "server/misbehaviour_log.h"
#include "server/status_board.h"
#include "wire/traffic.h"

namespace fedmf::server {

// What the phase runner needs of the stream router. Between Open and the Resume that reports the
// aggregation finished, the router's lock guards the aggregation, except between Suspend and
// Resume, when it is the caller's alone.
class PhaseTransport {
 public:
  virtual ~PhaseTransport() = default;

  // Where the aggregation's stage stands once the router routed what opens it.
  struct StageStart {
    bool finished = false;       // Aggregation::Finished()
    std::string stage;           // Aggregation::StageName()
    int64_t dropped_so_far = 0;  // Aggregation::DroppedSoFar()
  };
  // The traffic counted since the last Open, and the byte totals of every stream so far.
  struct Traffic {
    wire::TrafficCounter phase;
    int64_t bytes_in = 0, bytes_out = 0;
  };

  // The registered signing keys of `cohort`'s members that have a stream (the others are
  // dropped when the task goes out).
  virtual absl::StatusOr<std::shared_ptr<const secagg::SigningKeyDirectory>> SigningKeys(
      const std::vector<uint32_t>& cohort) = 0;
  // Restarts the phase's traffic count, attaches `aggregation` (it must outlive the attachment)
  // and sends `task` to the client processes hosting its cohort, each listing its members;
  // members without a stream are dropped.
  virtual StageStart Open(Aggregation* aggregation, const v1::RoundTask& task) = 0;
  // Returns once the aggregation's stage is ready to close, `deadline` passed (by the runner's
  // clock) or the coordinator is stopping.
  virtual void AwaitStageEnd(absl::Time deadline) = 0;
  // Called after AwaitStageEnd(deadline) returns and before Suspend: what a party holds back
  // until told (a front's partial sum of masked inputs, docs/scale-out.md section 5) is
  // delivered or given up, so the stage closes on everything sent in time. It may wait past the
  // stage's `deadline` for a bounded time of its own (the combiner's seal timeout). A transport
  // that holds nothing back (the single-process router) does nothing.
  virtual void SealStage(absl::Time deadline) = 0;
  // From now until Resume, what the streams deliver for the aggregation is queued.
  virtual void Suspend() = 0;
  // Routes `envelopes` (receivers without a stream are dropped) and reports the stage; then, if
  // the aggregation is finished, detaches it and discards the queue (late messages), else
  // delivers the queue in order.
  virtual StageStart Resume(Aggregation::Envelopes envelopes) = 0;
  // Detaches the aggregation (if still attached) and discards the queue: on a local failure.
  virtual void Detach() = 0;
  virtual Traffic CurrentTraffic() const = 0;
  // To every connected client process.
  virtual void Broadcast(const v1::RoundResult& result) = 0;
  // Excludes `participant_id` from later cohorts; false if it already was.
  virtual bool Exclude(uint32_t participant_id, std::string reason) = 0;
};

// One phase to run.
struct PhaseSpec {
  v1::RoundPlan plan = {};  // tags the aggregation (round, phase) and goes out in the task
  int attempt = 0;
  // Secure sum through this session (num_clients = the cohort's size); none: clear uploads.
  std::optional<secagg::SessionConfig> secagg = {};
  int64_t min_inputs = 0;                           // fewer inputs give no sum
  ClearAggregation::UploadCheck upload_check = {};  // clear only; may be empty
  bool evaluation = false;                          // counted apart (metrics, traffic)
  std::string stage_prefix = {};                    // of the stage names Status shows, e.g. "eval:"
  int64_t rounds_done = 0;  // the result's round (and rounds_completed, unless the sum's use says)
};

// What a phase's sum was for, decided by the caller's SumUse.
struct SumVerdict {
  bool applied = false;
  std::string reason = {};  // why not
  int64_t rounds_done = 0;  // rounds completed after the use
};
// Given the sum mod 2^bits and its contributors (ascending). Errors: local failures only.
using SumUse = std::function<absl::StatusOr<SumVerdict>(const std::vector<uint64_t>& sum,
                                                        const std::vector<uint32_t>& contributors)>;

// How a phase went: the verdict and the figures of its log line.
struct PhaseOutcome {
  bool applied = false;
  std::string reason = {};              // not applied: why
  std::vector<uint32_t> excluded = {};  // culprits of its failure, now excluded
  std::vector<uint32_t> lost = {};      // Aggregation::Lost()
  // Every member refused the plan with this error (Aggregation::UnanimousRefusal): not applied.
  std::optional<absl::Status> refusal = std::nullopt;
  int64_t participants = 0, contributors = 0;
  int threshold = 0;
  std::vector<std::pair<const char*, double>> stage_seconds = {};  // (event=round key, seconds)
  double seconds = 0;
  wire::TrafficCounter traffic = {};
  int64_t bytes_in = 0, bytes_out = 0;  // of this phase

  // participants, threshold, contributors, dropouts, bytes_in, bytes_out, each stage's seconds
  // and the traffic per user.
  void AddFigures(EventLine& line) const;
  // Makes this phase, of `round` (`evaluation`: an evaluation round), the last round whose
  // traffic `status` reports.
  void PublishTraffic(int64_t round, bool evaluation, v1::StatusResponse& status) const;
};

class PhaseRunner {
 public:
  virtual ~PhaseRunner() = default;
  // Runs `spec` on `cohort` (ascending, non-empty) and hands its sum, if any, to `use`.
  virtual absl::StatusOr<PhaseOutcome> Run(const PhaseSpec& spec, std::vector<uint32_t> cohort,
                                           const SumUse& use) = 0;
};

// The PhaseRunner over the stream router. `stage_timeout`: each stage's deadline;
// `misbehaviour_log_period`: tolerated misbehaviour is logged at most once per participant per
// period (ToleratedMisbehaviourLog).
class RouterPhaseRunner final : public PhaseRunner {
 public:
  RouterPhaseRunner(PhaseTransport& transport, Clock& clock, absl::Duration stage_timeout,
                    CoordinatorMetrics& metrics, StatusBoard& board,
                    absl::Duration misbehaviour_log_period = absl::Seconds(10))
      : transport_(transport),
        clock_(clock),
        stage_timeout_(stage_timeout),
        metrics_(metrics),
        board_(board),
        tolerated_(misbehaviour_log_period) {}

  absl::StatusOr<PhaseOutcome> Run(const PhaseSpec& spec, std::vector<uint32_t> cohort,
                                   const SumUse& use) override;

 private:
  // The spec's aggregation over `cohort`.
  absl::StatusOr<std::unique_ptr<Aggregation>> Build(const PhaseSpec& spec,
                                                     std::vector<uint32_t> cohort);
  // Drives the attached `aggregation` through its stages until it is finished.
  absl::Status Drive(const PhaseSpec& spec, Aggregation& aggregation,
                     PhaseTransport::StageStart stage, PhaseOutcome& outcome);
  // Logs what `done`'s participants did wrong (the tolerated part rate-limited) and excludes its
  // culprits; the newly excluded.
  std::vector<uint32_t> HandleMisbehaviour(const Aggregation& done);

  PhaseTransport& transport_;
  Clock& clock_;
  const absl::Duration stage_timeout_;
  CoordinatorMetrics& metrics_;
  StatusBoard& board_;
  ToleratedMisbehaviourLog tolerated_;
};

// The task of `spec`'s phase, without its participants.
v1::RoundTask RoundTaskFor(const PhaseSpec& spec);

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_PHASE_RUNNER_H_
