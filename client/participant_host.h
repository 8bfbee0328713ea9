// The participants one client process hosts (users, or one silo party), and the routing of
// coordinator messages to them: a round task builds the phase's contributor once and starts every
// listed local participant (one whose own privacy budget refuses, whose own state cannot serve
// the phase, or whose contribution the algorithm refuses, declines with a SecAgg Abort, the
// refusals with their code: the coordinator sees a dropout) and hands their replies
// to the transport in batches of bounded size, each only after the local states it depends on went
// to the local-state sink (write-ahead), so a task's memory does not grow with the users hosted
// times the reply size; a federated evaluation is such a task too, of a contributor-only algorithm
// (registry.h) that leaves the host's model as it is; SecAgg messages go to the participant they
// name; a round result closes the round, and the last one (training_done) brings the final model.
// Transport-free: it maps a fedmf.v1.ServerMessage to the ClientMessages to send back, handed to a
// sink as they are ready or collected in a list, so any transport (the gRPC stream, fedmf-sim, an
// in-process test, a mobile binding) can drive it. A host is one trust domain: it holds every
// hosted user's secrets anyway, so all of them sign SecAgg messages with the host's one Ed25519
// key (registered as RegisterRequest.signing_public_key). It also speaks the wire's chunking
// (wire/chunking.h): chunked coordinator messages are reassembled, replies larger than the chunk
// size are returned as chunks.
#ifndef FEDMF_CLIENT_PARTICIPANT_HOST_H_
#define FEDMF_CLIENT_PARTICIPANT_HOST_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "client/participant.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/local_data.h"
#include "common/data/ratings_dataset.h"
#include "common/dp/dp_conversion.h"
#include "crypto/ed25519.h"
#include "crypto/secagg/signing_directory.h"
#include "fedmf/v1/federation.pb.h"
#include "fedmf/v1/local_state.pb.h"
#include "fedmf/v1/mobile.pb.h"
#include "wire/chunking.h"
#include "wire/envelope.h"

namespace fedmf::client {

// True for the FailedPrecondition a host returns for a model whose catalogue differs from its
// own (ParticipantHost::num_items): a configuration error no retry fixes, unlike a late message.
bool IsCatalogueMismatch(const absl::Status& status);

class ParticipantHost {
 public:
  // Hosts dense users `users` of `data` (participant id = user + 1), who train on `data` and
  // evaluate on `test` (the held-out part of the same split; null: no test ratings, the users
  // then contribute zero metric sums). InvalidArgument for a user outside the dataset or listed
  // twice, or a `test` of another shape than `data`. `insecure_noise_seed`: see
  // Participant::Create (tests and reproducible experiments only; it voids privacy).
  static absl::StatusOr<std::unique_ptr<ParticipantHost>> Create(
      std::shared_ptr<const data::RatingsDataset> data, const std::vector<int32_t>& users,
      std::shared_ptr<const data::RatingsDataset> test = nullptr,
      std::optional<uint64_t> insecure_noise_seed = std::nullopt);

  // Hosts one silo party, participant `party_id` (>= 1), holding `shard` (cross-silo FL).
  // InvalidArgument for a malformed shard (PartyShard::Validate) or id 0.
  static absl::StatusOr<std::unique_ptr<ParticipantHost>> CreateParty(
      std::shared_ptr<const algorithms::PartyShard> shard, uint32_t party_id,
      std::optional<uint64_t> insecure_noise_seed = std::nullopt);

  // Hosts participants `ids` (each >= 1, no repeats) with no ratings until SetRatings gives
  // them, rating items of a catalogue of `num_items` (>= 1), signing with `signing_key` (a
  // restored host keeps its registered key): for a binding that owns its users' ratings, e.g.
  // the mobile C API (client/include/fedmf/fedmf_client.h).
  static absl::StatusOr<std::unique_ptr<ParticipantHost>> CreateWithoutData(
      const std::vector<uint32_t>& ids, int32_t num_items, crypto::Ed25519PrivateKey signing_key,
      std::optional<uint64_t> insecure_noise_seed = std::nullopt);

  // Points participant `id` at new train and test rows, which must outlive the host or the next
  // call (Participant::set_ratings). NotFound if the host does not host `id`.
  absl::Status SetRatings(uint32_t id, data::RatingRow train, data::RatingRow test = {});

  // Every hosted participant keeps its own ledger under `budget` (Participant::SetBudget) and
  // declines a phase whose cost it cannot pay. InvalidArgument for a malformed budget.
  absl::Status SetParticipantBudget(const dp::PrivacyBudget& budget);

