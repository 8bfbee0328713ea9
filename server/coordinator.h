// The round orchestrator: accepts registrations and streams (as the StreamHandler of every
// Participate reactor), and on one driver thread runs rounds - sample a cohort of live users,
// send the plan, drive the round's Aggregation (aggregation.h: SecAgg or clear uploads) with a
// deadline per stage (late = dropped), apply the decoded sum, record the round in the privacy
// ledger, checkpoint - until the rounds are done or the budget is spent; every few rounds and at
// the end, a federated evaluation round secure-sums the cohort's metric sums
// (coordinator_eval.cc, federated_evaluator.h). A fixed-population run
// (Updater::fixed_population(), population.h) has one cohort, every user live when it starts, for
// all its phases, and ends when it loses one of them. Network input only ever reaches the
// Aggregation's validation or the checks here; problems become gRPC statuses and log lines.
#ifndef FEDMF_SERVER_COORDINATOR_H_
#define FEDMF_SERVER_COORDINATOR_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/metrics/metrics.h"
#include "crypto/secagg/server_session.h"
#include "fedmf/v1/federation.pb.h"
#include "server/aggregation.h"
#include "server/checkpoint.h"
#include "server/chunked_upload.h"
#include "server/cohort.h"
#include "server/connection.h"
#include "server/coordinator_metrics.h"
#include "server/evaluation.h"
#include "server/exclusions.h"
#include "server/registry.h"
#include "wire/chunking.h"
#include "wire/traffic.h"

namespace fedmf::server {

struct CoordinatorOptions {
  std::string state_dir;  // checkpoint directory (empty: no persistence)
  std::string enrollment_token;
  // --credentials_file (credentials.h): binds participant ids to client credentials; unset: the
  // shared enrollment token admits any id.
  std::function<std::shared_ptr<const Credentials>()> credentials;
  // Live streams one TLS identity may hold (Registry); 0: no limit.
  int64_t max_streams_per_identity = 1;
  // Registrations waiting for their stream: how many, and how long (Registry).
  PendingLimits pending_registrations;
  int64_t num_users = 0;          // participant ids are 1..num_users
  double dropout_fraction = 0.3;  // SecAgg tolerates this fraction of the cohort dropping
  absl::Duration stage_timeout = absl::Seconds(20);
  // Consecutive failed rounds before Run() gives up with ABORTED; 0: never (a service keeps
  // retrying, after kRetriesBeforeBackoff failures with a growing pause, and reports the streak
  // in Status). Attempts that failed because of an excluded culprit do not count.
  int max_failed_rounds = 0;
  // The first round (of this process) waits for this many live users, e.g. every client of a
  // demo; later rounds wait only for a cohort. 0: a cohort. A fixed-population run freezes its
  // population, every live user, once this many (0: a cohort, the plan's max_contributors) are
  // live; resumed, it waits for that population instead.
  int64_t wait_for_users = 0;
  std::string run_id = "fedmf";  // bound into every SecAgg session context
  // SecAgg neighbor graph (cohort.h ChooseGraph): mode, the finder's corrupt fraction, and a fixed
  // Harary degree (0: the finder's).
  GraphMode secagg_graph = GraphMode::kAuto;
  double corrupt_fraction = 0.05;
  int harary_degree = 0;
  // Advertisements signed with the registered keys (the coordinator relays the cohort's
  // directory in the RoundTask); with the complete graph also Bonawitz's consistency check.
  bool signatures = true;
  bool consistency_check = true;
  // fedmf-sim --plain_sum only: secure-sum rounds collect clear uploads instead of running SecAgg
  // (the sum is the same bit for bit; only its cost and its protection are gone).
  bool simulation_plain_sum = false;
  double report_delta = 1e-5;  // delta of the (epsilon, delta) in logs and Status
  // Messages to clients larger than this (serialized) go out as chunks (wire/chunking.h).
  size_t chunk_bytes = wire::kDefaultChunkBytes;
  // Largest client message reassembled from chunks; a stream holds at most this much pending.
  uint64_t max_upload_bytes = wire::kMaxTransferBytes;
  // Largest task (plan and SecAgg parameters) sent to clients, who must reassemble that much
  // (fedmf-client --max_download_bytes); a larger plan stops the run (--max_plan_bytes).
  uint64_t max_plan_bytes = wire::kMaxTransferBytes;
  // All streams' partial chunked uploads together (chunked_upload.h), and how long one may stay
  // incomplete before EndStalledUploads ends its stream.
  uint64_t max_upload_buffer_bytes = uint64_t{2} << 30;
  absl::Duration upload_timeout = absl::Seconds(120);
  // Simulation only (evaluation.h): scores the model after every round when set.
  std::function<absl::StatusOr<Evaluation>(const algorithms::Updater&)> evaluate;
  int64_t evaluate_every = 1;  // ... after rounds that are multiples of this, and the last
  // Federated evaluation (coordinator_eval.cc): an evaluation round after every eval_every-th
  // training round and after the last one; 0: never. Not charged to the privacy ledger, so
  // kEvalEveryAuto turns it on only for a run without DP noise (kDefaultEvalEvery).
  static constexpr int64_t kEvalEveryAuto = -1;
  static constexpr int64_t kDefaultEvalEvery = 10;
  int64_t eval_every = 0;
  // Users per evaluation round: round(eval_participation * num_users), at least 2; 0: the
  // training cohort size.
  double eval_participation = 0;
  // Top N and relevance threshold of the federated evaluation: the algorithm's (registry.h),
  // set by coordinator_setup.h CoordinatorOptionsFromFlags.
  metrics::RankingOptions eval_ranking;
};

class Coordinator final : public StreamHandler {
 public:
  // `state` is the checkpoint to resume from or a fresh run.
  Coordinator(CoordinatorOptions options, CoordinatorState state);

