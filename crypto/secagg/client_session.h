// The client side of SecAgg (Bonawitz et al. 2017; SecAgg+ graphs of Bell et al. 2020) as a
// sans-IO state machine: it consumes ServerToClient messages and produces ClientToServer messages,
// with no sockets, threads or clocks. One handler per stage (client_*.cc). Any server message
// that is malformed, inconsistent with what the client saw before, or not expected in the
// current stage makes the client abort: it wipes its secrets and returns an Abort message with
// the reason. A neighbor's share ciphertext that does not decrypt, or whose shares do not match the
// commitments the server forwarded with it, is not the server's message being malformed but that
// neighbor's doing: it is reported with the masked input (the neighbor's shares are unusable
// here) and the session goes on. An honest client never reveals both
// the self-mask share and the key share of one client, whatever the server asks (a ledger of
// revealed shares is kept across stages).
#ifndef FEDMF_CRYPTO_SECAGG_CLIENT_SESSION_H_
#define FEDMF_CRYPTO_SECAGG_CLIENT_SESSION_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "crypto/aead.h"
#include "crypto/ed25519.h"
#include "crypto/secagg/config.h"
#include "crypto/secagg/derivation.h"
#include "crypto/secagg/signing_directory.h"
#include "crypto/secret_bytes.h"
#include "crypto/x25519.h"
#include "fedmf/v1/secagg.pb.h"

namespace fedmf::secagg {

enum class ClientStage {
  kNotStarted,         // Start() not called yet
  kAwaitingShareKeys,  // advertised keys, waiting for the neighbors' keys
  kAwaitingMaskedInputRequest,
  kAwaitingConsistencyCheck,  // sent the masked input (consistency check enabled)
  kAwaitingUnmasking,
  kCompleted,  // sent the unmasking response
  kAborted,
};

const char* ClientStageName(ClientStage stage);

struct ClientIdentity {
  uint32_t id = 0;
  // Required iff config.signatures; its public half must be in everyone's directory.
  std::optional<crypto::Ed25519PrivateKey> signing_key;
};

class ClientSession {
 public:
  // Validates the config; the signing key is required iff config.signatures. Generates the two
  // X25519 key pairs. `directory` (the neighbors' verification keys) may be null here and given
  // later with SetDirectory, as the runtime does: the neighbors are known only once the
  // ShareKeysRequest names them. A signed session without one aborts at ShareKeys.
  static absl::StatusOr<std::unique_ptr<ClientSession>> Create(
      const SessionConfig& config, ClientIdentity identity,
      std::shared_ptr<const SigningKeyDirectory> directory);

  // The neighbors' verification keys, delivered with the ShareKeysRequest (config.signatures):
  // replaces the directory given to Create or Restore. kFailedPrecondition once the
  // ShareKeysRequest was handled (the keys it was verified under must stay the ones used later).
  absl::Status SetDirectory(std::shared_ptr<const SigningKeyDirectory> directory);

  // The AdvertiseKeys message. kFailedPrecondition if called twice.
  absl::StatusOr<fedmf::v1::secagg::ClientToServer> Start();

  // The input x in Z_{2^b}^d. Allowed until the masked input is computed; kInvalidArgument for a
  // wrong length or a value >= 2^b, kFailedPrecondition after the masked input was sent.
  absl::Status SetInput(absl::Span<const uint64_t> input);

  // Consumes one server message and returns the reply to send, if any. A server Abort ends the
  // session with no reply; an invalid message ends it with an Abort reply. Messages after the
  // session ended are answered with nothing. kFailedPrecondition (and no state change) only for a
  // caller error: a MaskedInputRequest before SetInput, or any message before Start().
  absl::StatusOr<std::optional<fedmf::v1::secagg::ClientToServer>> Handle(
      const fedmf::v1::secagg::ServerToClient& message);

  // The session's complete state, to persist it (client_session_state.cc; the message's
  // contract is in proto/fedmf/v1/secagg.proto). It holds the session's secrets: wipe it with
  // WipeClientSessionState after serializing. Completed and aborted sessions export their stage,
  // ids, ledger and abort reason only (their secrets are gone). Persist the state of a reply
  // BEFORE sending it, so a restored session never forgets a share it revealed.
  absl::StatusOr<fedmf::v1::secagg::ClientSessionState> Export() const;

  // A session continuing from an exported state, answering the next server message exactly as
  // the exported one would have. `identity` and `directory` are the caller's, as for Create (the
  // id must be the state's); with signatures, a state past ShareKeys needs the directory it was
  // verified under. Every field is validated: kInvalidArgument naming the first field
  // that is malformed, out of range or inconsistent with the stage (never a crash); the AEAD
  // channels are re-derived from the keys.
  static absl::StatusOr<std::unique_ptr<ClientSession>> Restore(
      const fedmf::v1::secagg::ClientSessionState& state, ClientIdentity identity,
      std::shared_ptr<const SigningKeyDirectory> directory);