  // What every hosted participant keeps on its device (local_state.proto), and its restoration
  // after a restart (call SetParticipantBudget first when they keep budgets). NotFound for a
  // participant this host does not host; Participant::RestoreLocalState's errors. On error the
  // participants before the failing one are restored.
  v1::HostLocalState ExportLocalState() const;
  absl::Status RestoreLocalState(const v1::HostLocalState& state);
  // Called with ExportLocalState() after a batch of a task's contributions changed it and before
  // that batch's replies leave (set_reply_batch_bytes), so the caller persists it before they are
  // sent (a contribution sent but not persisted would be forgotten by a crash: the participant
  // would under-count its spending and lose its iterate). An error fails the task: the batch and
  // the rest are not sent (earlier batches, persisted, are out).
  using LocalStateSink = std::function<absl::Status(const v1::HostLocalState&)>;
  void set_local_state_sink(LocalStateSink sink) { local_state_sink_ = std::move(sink); }
  // A task's replies leave in batches: a batch is closed, persisted and sent once its replies
  // reach `bytes` serialized (at least one reply a batch; default kDefaultReplyBatchBytes), so
  // the replies held at once are about `bytes` plus one, and a task of small replies (most) is
  // one batch, one persist. (A SecAgg task's replies are small, but each session keeps its input
  // until the masked input leaves: that memory is the protocol's.)
  static constexpr size_t kDefaultReplyBatchBytes = size_t{64} << 20;
  void set_reply_batch_bytes(size_t bytes) { reply_batch_bytes_ = bytes; }

  // Restores what a host persisted (mobile state): the training rounds completed and whether
  // training is done. No round is in progress after it (SecAgg messages of that task's round are
  // refused, so the participants drop out of it) unless RestoreRound restores one.
  void RestoreProgress(int64_t rounds_completed, bool training_done);
  // Makes a persisted model (model(), with its published_model() if it had one) the host's
  // again: InvalidArgument if it builds no contributor, the catalogue mismatch error
  // (IsCatalogueMismatch) for another catalogue.
  absl::Status RestoreModel(const v1::RoundPlan& model, const v1::ModelVersion& published = {});
  // Makes a downloaded published model (client/model_download.h) the host's, as RestoreModel.
  absl::Status AdoptPublishedModel(const v1::RoundPlan& model, const v1::ModelVersion& version);

  // The last task's round and participant `id`'s SecAgg session in it (unset when none is
  // open), to persist them with RestoreProgress's fields (mobile state); nullopt before the
  // first task, NotFound if `id` is not hosted. The session state holds secrets
  // (secagg::WipeClientSessionState once serialized). A chunked coordinator message still being
  // reassembled is not part of it.
  absl::StatusOr<std::optional<v1::SavedRound>> SaveRound(uint32_t id) const;

  // Makes `saved` (from SaveRound) the current task and participant `id`'s session, so the host
  // answers that round's next SecAgg message as the saved one would have; until the host handles
  // a message, SaveRound(id) returns `saved` again (an old state's `evaluation` as its phase).
  // InvalidArgument for a negative round, a directory that does not list this host's key for
  // `id`, or a session state ClientSession::Restore refuses; nothing changes then.
  absl::Status RestoreRound(uint32_t id, const v1::SavedRound& saved);

  // Takes the host's replies one at a time, in order, as they are ready: the transport sends
  // each before the host builds the next batch. An error ends the handling and is returned by
  // Handle (e.g. the stream broke: the rest are not built).
  using ReplySink = std::function<absl::Status(v1::ClientMessage)>;

  // The replies to one coordinator message, handed to `send`, each reply split into chunks when it
  // exceeds the chunk size. A chunk yields no reply until its message is complete; the chunks of
  // a message whose start the host lost (restored between two chunks) yield its participants'
  // declines once (SkipOrphanChunk). Errors (a task this host cannot run, a message for a
  // participant it does not host or of another round or kind than the last task's, a malformed
  // chunk sequence, which is then discarded) are returned as a Status and change nothing else;
  // a participant whose session rejects a message answers with its Abort reply instead. An
  // error while a task's replies go out (a participant's contribution, the local-state sink,
  // `send`) leaves the batches already sent out and sends nothing more.
  absl::Status Handle(const v1::ServerMessage& message, const ReplySink& send);
  // The same replies collected in a list, nothing on error: for transports with few replies a
  // message (a mobile binding's users, tests); it holds every reply of a task at once.
  absl::StatusOr<std::vector<v1::ClientMessage>> Handle(const v1::ServerMessage& message);