  // `identity`: the client's verified TLS identity (empty: none), see Registry.
  grpc::Status Register(const v1::RegisterRequest& request, v1::RegisterResponse& response,
                        absl::string_view identity = "");
  // True when `session_token` may open a stream (Registry::HoldsPending); OnStreamOpen decides.
  bool KnowsSessionToken(absl::string_view session_token);
  grpc::Status OnStreamOpen(const std::shared_ptr<Connection>& connection,
                            absl::string_view session_token) override;
  grpc::Status OnClientMessage(const std::shared_ptr<Connection>& connection,
                               const v1::ClientMessage& message) override;
  void OnStreamClosed(const std::shared_ptr<Connection>& connection) override;
  void OnMessageRefused(const std::shared_ptr<Connection>& connection,
                        const grpc::Status& status) override;
  v1::StatusResponse Status() const;
  // The counters of the Prometheus scrape (--metrics_listen), which renders them with Status().
  const CoordinatorMetrics& metrics() const { return metrics_; }

  // Runs rounds until done or the budget is spent, then tells every client; or until Stop(),
  // which ends every stream with UNAVAILABLE instead (training is not over: the clients
  // reconnect to the coordinator's restart, which resumes from its checkpoint). Errors only
  // for local failures (checkpoint write, updater errors), too many failed rounds, or (Aborted,
  // after telling every client why) a fixed-population run that lost a member.
  absl::Status Run();
  void Stop();
  // Ends (PERMISSION_DENIED) the live streams whose client identity `revoked` names, logging
  // event=stream_revoked; their users then drop out as on any closed stream. `revoked` is called
  // without the coordinator's lock (it may read a file). Returns how many streams it ended.
  int EndRevokedStreams(const std::function<bool(absl::string_view identity)>& revoked);
  // Ends (DEADLINE_EXCEEDED) the streams whose chunked upload started more than
  // options.upload_timeout before `now`, logging event=upload_stalled; returns how many.
  int EndStalledUploads(absl::Time now);
  // Bytes the partial chunked uploads of all streams hold now.
  uint64_t upload_buffer_bytes() const { return upload_budget_.held(); }
  // Waits (up to `timeout`) until every client stream has closed.
  void WaitForDisconnects(absl::Duration timeout);
  uint64_t NextConnectionId() { return next_connection_id_.fetch_add(1); }
  // The updater, ledger and seed; only while Run() is not running (e.g. after it returned).
  const CoordinatorState& state() const { return state_; }
  // OK iff a task carrying `plan` serializes to at most `max_plan_bytes` (with room for the
  // task's SecAgg parameters); else RESOURCE_EXHAUSTED naming the plan's size and the flag that
  // raises the bound (--max_plan_bytes).
  static absl::Status CheckTaskSize(const v1::RoundPlan& plan, uint64_t max_plan_bytes);

 private:
  struct RoundOutcome {
    bool applied = false;
    bool budget_spent = false;
    bool population_lost = false;  // a fixed-population run lost members: it cannot go on
    std::string reason;
    std::vector<uint32_t> excluded = {};  // culprits of this attempt's failure, now excluded
  };

