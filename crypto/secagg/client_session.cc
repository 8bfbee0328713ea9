// ClientSession: creation, the AdvertiseKeys stage, input, dispatch and abort.
#include "crypto/secagg/client_session.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "crypto/bit_unpack.h"
#include "crypto/csprng.h"
#include "crypto/secagg/vector_codec.h"

namespace fedmf::secagg {

using fedmf::v1::secagg::ClientToServer;
using fedmf::v1::secagg::ServerToClient;

const char* ClientStageName(ClientStage stage) {
  switch (stage) {
    case ClientStage::kNotStarted:
      return "NotStarted";
    case ClientStage::kAwaitingShareKeys:
      return "AwaitingShareKeys";
    case ClientStage::kAwaitingMaskedInputRequest:
      return "AwaitingMaskedInputRequest";
    case ClientStage::kAwaitingConsistencyCheck:
      return "AwaitingConsistencyCheck";
    case ClientStage::kAwaitingUnmasking:
      return "AwaitingUnmasking";
    case ClientStage::kCompleted:
      return "Completed";
    case ClientStage::kAborted:
      return "Aborted";
  }
  return "Unknown";
}

ClientSession::ClientSession(const SessionConfig& config, const std::array<uint8_t, 32>& digest,
                             ClientIdentity identity,
                             std::shared_ptr<const SigningKeyDirectory> directory,
                             std::optional<crypto::X25519PrivateKey> c_key,
                             std::optional<crypto::X25519PrivateKey> s_key)
    : config_(config),
      config_digest_(digest),
      id_(identity.id),
      signing_key_(std::move(identity.signing_key)),
      directory_(std::move(directory)),
      c_key_(std::move(c_key)),
      s_key_(std::move(s_key)) {}

absl::StatusOr<std::unique_ptr<ClientSession>> ClientSession::Create(
    const SessionConfig& config, ClientIdentity identity,
    std::shared_ptr<const SigningKeyDirectory> directory) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  if (config.signatures && !identity.signing_key.has_value()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "SecAgg client %d: signatures are on but the signing key is missing", identity.id));
  }
  absl::StatusOr<std::array<uint8_t, 32>> digest = ConfigDigest(config);
  if (!digest.ok()) return digest.status();
  absl::StatusOr<crypto::X25519PrivateKey> c_key = crypto::X25519PrivateKey::Generate();
  if (!c_key.ok()) return c_key.status();
  absl::StatusOr<crypto::X25519PrivateKey> s_key = crypto::X25519PrivateKey::Generate();
  if (!s_key.ok()) return s_key.status();
  return std::unique_ptr<ClientSession>(new ClientSession(config, *digest, std::move(identity),
                                                          std::move(directory), std::move(*c_key),
                                                          std::move(*s_key)));
}

absl::StatusOr<ClientToServer> ClientSession::Start() {
  if (stage_ != ClientStage::kNotStarted) {
    return absl::FailedPreconditionError(
        absl::StrFormat("SecAgg client %d: Start() in stage %s", id_, ClientStageName(stage_)));
  }
  // b is fixed now, before any neighbor is known, so that the advertisement can commit to it.
  absl::StatusOr<crypto::SecretBytes> b = crypto::RandomSecretBytes(crypto::kShamirSecretSize);
  if (!b.ok()) return b.status();
  absl::StatusOr<Commitment> commitment = SelfMaskCommitment(config_digest_, id_, b->span());
  if (!commitment.ok()) return commitment.status();
  ClientToServer out;
  fedmf::v1::secagg::AdvertiseKeys* keys = out.mutable_advertise_keys();
  const PublicKeyBytes& c = c_key_->public_key().bytes();
  const PublicKeyBytes& s = s_key_->public_key().bytes();
  keys->set_c_public_key(c.data(), c.size());
  keys->set_s_public_key(s.data(), s.size());
  keys->set_self_mask_commitment(commitment->data(), commitment->size());
  if (config_.signatures) {
    absl::StatusOr<crypto::Ed25519Signature> signature =
        signing_key_->Sign(AdvertisementMessage(config_digest_, id_, c, s, *commitment));
    if (!signature.ok()) return signature.status();
    keys->set_signature(signature->data(), signature->size());
  }
  self_mask_secret_ = std::move(*b);
  stage_ = ClientStage::kAwaitingShareKeys;
  return out;
}

absl::Status ClientSession::SetInput(absl::Span<const uint64_t> input) {
  if (stage_ != ClientStage::kNotStarted && stage_ != ClientStage::kAwaitingShareKeys &&
      stage_ != ClientStage::kAwaitingMaskedInputRequest) {
    return absl::FailedPreconditionError(
        absl::StrFormat("SecAgg client %d: SetInput in stage %s", id_, ClientStageName(stage_)));
  }
  if (input.size() != config_.length) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "SecAgg client %d: input has %d values, need %d", id_, input.size(), config_.length));
  }
  const uint64_t limit = crypto::internal::LowBitsMask(config_.bits);
  for (size_t i = 0; i < input.size(); ++i) {
    if (input[i] > limit) {
      return absl::InvalidArgumentError(
          absl::StrFormat("SecAgg client %d: input value %d = %d does not fit in %d bits", id_, i,
                          input[i], config_.bits));
    }
  }
  input_.assign(input.begin(), input.end());
  has_input_ = true;
  return absl::OkStatus();
}