  // Called with every whole RoundResult once the host handled it (a chunked one after its last
  // chunk), e.g. to log it (client/result_log.h).
  using ResultObserver = std::function<void(const v1::RoundResult&)>;
  void set_result_observer(ResultObserver observer) { result_observer_ = std::move(observer); }

  // The catalogue the hosted users rate (their dataset's items, or CreateWithoutData's); 0 for a
  // silo party, whose shard holds only some of the federation's items. A model of another size
  // (a task's, the final one, a restored one) is refused before it replaces the host's
  // (IsCatalogueMismatch): the participants could neither contribute to it nor use its
  // recommendations.
  int32_t num_items() const { return num_items_; }

  // Replies whose serialization exceeds `bytes` go out as chunks (default
  // wire::kDefaultChunkBytes; clamped to [wire::kMinChunkBytes, wire::kMaxChunkBytes]).
  void set_chunk_bytes(size_t bytes) { chunk_bytes_ = bytes; }
  // Coordinator messages whose serialization exceeds `bytes` are refused at their first chunk
  // (default wire::kMaxTransferBytes; the caller validates it, wire::ValidateTransferBytes).
  // Set before the first message: a chunk sequence in progress is dropped.
  void set_max_download_bytes(uint64_t bytes) {
    inbound_ = wire::Reassembler<v1::ServerMessage>(bytes);
  }

  std::vector<uint32_t> participant_ids() const;
  // The 32-byte Ed25519 public key the host's users sign with (fresh per host, from the CSPRNG).
  std::string signing_public_key() const;
  const Participant* Find(uint32_t id) const;
  Participant* FindMutable(uint32_t id);
  // The model of the last task of an algorithm with an updater, i.e. a trained model, not an
  // evaluation of one, or the final model of the training_done result (nullptr before the
  // first), for local recommendations.
  const algorithms::Contributor* contributor() const { return contributor_.get(); }
  // The plan `contributor()` was built from (empty before the first such task), e.g. to persist
  // it.
  const v1::RoundPlan& model() const { return model_; }
  // Changes whenever model() does (starts at 0, no model): a persisted copy of model() is still
  // current while this is unchanged.
  uint64_t model_version() const { return model_version_; }
  // The coordinator's published version of model() (version 0: not a published model, e.g. a
  // task's): from the training_done result's final_model_version, or a download.
  const v1::ModelVersion& published_model() const { return published_model_; }
  // The host's signing key, e.g. to persist it (the seed is a secret: store it as one).
  const crypto::Ed25519PrivateKey& signing_key() const { return signing_key_; }
  int64_t rounds_completed() const { return rounds_completed_; }  // training rounds applied
  bool training_done() const { return training_done_; }
  // The delay of the coordinator's last CheckInLater, taken once (nullopt: none came). Check-in:
  // the coordinator ends the stream right after one; the transport registers again after this
  // delay, not before (client/registration.h MakeRegisterRequest says it accepts check-in).
  std::optional<absl::Duration> TakeCheckIn() { return std::exchange(check_in_, std::nullopt); }
  // fedmf-sim only: honour RoundTask.simulation_plain_sum (upload secure-sum contributions in
  // the clear) and plans whose users upload without noise for the simulator's updater to draw
  // (Contributor::uploads_without_noise, the plan's simulation_summed_noise: the coordinator
  // would learn the noise-free sum, which a plain sum shows it anyway). Off by default: such a
  // task is then refused (PermissionDenied) before any participant contributes.
  void AllowSimulationPlainSum() { allow_simulation_plain_sum_ = true; }
  // fedmf-sim only (--summed_uploads): in a clear phase whose contributor has a ContributionSum
  // (algorithm.h), the participants' contributions are added into one, which the first
  // contributor uploads last while the others upload zero. Off by default.
  void AllowSimulationSummedUploads() { allow_simulation_summed_uploads_ = true; }

 private:
  ParticipantHost(std::shared_ptr<const data::RatingsDataset> data,
                  std::shared_ptr<const data::RatingsDataset> test,
                  crypto::Ed25519PrivateKey signing_key, int32_t num_items)
      : data_(std::move(data)),
        test_(std::move(test)),
        signing_key_(std::move(signing_key)),
        num_items_(num_items) {}

  // OK when `model` scores num_items_ items (or num_items_ is 0), else the mismatch error.
  absl::Status CheckCatalogue(const algorithms::Contributor& model, absl::string_view what) const;