  // coordinator_round.cc; called with mu_ held through `lock`.
  // Every phase of the planned round; `attempt` counts earlier failed attempts at this round
  // (fresh cohort and session context). A failed phase abandons the round (Updater::AbandonRound).
  absl::StatusOr<RoundOutcome> RunRound(std::unique_lock<std::mutex>& lock, int attempt);
  // The planned phase: its cohort, aggregation, and the sum applied.
  absl::StatusOr<RoundOutcome> RunPhase(std::unique_lock<std::mutex>& lock, int attempt);
  // Who the planned phase invites: phase 0 samples the round's cohort once enough users are live
  // (empty if stopped first), later phases the updater's PhaseParticipants still connected; a
  // fixed-population run the live members of its population (frozen first if need be).
  absl::StatusOr<std::vector<uint32_t>> PhaseCohort(std::unique_lock<std::mutex>& lock,
                                                    const v1::RoundPlan& plan, int attempt);
  // The live users a cohort may be drawn from: not excluded.
  std::vector<uint32_t> EligibleUsers() const;
  // Logs what `done`'s participants did wrong and excludes its culprits; the newly excluded.
  std::vector<uint32_t> HandleMisbehaviour(const Aggregation& done);
  // After a failed round: the streak, and (past kRetriesBeforeBackoff failures) a pause that
  // grows to kMaxBackoff, cut short by Stop().
  void PauseAfterFailure(std::unique_lock<std::mutex>& lock, const std::string& reason);
  static constexpr int kRetriesBeforeBackoff = 5;
  static constexpr absl::Duration kMaxBackoff = absl::Seconds(30);
  // PhaseCohort of a fixed-population run.
  // FailedPrecondition for a population larger than the plan's max_contributors.
  absl::StatusOr<std::vector<uint32_t>> PopulationCohort(std::unique_lock<std::mutex>& lock,
                                                         const v1::RoundPlan& plan);
  // The fewest inputs the planned phase's sum may hold: the plan's n_min, or the whole cohort of
  // a fixed-population run.
  int64_t MinInputs(const v1::RoundPlan& plan, int64_t cohort_size) const;
  // The run is over for `reason`: every client is told (training_done), event=training_end.
  void Finish(const std::string& reason);
  // Stop() before the end of training: every stream ends with UNAVAILABLE, so the clients
  // reconnect (to the restarted coordinator) instead of leaving as on a training_done result.
  void EndStreamsForRestart();
  // Persists state_ to options_.state_dir, if any (event=checkpoint).
  absl::Status Checkpoint(std::unique_lock<std::mutex>& lock);
  // (event=round key, seconds) of each stage of a round.
  using StageSeconds = std::vector<std::pair<const char*, double>>;

