// The coordinator's runtime settings (the run's and the process flags of fedmf-coordinator and
// fedmf-sim, set by coordinator_setup.h CoordinatorOptionsForRun), read by the stream router, the
// round driver and the phase runner alike. A plain struct: no behaviour.
#ifndef FEDMF_SERVER_COORDINATOR_OPTIONS_H_
#define FEDMF_SERVER_COORDINATOR_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/algorithms/algorithm.h"
#include "common/metrics/metrics.h"
#include "server/cohort.h"
#include "server/credentials.h"
#include "server/evaluation.h"
#include "server/model_store.h"
#include "server/registry.h"
#include "wire/chunking.h"

namespace fedmf::server {

struct CoordinatorOptions {
  std::string state_dir;  // checkpoint directory (empty: no persistence)
  std::string enrollment_token;
  // --credentials_file (credentials.h): binds participant ids to client credentials; unset: the
  // shared enrollment token admits any id.
  std::function<std::shared_ptr<const Credentials>()> credentials;
  // Live streams one TLS identity, and one token credential, may hold (Placement); 0: no limit.
  int64_t max_streams_per_client = 1;
  // Whether a client TLS identity is revoked now (--revoked_identities, peer_policy.h); unset:
  // none is. The stream router checks it on every message of a stream opened with an identity
  // and, at EndRevokedStreams, on every live stream (those that send nothing).
  std::function<bool(absl::string_view identity)> revoked;
  // Registrations waiting for their stream: how many, and how long (Registry).
  PendingLimits pending_registrations;
  int64_t num_users = 0;          // participant ids are 1..num_users
  double dropout_fraction = 0.3;  // SecAgg tolerates this fraction of the cohort dropping
  absl::Duration stage_timeout = absl::Seconds(20);
  // The combiner's wait, past a MaskedInput stage's deadline, for the partial sums its fronts
  // still owe (FrontFleet::SealStage, docs/scale-out.md section 5); unused in one process.
  absl::Duration seal_timeout = absl::Seconds(2);
  // Tolerated SecAgg misbehaviour is logged at most once per participant per this period, with
  // the count of its events (misbehaviour_log.h; --misbehaviour_log_period_s).
  absl::Duration misbehaviour_log_period = absl::Seconds(10);
  // Consecutive failed rounds before Run() gives up with ABORTED; 0: never (a service keeps
  // retrying, after kRetriesBeforeBackoff failures with a growing pause, and reports the streak
  // in Status). Attempts that failed because of an excluded culprit do not count.
  int max_failed_rounds = 0;
  // The first round (of this process) waits for this many live users, e.g. every client of a
  // demo; later rounds wait only for a cohort. 0: a cohort. A fixed-population run freezes its
  // population, every live user, once this many (0: a cohort, the plan's max_contributors) are
  // live; resumed, it waits for that population instead.
  int64_t wait_for_users = 0;
  // A long-running service's run (set by the Coordinator): its end tells the clients run_done,
  // not training_done, so they stay for the next run.
  bool service_run = false;
  std::string run_id = "fedmf";  // bound into every SecAgg session context and published models
  // Where the run's models are published (model_store.h): its final model, and with
  // publish_every > 0 the model after every publish_every-th round. Null: nothing published.
  std::shared_ptr<ModelStore> models;
  int64_t publish_every = 0;
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
  // Cap on the plan's largest client message (message_bounds.h), whole or reassembled from chunks.
  uint64_t max_upload_bytes = wire::kMaxTransferBytes;
  // Largest task (plan and SecAgg parameters) sent to clients, who must reassemble that much
  // (fedmf-client --max_download_bytes); a larger plan stops the run (--max_plan_bytes).
  uint64_t max_plan_bytes = wire::kMaxTransferBytes;
  // All streams' partial chunked uploads together, each stream's share of it an equal part
  // among the streams hosting the cohort (chunked_upload.h), and how long one may stay
  // incomplete before EndStalledUploads ends its stream.
  uint64_t max_upload_buffer_bytes = uint64_t{2} << 30;
  absl::Duration upload_timeout = absl::Seconds(120);
  // Check-in (docs/runtime.md "Check-in"; --check_in_period_s): while an aggregation runs,
  // DeviceStreams::DismissIdleStreams ends the streams the round does not need (of clients that
  // accept check-in, open for at least check_in_window), telling each to come back after a delay
  // drawn uniformly in [period / 2, 3 period / 2], so that an idle device holds no connection.
  // Zero period: off, every stream stays for the whole run.
  absl::Duration check_in_period = absl::ZeroDuration();
  absl::Duration check_in_window = absl::Seconds(10);
  // Simulation only (evaluation.h): scores the model after every round when set.
  std::function<absl::StatusOr<Evaluation>(const algorithms::Updater&)> evaluate;
  int64_t evaluate_every = 1;  // ... after rounds that are multiples of this, and the last
  // Federated evaluation (evaluation_rounds.h): an evaluation round after every eval_every-th
  // training round and after the last one; 0: never. Not charged to the privacy ledger, so
  // kEvalEveryAuto turns it on only for a run without DP noise (kDefaultEvalEvery).
  static constexpr int64_t kEvalEveryAuto = -1;
  static constexpr int64_t kDefaultEvalEvery = 10;
  int64_t eval_every = 0;
  // Users per evaluation round: round(eval_participation * num_users), at least 2; 0: the
  // training cohort size.
  double eval_participation = 0;
  // Top N and relevance threshold of the federated evaluation: the algorithm's (registry.h),
  // set by coordinator_setup.h CoordinatorOptionsForRun.
  metrics::RankingOptions eval_ranking;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_COORDINATOR_OPTIONS_H_