absl::StatusOr<std::optional<ClientToServer>> ClientSession::Handle(const ServerToClient& message) {
  if (stage_ == ClientStage::kNotStarted) {
    return absl::FailedPreconditionError(
        absl::StrFormat("SecAgg client %d: message before Start()", id_));
  }
  if (stage_ == ClientStage::kAborted) return std::nullopt;
  if (message.has_abort()) {
    abort_reason_ = absl::StrCat("server aborted: ", message.abort().reason());
    stage_ = ClientStage::kAborted;
    WipeSecrets();
    return std::nullopt;
  }
  if (stage_ == ClientStage::kCompleted) {
    // Nothing is owed after the unmasking response; answering a second request could reveal
    // the other share of some client.
    return Abort(absl::StrFormat("unexpected message (case %d) after the session completed",
                                 static_cast<int>(message.message_case())));
  }
  absl::StatusOr<ClientToServer> reply;
  if (message.has_share_keys() && stage_ == ClientStage::kAwaitingShareKeys) {
    reply = HandleShareKeys(message.share_keys());
  } else if (message.has_masked_input() && stage_ == ClientStage::kAwaitingMaskedInputRequest) {
    if (!has_input_) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "SecAgg client %d: MaskedInputRequest before SetInput; deliver it again after", id_));
    }
    reply = HandleMaskedInput(message.masked_input());
  } else if (message.has_consistency_check() && stage_ == ClientStage::kAwaitingConsistencyCheck) {
    reply = HandleConsistencyCheck(message.consistency_check());
  } else if (message.has_unmasking() && stage_ == ClientStage::kAwaitingUnmasking) {
    reply = HandleUnmasking(message.unmasking());
  } else {
    return Abort(absl::StrFormat("unexpected message (case %d) in stage %s",
                                 static_cast<int>(message.message_case()),
                                 ClientStageName(stage_)));
  }
  if (!reply.ok()) return Abort(std::string(reply.status().message()));
  return std::optional<ClientToServer>(std::move(*reply));
}

absl::Status ClientSession::SetDirectory(std::shared_ptr<const SigningKeyDirectory> directory) {
  if (stage_ != ClientStage::kNotStarted && stage_ != ClientStage::kAwaitingShareKeys) {
    return absl::FailedPreconditionError(
        absl::StrFormat("SecAgg client %d: signing keys given in stage %s, after ShareKeys", id_,
                        ClientStageName(stage_)));
  }
  directory_ = std::move(directory);
  return absl::OkStatus();
}

absl::Status ClientSession::VerifyAdvertisement(const fedmf::v1::secagg::ClientKeys& keys) const {
  if (directory_ == nullptr) {
    return absl::InvalidArgumentError(
        "signatures are on but no signing keys came for the neighbors");
  }
  const std::optional<crypto::Ed25519PublicKey> verifier = directory_->Find(keys.client_id());
  if (!verifier.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("client %d is not in the signing key directory", keys.client_id()));
  }
  // The caller checked the sizes.
  PublicKeyBytes c{}, s{};
  Commitment commitment{};
  std::copy(keys.keys().c_public_key().begin(), keys.keys().c_public_key().end(), c.begin());
  std::copy(keys.keys().s_public_key().begin(), keys.keys().s_public_key().end(), s.begin());
  std::copy(keys.keys().self_mask_commitment().begin(), keys.keys().self_mask_commitment().end(),
            commitment.begin());
  if (absl::Status st =
          verifier->Verify(AdvertisementMessage(config_digest_, keys.client_id(), c, s, commitment),
                           AsBytes(keys.keys().signature()));
      !st.ok()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "advertisement of client %d: bad signature (%s)", keys.client_id(), st.message()));
  }
  return absl::OkStatus();
}

absl::Status ClientSession::RecordReveal(uint32_t owner, Revealed kind) {
  auto [it, inserted] = revealed_.try_emplace(owner, kind);
  if (!inserted && it->second != kind) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "asked for both the self-mask share and the key share of client %d", owner));
  }
  return absl::OkStatus();
}

ClientSession::Neighbor* ClientSession::FindNeighbor(uint32_t id) {
  auto it = std::lower_bound(neighbors_.begin(), neighbors_.end(), id,
                             [](const Neighbor& n, uint32_t v) { return n.id < v; });
  return it != neighbors_.end() && it->id == id ? &*it : nullptr;
}

ClientToServer ClientSession::Abort(std::string reason) {
  abort_reason_ =
      absl::StrFormat("client %d aborted in stage %s: %s", id_, ClientStageName(stage_), reason);
  stage_ = ClientStage::kAborted;
  WipeSecrets();
  ClientToServer out;
  out.mutable_abort()->set_reason(abort_reason_);
  return out;
}

void ClientSession::WipeSecrets() {
  c_key_.reset();
  s_key_.reset();
  self_mask_secret_.Clear();
  neighbors_.clear();
  std::fill(input_.begin(), input_.end(), 0);
}

}  // namespace fedmf::secagg
