// The server side of SecAgg (Bonawitz et al. 2017; SecAgg+ graphs of Bell et al. 2020) as a
// sans-IO state machine. The caller delivers client messages (HandleMessage) or, in the
// MaskedInput stage, fronts' partial sums of them (AcceptMaskedInputSum), reports clients it lost
// (MarkDropped) and decides when a stage's deadline is over (CloseStage, or earlier when
// ReadyToClose()); CloseStage returns the next round of messages for every remaining client. A
// malformed or unexpected client message drops that client with a reason (HandleMessage returns
// the Abort to send it); too few clients left for the threshold at any stage, fewer masked inputs
// than the minimum-inputs rule allows, or the caller's Abort end the whole session cleanly (Abort
// messages to all remaining clients, status() says why). After the Unmasking stage closes,
// result() is the sum mod 2^b of the inputs of every client whose masked input arrived.
//
// One misbehaving client costs at most its own participation, and never gets an honest one named
// (docs/protocol.md, "Misbehaving clients"): a low-order public key is refused at AdvertiseKeys;
// share ciphertexts its neighbors cannot use are reported and tolerated while enough usable
// shares remain; every revealed share is checked against its dealer's commitment (ShareKeys), so
// a false reveal is discarded and convicts its revealer, never the dealer; every rebuilt secret
// is checked (b against the commitment in the advertisement, s_SK against the advertised key)
// and, when the first t shares fail the check, decoded from all of them with error correction.
// Since every share but the owner's own is committed by the owner, shares off its polynomial are
// the owner's doing. A client whose secret cannot be rebuilt for what it or its holders reported
// aborts the session; misbehaviour() names the culprits.
//
// Cost: O(d) memory for the sum (masked inputs are added on arrival); the share commitments (64
// bytes per dealt share) and revealed shares (40 bytes per holder and secret); one SHA-256 per
// revealed share; unmasking is one ShamirReconstructor per distinct holder set (one for the whole
// complete graph), one hash or X25519 check per rebuilt secret, and one mask expansion per
// removed mask into a single accumulator.
#ifndef FEDMF_CRYPTO_SECAGG_SERVER_SESSION_H_
#define FEDMF_CRYPTO_SECAGG_SERVER_SESSION_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "crypto/secagg/config.h"
#include "crypto/secagg/derivation.h"
#include "crypto/secagg/graph.h"
#include "crypto/secagg/mask_accumulator.h"
#include "crypto/secagg/partial_sum.h"
#include "crypto/secagg/signing_directory.h"
#include "crypto/secagg/stages.h"
#include "crypto/shamir.h"
#include "fedmf/v1/secagg.pb.h"

namespace fedmf::secagg {

struct ServerMessage {
  uint32_t client_id = 0;
  fedmf::v1::secagg::ServerToClient message;
};

// A ServerToClient Abort with `reason` (for a client whose message HandleMessage rejected).
fedmf::v1::secagg::ServerToClient AbortMessage(absl::string_view reason);

class ServerSession {
 public:
  // `cohort` lists the num_clients invited client ids (distinct). `directory` is required iff
  // config.signatures.
  static absl::StatusOr<std::unique_ptr<ServerSession>> Create(
      const SessionConfig& config, std::vector<uint32_t> cohort,
      std::shared_ptr<const SigningKeyDirectory> directory);

  // Consumes a message from `client_id`. Returns the messages to send in answer: none when the
  // message was accepted (a client Abort is accepted and drops the client); the Abort for that
  // client when its message was malformed, duplicate or out of stage, which drops it
  // (DropReason says why). Errors change nothing: kNotFound for an id outside the cohort,
  // kFailedPrecondition when the client was already dropped or the session has ended.
  absl::StatusOr<std::vector<ServerMessage>> HandleMessage(
      uint32_t client_id, const fedmf::v1::secagg::ClientToServer& message);

  // What became of a partial sum (AcceptMaskedInputSum).
  struct PartialSumAnswer {
    std::string refused;                // why it was refused whole; empty if it was added
    std::vector<ServerMessage> aborts;  // for the members a refusal dropped
  };
  // A front's sum of its members' masked inputs (partial_sum.h) in place of their MaskedInput
  // messages. Added if the stage is MaskedInput, the members are listed in ascending order, each
  // is in the cohort, not dropped and awaiting its masked input, with an unusable_shares_from
  // list the session would accept from it, and the packed sum fits the config: then the sum is
  // added once and each member counts as having sent its masked input (it is in U3 even if it
  // drops later). Otherwise refused whole and nothing is added: the members that were awaiting
  // their masked input are dropped with the reason (they end in U2 \ U3: their pairwise masks
  // are removed and their self masks stay) and answered with an Abort saying kPartialSumRefused;
  // other clients and any other stage are left as they were.
  PartialSumAnswer AcceptMaskedInputSum(const PartialSum& partial);
  // The reason in those Aborts: the refusal's own may name the partial's other members.
  static constexpr char kPartialSumRefused[] =
      "the partial sum holding this client's masked input was refused";