  absl::StatusOr<bool> BudgetAllows(const v1::RoundPlan& plan) const;
  // Waits until `needed` users are live (members of state_.population when it is frozen); false if
  // stopped first.
  bool WaitForLiveUsers(std::unique_lock<std::mutex>& lock, int64_t needed, int64_t round);
  // Drives aggregation_ through its stages (deadline each) until it finishes; stage_ is
  // `stage_prefix` + the stage name, each stage's duration is appended to `stage_seconds`.
  // Errors: local failures only.
  absl::Status Drive(std::unique_lock<std::mutex>& lock, absl::string_view stage_prefix,
                     StageSeconds& stage_seconds);
  // Make `cohort` the round's aggregation, through SecAgg or by clear uploads, and send it the
  // plan (errors: local failures only).
  absl::Status StartSecureSum(const v1::RoundPlan& plan, int attempt, std::vector<uint32_t> cohort);
  absl::Status StartClear(const v1::RoundPlan& plan, int attempt, std::vector<uint32_t> cohort);
  // Makes `cohort` the aggregation of `plan` (tagged with its round and phase) through a SecAgg
  // session with `config`, unmasking at least `min_inputs` inputs, and sends it the plan; a
  // signed session verifies against `directory`, whose keys each ShareKeysRequest carries for
  // the neighbors it lists.
  absl::Status StartSession(const v1::RoundPlan& plan, int attempt,
                            const secagg::SessionConfig& config, std::vector<uint32_t> cohort,
                            std::shared_ptr<const secagg::SigningKeyDirectory> directory,
                            int64_t min_inputs);
  // The task of a phase's `attempt` (`config` null for clear rounds), without its participants.
  v1::RoundTask RoundTaskFor(const v1::RoundPlan& plan, int attempt,
                             const secagg::SessionConfig* config) const;
  // `task` to every client process hosting members of aggregation_'s cohort, listing its
  // members; members without a stream are dropped.
  void SendTasks(const v1::RoundTask& task);
  // The registered keys of the live `cohort` members.
  absl::StatusOr<std::shared_ptr<const secagg::SigningKeyDirectory>> CohortDirectory(
      const std::vector<uint32_t>& cohort) const;
  // Sends each envelope to its participant's stream; participants without one are dropped.
  void Route(Aggregation::Envelopes envelopes);
  // What a phase's sum is for, given the sum and its contributors (ascending): applied to the
  // model (ApplyToModel) or decoded as an evaluation's metrics. Not applied: the outcome says
  // why; errors: local failures only.
  using SumUse = std::function<absl::StatusOr<RoundOutcome>(
      std::unique_lock<std::mutex>& lock, const std::vector<uint64_t>& sum,
      const std::vector<uint32_t>& contributors)>;
  // Ends aggregation_, hands its sum (if it has one) to `use` and sends every client the phase's
  // result.
  absl::StatusOr<RoundOutcome> Finalize(std::unique_lock<std::mutex>& lock, const SumUse& use);
  // A training phase's SumUse: the ledger, the updater, the checkpoint.
  absl::StatusOr<RoundOutcome> ApplyToModel(std::unique_lock<std::mutex>& lock,
                                            const std::vector<uint64_t>& sum,
                                            const std::vector<uint32_t>& contributors);
  // A whole (unchunked or reassembled) message of a bound stream.
  grpc::Status Dispatch(const std::shared_ptr<Connection>& connection,
                        const v1::ClientMessage& message);
  // The event=message_refused line for a stream ended with `status` (mu_ held).
  void LogRefused(const Connection& connection, const grpc::Status& status) const;
  // Reassembles outside mu_ (the stream's reader owns its ChunkedUpload); locks to check the
  // participant and to dispatch the whole message.
  grpc::Status HandleChunk(const std::shared_ptr<Connection>& connection,
                           const v1::ClientMessage& message);
  grpc::Status HandleClearUpload(const Connection& connection, const v1::ClearUpload& upload);
  void Broadcast(const v1::RoundResult& result);
  void LogEvaluation(int64_t round);

  // coordinator_eval.cc: an evaluation round if one is due after the rounds applied so far
  // (`last`: training ended, evaluate unless this model was evaluated).
  absl::Status MaybeEvaluate(std::unique_lock<std::mutex>& lock, bool last);
  // One evaluation round of the current model: a phase of the federated-evaluation algorithm
  // (federated_evaluator.h), unsigned, run like a training phase; a failed round (dropouts, a bad
  // sum) is logged, not retried. Errors: local failures only.
  absl::Status RunEvaluation(std::unique_lock<std::mutex>& lock);
  // Sends `message` (as chunks when large) and counts its bytes; under mu_.
  size_t Send(Connection& connection, v1::ServerMessage message);
  // The stream's outbound queue overflowed (a client that does not read): its users leave the
  // round; the stream itself ends as Connection says. Under mu_.
  void DropOverflowed(const Connection& connection);
  // Closes the traffic accounting of the round (under mu_); `evaluation`: an evaluation round,
  // counted on its own, after `round` training rounds.
  void EndRoundTraffic(int64_t round, int64_t cohort_size, bool evaluation = false);

  const CoordinatorOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  CoordinatorState state_;
  Registry registry_;
  Exclusions exclusions_;
  int failed_rounds_in_a_row_ = 0;  // counted as Run() counts them
  std::string last_failure_;        // why the last round failed (empty once one applies)
  bool stop_ = false;
  bool first_round_ = true;
  std::string stage_ = "starting";
  std::unique_ptr<Aggregation> aggregation_;  // of the round in progress, if any
  int64_t last_evaluated_round_ = -1;         // rounds applied when last evaluated
  std::optional<v1::FederatedEvaluation> last_evaluation_;
  int32_t last_participants_ = 0, last_dropouts_ = 0, last_phase_ = 0;
  std::atomic<int64_t> bytes_in_{0}, bytes_out_{0};
  CoordinatorMetrics metrics_;
  UploadBudget upload_budget_;         // of all streams' chunked uploads
  wire::TrafficCounter traffic_;       // of the current round, by stage
  wire::TrafficCounter last_traffic_;  // of the last finished round
  int64_t last_traffic_round_ = -1;
  int64_t last_traffic_cohort_ = 0;
  bool last_traffic_evaluation_ = false;
  std::atomic<uint64_t> next_connection_id_{1};
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_COORDINATOR_H_
