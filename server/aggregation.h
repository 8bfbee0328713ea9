// One aggregation of a cohort's vectors in progress: a secure sum (a SecAgg ServerSession that
// never unmasks fewer than n_min inputs) or a clear one (uploads checked and added mod 2^bits),
// with the tag its messages carry. Transport-free: it takes the participants' messages (and
// fronts' partial sums of masked inputs) and returns the envelopes to route to them by
// participant id; the stream router owns the transport and the lock, the phase runner the stage
// deadlines. Not thread-safe.
#ifndef FEDMF_SERVER_AGGREGATION_H_
#define FEDMF_SERVER_AGGREGATION_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "crypto/secagg/server_session.h"
#include "crypto/secagg/signing_directory.h"
#include "fedmf/v1/federation.pb.h"
#include "server/clear_aggregation.h"
#include "wire/envelope.h"

namespace fedmf::server {

class Aggregation {
 public:
  struct Envelope {
    uint32_t participant_id = 0;
    v1::ServerMessage message;
  };
  using Envelopes = std::vector<Envelope>;

  // Through SecAgg with `config` over `cohort` (ascending); the sum is refused (the session
  // aborts before unmasking) when fewer than `min_inputs` masked inputs arrive. `directory` is
  // required iff config.signatures. ServerSession::Create's errors.
  static absl::StatusOr<std::unique_ptr<Aggregation>> Secure(
      wire::AggregationTag tag, const secagg::SessionConfig& config, std::vector<uint32_t> cohort,
      std::shared_ptr<const secagg::SigningKeyDirectory> directory, int64_t min_inputs);
  // By clear uploads fitting `plan` and passing `check` (if any); fewer than `min_inputs` uploads
  // give no sum.
  static std::unique_ptr<Aggregation> Clear(wire::AggregationTag tag, const v1::RoundPlan& plan,
                                            std::vector<uint32_t> cohort, int64_t min_inputs,
                                            ClearAggregation::UploadCheck check = {});

  const wire::AggregationTag& tag() const { return tag_; }
  const std::vector<uint32_t>& cohort() const { return cohort_; }  // ascending
  bool InCohort(uint32_t participant_id) const;
  // The SecAgg session's parameters; null for a clear aggregation.
  const secagg::SessionConfig* secagg_config() const;

  // What became of a participant's message (or a partial sum).
  struct Delivery {
    Envelopes replies;     // e.g. the Abort of a participant whose message was rejected
    std::string rejected;  // why the participant was dropped or the partial sum refused, or ""
  };
  // A participant's SecAgg message. A message of another aggregation (late) or for a
  // participant that is outside the cohort or already dropped changes nothing. In a clear
  // aggregation only an Abort means something: the participant declines (a dropout).
  Delivery DeliverSecAgg(uint32_t participant_id, const v1::ParticipantToServer& message);
  // A front's partial sum of its members' masked inputs for the aggregation tagged `tag`
  // (ServerSession::AcceptMaskedInputSum): `rejected` says why it was refused whole (empty if it
  // was added) and `replies` are the Aborts of the members the refusal dropped. A partial sum of
  // another aggregation (late) changes nothing; one for a clear aggregation is refused.
  Delivery DeliverPartialSum(const wire::AggregationTag& tag, const secagg::PartialSum& partial);
  // Participant upload.participant_id()'s clear upload (ClearAggregation::Accept's checks); the
  // rejection reason, empty if it was added or belongs to another aggregation.
  std::string DeliverClear(const v1::ClearUpload& upload);
  // The participant is gone (disconnected, unreachable). True if this dropped it now.
  bool Drop(uint32_t participant_id);

  // The current stage waits for nobody.
  bool ReadyToClose() const;
  // Completed or aborted: sum() is final.
  bool Finished() const;
  // "AdvertiseKeys", ..., "Unmasking" or "ClearUpload"; the key of its duration in the
  // event=round line ("advertise_s", ..., "clear_upload_s").
  std::string StageName() const;
  const char* StageKey() const;
  // Ends the current stage (its deadline passed, or ReadyToClose): the envelopes opening the next
  // one (Aborts when the aggregation cannot go on). Errors: local failures only.
  absl::StatusOr<Envelopes> CloseStage();
  // Ends the aggregation now, e.g. on shutdown: the Aborts for the remaining participants.
  Envelopes Abort(absl::string_view reason);

  int threshold() const { return threshold_; }
  // After Finished(): the sum mod 2^bits, or why there is none.
  absl::StatusOr<std::vector<uint64_t>> sum() const;
  // Participants whose vector is in the sum (secure: whose masked input arrived), ascending.
  std::vector<uint32_t> contributors() const;
  // After Finished(): the cohort members that failed it, ascending: secure, those the session
  // dropped (disconnected, declined, silent at a deadline, rejected), not those of a session that
  // aborted on its own; clear, those without an upload in the sum.
  std::vector<uint32_t> Lost() const;
  // How many are lost so far: Lost()'s size, but 0 for a clear aggregation still open (its
  // participants upload at any time until it closes).
  int64_t DroppedSoFar() const;
  // The error every cohort member refused the plan with (an Abort with Abort.refusal_code 3 or
  // 9, its reason the message) when all of them refused with one code and message; nullopt when
  // any member did anything else (contributed, declined otherwise, had no stream, said nothing),
  // so one client can refuse only for the members it hosts.
  std::optional<absl::Status> UnanimousRefusal() const;
  // What the SecAgg session saw participants do wrong (tolerated, or why it aborted: then the
  // participant is a culprit); always empty for a clear aggregation.
  const std::vector<secagg::ServerSession::Misbehaviour>& misbehaviour() const;

 private:
  Aggregation(wire::AggregationTag tag, std::vector<uint32_t> cohort, int threshold,
              int64_t min_inputs)
      : tag_(tag), cohort_(std::move(cohort)), threshold_(threshold), min_inputs_(min_inputs) {}

  // Wraps SecAgg messages in envelopes tagged with this aggregation (a ShareKeysRequest with its
  // neighbors' signing keys).
  Envelopes Wrap(std::vector<secagg::ServerMessage> messages) const;
  // Records `abort` as `participant_id`'s refusal if it is one (UnanimousRefusal).
  void RecordRefusal(uint32_t participant_id, const v1::secagg::Abort& abort);

  wire::AggregationTag tag_;
  std::vector<uint32_t> cohort_;
  int threshold_;
  int64_t min_inputs_;
  std::unique_ptr<secagg::ServerSession> session_;                // secure
  std::shared_ptr<const secagg::SigningKeyDirectory> directory_;  // secure and signed
  std::unique_ptr<ClearAggregation> clear_;                       // or clear
  bool clear_closed_ = false;
  std::map<uint32_t, absl::Status> refusals_;  // by participant: its refusal of the plan
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_AGGREGATION_H_