  // The caller lost `client_id` (disconnect, missed deadline). kNotFound for an unknown id;
  // idempotent otherwise.
  absl::Status MarkDropped(uint32_t client_id);

  // True when every client the current stage waits for has answered or dropped.
  bool ReadyToClose() const;

  // Ends the current stage: the requests of the next stage, or Abort messages for every remaining
  // client if the session cannot go on (then stage() is kAborted and status() the reason), or
  // nothing once the Unmasking stage closed (then result() is ready). kFailedPrecondition if the
  // session has already ended.
  absl::StatusOr<std::vector<ServerMessage>> CloseStage();

  // The minimum-inputs rule: when the MaskedInput stage closes with fewer than `n` masked inputs,
  // the session aborts before any unmasking share is asked for, so no sum of fewer than `n`
  // inputs is ever revealed (the n_min a privacy calibration assumed). A Harary session needs
  // only t live holders per neighborhood, so its threshold alone does not bound the sum's size.
  // Default 0 (the threshold's bound only); set before MaskedInput closes.
  void set_min_inputs(int64_t n) { min_inputs_ = n; }

  // Ends the session now (the caller's decision, e.g. shutdown): kAborted with `reason`, and the
  // Abort messages for every remaining client. Nothing if the session has already ended.
  std::vector<ServerMessage> Abort(absl::string_view reason);

  ServerStage stage() const { return stage_; }
  const SessionConfig& config() const { return config_; }
  // OK unless aborted; then kAborted with the reason.
  const absl::Status& status() const { return status_; }
  // The sum, after the session completed.
  absl::StatusOr<std::vector<uint64_t>> result() const;
  // Clients whose masked input arrived (their inputs are in the sum), ascending.
  std::vector<uint32_t> IncludedClients() const;
  const SessionId& session_id() const { return session_id_; }
  // The neighbor graph (after AdvertiseKeys closed), else nullptr.
  const NeighborGraph* graph() const { return graph_ ? &*graph_ : nullptr; }
  // A client's misbehaviour seen by the session: tolerated (the session went on without what it
  // sent wrong, and the evidence does not show who is at fault), or the client is a culprit (its
  // own messages prove it broke the protocol, or its secret could not be rebuilt and the session
  // aborted): exclude it.
  struct Misbehaviour {
    uint32_t client_id = 0;
    std::string evidence;
    bool culprit = false;
  };
  const std::vector<Misbehaviour>& misbehaviour() const { return misbehaviour_; }
  // Why `client_id` was dropped (empty if it was not).
  std::string DropReason(uint32_t client_id) const;
  // Threads that remove the masks of dropped clients at Unmasking (default: the hardware's); the
  // sum does not depend on it.
  void set_unmasking_threads(int threads) { unmasking_threads_ = std::max(1, threads); }

 private:
  struct Client {
    uint32_t id = 0;
    bool awaiting = false;  // the current stage waits for this client's message
    bool dropped = false;
    std::string drop_reason;
    bool advertised = false, shared = false, masked = false, signed_survivors = false,
         unmasked = false;
    PublicKeyBytes c_public{}, s_public{};
    Commitment self_mask_commitment{};
    std::string advertisement_signature;  // forwarded to the neighbors, who verify it
    std::vector<uint32_t> unusable_from;  // round 2: neighbors whose shares it reported unusable
    std::string ciphertexts;  // round 1: fixed-size ciphertexts to N(u)\{u}, ascending receiver
    // Rounds 1-4: its commitments to the shares it dealt to N(u)\{u}, ascending receiver, each
    // the key share's then the self-mask share's (2 x kCommitmentSize bytes).
    std::string share_commitments;
    std::string survivor_signature;  // round 3
  };

  ServerSession(const SessionConfig& config, const std::array<uint8_t, 32>& digest,
                std::vector<Client> clients, std::shared_ptr<const SigningKeyDirectory> directory,
                MaskAccumulator sum);