  ClientStage stage() const { return stage_; }
  uint32_t id() const { return id_; }
  // Why the session aborted (empty otherwise).
  const std::string& abort_reason() const { return abort_reason_; }

 private:
  // A member of the closed neighborhood, with its advertised keys.
  struct Neighbor {
    uint32_t id = 0;
    std::optional<crypto::X25519PublicKey> c_public;
    std::optional<crypto::X25519PublicKey> s_public;
    std::optional<crypto::Aes256Gcm> channel;  // share AEAD (not for itself)
    bool shared = false;                       // its shares reached us (round 2)
    bool unusable = false;                     // shared, but did not decrypt or decode
    crypto::SecretBytes key_share;             // its share of s_SK held by us (usable shares)
    crypto::SecretBytes self_mask_share;       // its share of b held by us (usable shares)
    crypto::SecretBytes key_share_salt;        // the salts of its commitments to those shares
    crypto::SecretBytes self_mask_share_salt;  // (usable shares of others)
  };
  enum class Revealed { kSelfMaskShare, kKeyShare };

  ClientSession(const SessionConfig& config, const std::array<uint8_t, 32>& digest,
                ClientIdentity identity, std::shared_ptr<const SigningKeyDirectory> directory,
                std::optional<crypto::X25519PrivateKey> c_key,
                std::optional<crypto::X25519PrivateKey> s_key);

  // A state of an older format (1 or 2): restored as it is outside a session, as ABORTED (ledger
  // kept) inside one.
  static absl::StatusOr<std::unique_ptr<ClientSession>> RestoreOlderFormat(
      const fedmf::v1::secagg::ClientSessionState& state, ClientIdentity identity,
      std::shared_ptr<const SigningKeyDirectory> directory);
  // Restore's per-part validation and rebuilding (client_session_state.cc).
  absl::Status RestoreInput(const fedmf::v1::secagg::ClientSessionState& state);
  absl::Status RestoreNeighbors(const fedmf::v1::secagg::ClientSessionState& state);
  absl::Status RestoreLedger(const fedmf::v1::secagg::ClientSessionState& state);

  // Stage handlers (client_share_keys.cc, client_masked_input.cc, client_unmasking.cc). Each
  // returns the reply, or an error Status whose message is the abort reason.
  absl::StatusOr<fedmf::v1::secagg::ClientToServer> HandleShareKeys(
      const fedmf::v1::secagg::ShareKeysRequest& request);
  absl::StatusOr<fedmf::v1::secagg::ClientToServer> HandleMaskedInput(
      const fedmf::v1::secagg::MaskedInputRequest& request);
  absl::StatusOr<fedmf::v1::secagg::ClientToServer> HandleConsistencyCheck(
      const fedmf::v1::secagg::ConsistencyCheckRequest& request);
  absl::StatusOr<fedmf::v1::secagg::ClientToServer> HandleUnmasking(
      const fedmf::v1::secagg::UnmaskingRequest& request);

  // True if the shares decrypted from `entry` match the commitments it carries, the ones the
  // server keeps to check this client's reveals.
  bool MatchesCommitments(const SharePayload& shares,
                          const fedmf::v1::secagg::EncryptedShares& entry) const;
  // Verifies an advertisement signature against the directory.
  absl::Status VerifyAdvertisement(const fedmf::v1::secagg::ClientKeys& keys) const;
  // Records that a share of `owner`'s secret of kind `kind` is revealed; kInvalidArgument if the
  // other kind was revealed before (the one rule an honest client must never break).
  absl::Status RecordReveal(uint32_t owner, Revealed kind);
  Neighbor* FindNeighbor(uint32_t id);
  fedmf::v1::secagg::ClientToServer Abort(std::string reason);
  void WipeSecrets();

  SessionConfig config_;
  std::array<uint8_t, 32> config_digest_;
  uint32_t id_;
  std::optional<crypto::Ed25519PrivateKey> signing_key_;
  std::shared_ptr<const SigningKeyDirectory> directory_;
  std::optional<crypto::X25519PrivateKey> c_key_;
  std::optional<crypto::X25519PrivateKey> s_key_;
  std::vector<uint64_t> input_;
  bool has_input_ = false;

  ClientStage stage_ = ClientStage::kNotStarted;
  std::string abort_reason_;
  SessionId session_id_{};
  std::vector<Neighbor> neighbors_;  // closed neighborhood, ascending id (round 1)
  size_t self_position_ = 0;
  crypto::SecretBytes self_mask_secret_;    // b
  std::vector<uint32_t> signed_survivors_;  // consistency check
  absl::flat_hash_map<uint32_t, Revealed> revealed_;
};

// Wipes the secrets of an exported state in place (OPENSSL_cleanse of the key, input, self-mask
// and share bytes), e.g. once it is serialized or restored.
void WipeClientSessionState(fedmf::v1::secagg::ClientSessionState& state);

}  // namespace fedmf::secagg

#endif  // FEDMF_CRYPTO_SECAGG_CLIENT_SESSION_H_