  // The directory of the signing keys that came with participant `id`'s ShareKeysRequest in
  // `round`; InvalidArgument if they are malformed or do not list this host's own key for `id`.
  absl::StatusOr<std::shared_ptr<const secagg::SigningKeyDirectory>> NeighborKeys(
      uint32_t id, int64_t round,
      const google::protobuf::RepeatedPtrField<v1::SigningKeys>& keys) const;

  absl::Status Dispatch(const v1::ServerMessage& message, const ReplySink& send);
  // Hands `reply` to `send`, in chunks when it exceeds the chunk size; ResourceExhausted, sending
  // nothing, for a reply protobuf cannot serialize (over wire::kMaxParseBytes).
  absl::Status Send(v1::ClientMessage reply, const ReplySink& send) const;
  // A chunk of a sequence whose start this host never saw (it was restored between two chunks):
  // the first such chunk of a sequence is answered with its addressees' declines (SecAgg Aborts
  // for the chunk's aggregation, so the coordinator drops them at once instead of after a stage
  // timeout; their sessions end), the rest of the sequence with nothing.
  std::vector<v1::ClientMessage> SkipOrphanChunk(const v1::Chunk& chunk);
  absl::Status HandleTask(const v1::RoundTask& task, const ReplySink& send);
  // Persists the local states (the sink), then sends `batch` and empties it; on a sink error the
  // batch's participants (`ids`) end their round unsent.
  absl::Status SendBatch(int64_t round, std::vector<uint32_t>& ids,
                         std::vector<v1::ClientMessage>& batch, const ReplySink& send);
  // What every task does before its participants start: InvalidArgument naming the first of
  // `ids` this host does not host; else builds the phase's contributor from `plan` (also the
  // host's model unless the algorithm is contributor-only) and makes `tag` the current task's
  // aggregation. PermissionDenied, changing nothing, for a plan whose users would upload without
  // noise unless the host simulates (AllowSimulationPlainSum).
  absl::Status BeginTask(const wire::AggregationTag& tag,
                         const google::protobuf::RepeatedField<uint32_t>& ids,
                         const v1::RoundPlan& plan);
  absl::StatusOr<std::vector<v1::ClientMessage>> HandleSecAgg(const v1::ServerToParticipant& m);
  // Ends the round; the training_done or run_done result's final model becomes the host's
  // (InvalidArgument, naming it, for one that builds no contributor: the run is over all the
  // same). A run_done result also ends the run for every participant (Participant::EndRun), which
  // the local-state sink persists first (its error is returned).
  absl::Status HandleResult(const v1::RoundResult& result);
  // Makes `plan`'s contributor the host's model (`what` names it in errors): InvalidArgument for
  // a plan of a contributor-only algorithm or one that builds no contributor (no change then).
  absl::Status AdoptModel(const v1::RoundPlan& plan, absl::string_view what,
                          const v1::ModelVersion& published = {});

  std::shared_ptr<const data::RatingsDataset> data_;
  std::shared_ptr<const data::RatingsDataset> test_;  // may be null
  crypto::Ed25519PrivateKey signing_key_;
  int32_t num_items_ = 0;  // 0: not checked (a party)
  std::map<uint32_t, Participant> participants_;
  std::shared_ptr<const algorithms::Contributor> phase_contributor_;  // of the last task
  std::shared_ptr<const algorithms::Contributor> contributor_;        // the model
  v1::RoundPlan model_;                                               // contributor_'s plan
  uint64_t model_version_ = 0;
  v1::ModelVersion published_model_;  // of model_
  size_t chunk_bytes_ = wire::kDefaultChunkBytes;
  size_t reply_batch_bytes_ = kDefaultReplyBatchBytes;
  wire::Reassembler<v1::ServerMessage> inbound_;
  std::optional<v1::Chunk> orphan_;  // header of the last chunk skipped by SkipOrphanChunk
  // The aggregation of the last task (round -1 before the first).
  wire::AggregationTag tag_{.round = -1, .phase = 0};
  // Per participant of the last task, the signing keys its ShareKeysRequest came with (signed
  // rounds only), kept for SaveRound.
  std::map<uint32_t, google::protobuf::RepeatedPtrField<v1::SigningKeys>> neighbor_keys_;
  int64_t rounds_completed_ = 0;
  bool training_done_ = false;
  std::optional<absl::Duration> check_in_;  // TakeCheckIn
  bool allow_simulation_plain_sum_ = false;
  bool allow_simulation_summed_uploads_ = false;
  LocalStateSink local_state_sink_;
  ResultObserver result_observer_;
};

}  // namespace fedmf::client

#endif  // FEDMF_CLIENT_PARTICIPANT_HOST_H_