  // Per-stage message handlers and stage closers (server_*.cc). Handlers return the rejection
  // reason; closers return the next messages, or an error whose message is the abort reason.
  absl::Status AcceptAdvertiseKeys(Client& c, const fedmf::v1::secagg::AdvertiseKeys& m);
  absl::StatusOr<std::vector<ServerMessage>> CloseAdvertiseKeys();
  absl::Status AcceptShareKeys(Client& c, const fedmf::v1::secagg::ShareKeysResponse& m);
  absl::StatusOr<std::vector<ServerMessage>> CloseShareKeys();
  absl::Status AcceptMaskedInput(Client& c, const fedmf::v1::secagg::MaskedInput& m);
  // True if the MaskedInputRequest of client `to` relayed `owner`'s shares: `owner` is in
  // N(to) \ {to} and in U2 (stage MaskedInput or later; `to` in the graph).
  bool SharesRelayed(uint32_t owner, uint32_t to) const;
  absl::StatusOr<std::vector<ServerMessage>> CloseMaskedInput();
  absl::Status AcceptConsistencyCheck(Client& c,
                                      const fedmf::v1::secagg::ConsistencyCheckResponse& m);
  absl::StatusOr<std::vector<ServerMessage>> CloseConsistencyCheck();
  absl::Status AcceptUnmasking(Client& c, const fedmf::v1::secagg::UnmaskingResponse& m);
  absl::Status CloseUnmasking();
  // A client of U2 \ U3 with its rebuilt masking key.
  struct DroppedKey {
    uint32_t id;
    crypto::X25519PrivateKey key;
  };
  // Removes the pairwise masks between `dropped` and their surviving neighbours, the bulk of
  // unmasking's work when clients drop (an X25519 agreement and a mask expansion per pair), on
  // up to unmasking_threads_ threads.
  absl::Status RemovePairwiseMasks(const std::vector<DroppedKey>& dropped);
  // Fewer pairs than this per thread are not worth a thread's start-up.
  static constexpr size_t kPairsPerWorker = 64;

  Client* Find(uint32_t id);
  const Client* Find(uint32_t id) const;
  void Drop(Client& c, std::string reason);
  // Checks that every secret still needed can be rebuilt from t live holders: for each client u
  // that shared keys, |{v in N[u] : v.*holds, not dropped, v did not report u's shares
  // unusable}| >= t (u itself counts only if it holds, i.e. if its input arrived). The error
  // names the stage closing and the clients that fail; a client that fails only because of the
  // reports is the culprit (recorded in misbehaviour_).
  absl::Status CheckReconstructable(bool Client::*holds);
  // True if `reporter` reported `owner`'s shares unusable.
  static bool Reported(const Client& reporter, uint32_t owner);
  // True if `share` (with its salt) is what `owner` committed to dealing `holder` (another
  // client of N[owner]) as its share of `secret`.
  bool MatchesDealtShare(uint32_t owner, uint32_t holder, SharedSecret secret,
                         const fedmf::v1::secagg::RevealedShare& share) const;
  // `owner`'s secret from its revealed shares, checked by `valid`: the first t shares, else all of
  // them with error correction (shares off the polynomial make the owner a culprit: it committed
  // to them). kDataLoss naming `what` if no valid secret comes out.
  absl::StatusOr<crypto::SecretBytes> RebuildSecret(
      uint32_t owner, const char* what,
      const std::function<bool(const crypto::SecretBytes&)>& valid,
      std::optional<crypto::ShamirReconstructor>& reconstructor);
  // Unmasking requests for the live clients with `flag` set (masked, or signed_survivors).
  std::vector<ServerMessage> UnmaskingRequests(bool Client::*flag);
  std::vector<ServerMessage> AbortAll(const absl::Status& reason);
  // N[id] in ascending id (graph must exist and contain id).
  absl::Span<const uint32_t> Neighborhood(uint32_t id) const;

  SessionConfig config_;
  std::array<uint8_t, 32> config_digest_;
  std::vector<Client> clients_;  // ascending id
  std::shared_ptr<const SigningKeyDirectory> directory_;
  ServerStage stage_ = ServerStage::kAdvertiseKeys;
  absl::Status status_;
  SessionId session_id_{};
  std::optional<NeighborGraph> graph_;
  // Harary graphs: N[u] of every node, by rank in graph_->ids() (complete graphs: empty).
  std::vector<std::vector<uint32_t>> neighborhoods_;
  absl::flat_hash_set<PublicKeyBytes> seen_keys_;  // every advertised public key
  MaskAccumulator sum_;
  std::vector<uint32_t> survivors_;  // U3, ascending (round 3 onwards)
  // Round 4: per owner, the revealed shares of its self-mask secret (owners that sent a masked
  // input) or key (owners that did not), in arrival order, Shamir index = position in
  // N[owner] + 1.
  absl::flat_hash_map<uint32_t, std::vector<crypto::ShamirShare>> revealed_;
  std::vector<Misbehaviour> misbehaviour_;
  std::vector<uint64_t> result_;
  int64_t min_inputs_ = 0;
  int unmasking_threads_ = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
};

}  // namespace fedmf::secagg

#endif  // FEDMF_CRYPTO_SECAGG_SERVER_SESSION_H_
