// ClientSession at rest: Export writes the complete state into a ClientSessionState
// (proto/fedmf/v1/secagg.proto); Restore validates every field against the stage it claims and
// rebuilds the session, re-deriving the share channels from the keys. Only stages that still hold
// secrets carry them: keys up to the unmasking response, the input until it is masked, the
// neighborhood and b from the key sharing to the unmasking response.
#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "crypto/secagg/client_session.h"
#include "crypto/secagg/errors.h"
#include "crypto/secagg/vector_codec.h"
#include "crypto/shamir.h"
#include "openssl/crypto.h"

namespace fedmf::secagg {
namespace {

using State = fedmf::v1::secagg::ClientSessionState;

// 3: the neighbors' shares are held with the salts of their commitments. (2: b is generated and
// committed at advertisement, so it is held from AWAITING_SHARE_KEYS, and neighbors may be
// `unusable`.)
constexpr uint32_t kStateFormatVersion = 3;
// Sessions in progress of formats 1 (before the self-mask commitment) and 2 (before the share
// commitments) belong to protocols no server runs any more.
constexpr uint32_t kOldestStateFormatVersion = 1;

State::Stage ToProto(ClientStage stage) {
  switch (stage) {
    case ClientStage::kNotStarted:
      return State::STAGE_NOT_STARTED;
    case ClientStage::kAwaitingShareKeys:
      return State::STAGE_AWAITING_SHARE_KEYS;
    case ClientStage::kAwaitingMaskedInputRequest:
      return State::STAGE_AWAITING_MASKED_INPUT_REQUEST;
    case ClientStage::kAwaitingConsistencyCheck:
      return State::STAGE_AWAITING_CONSISTENCY_CHECK;
    case ClientStage::kAwaitingUnmasking:
      return State::STAGE_AWAITING_UNMASKING;
    case ClientStage::kCompleted:
      return State::STAGE_COMPLETED;
    case ClientStage::kAborted:
      return State::STAGE_ABORTED;
  }
  return State::STAGE_UNSPECIFIED;
}

absl::StatusOr<ClientStage> FromProto(int stage) {
  switch (stage) {
    case State::STAGE_NOT_STARTED:
      return ClientStage::kNotStarted;
    case State::STAGE_AWAITING_SHARE_KEYS:
      return ClientStage::kAwaitingShareKeys;
    case State::STAGE_AWAITING_MASKED_INPUT_REQUEST:
      return ClientStage::kAwaitingMaskedInputRequest;
    case State::STAGE_AWAITING_CONSISTENCY_CHECK:
      return ClientStage::kAwaitingConsistencyCheck;
    case State::STAGE_AWAITING_UNMASKING:
      return ClientStage::kAwaitingUnmasking;
    case State::STAGE_COMPLETED:
      return ClientStage::kCompleted;
    case State::STAGE_ABORTED:
      return ClientStage::kAborted;
    default:
      return Invalid("session state: stage %d is unknown", stage);
  }
}

void SetBytes(std::string* field, absl::Span<const uint8_t> bytes) {
  field->assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

void Wipe(std::string* field) {
  OPENSSL_cleanse(field->data(), field->size());
  field->clear();
}

// A private key field: exactly 32 bytes.
absl::StatusOr<crypto::X25519PrivateKey> PrivateKey(const std::string& bytes, const char* name) {
  if (bytes.size() != crypto::kX25519KeySize) {
    return Invalid("session state: %s is %d bytes, need %d", name, bytes.size(),
                   crypto::kX25519KeySize);
  }
  return crypto::X25519PrivateKey::FromBytes(AsBytes(bytes));
}

// Stages between the key sharing and the unmasking response: they hold the neighborhood and b.
bool HoldsNeighbors(ClientStage stage) {
  return stage == ClientStage::kAwaitingMaskedInputRequest ||
         stage == ClientStage::kAwaitingConsistencyCheck ||
         stage == ClientStage::kAwaitingUnmasking;
}

bool HoldsKeys(ClientStage stage) {
  return stage != ClientStage::kCompleted && stage != ClientStage::kAborted;
}

}  // namespace

absl::StatusOr<State> ClientSession::Export() const {
  State out;
  out.set_format_version(kStateFormatVersion);
  *out.mutable_config() = ConfigToProto(config_);
  SetBytes(out.mutable_config_digest(), config_digest_);
  out.set_client_id(id_);
  out.set_stage(ToProto(stage_));
  if (c_key_.has_value()) SetBytes(out.mutable_c_private_key(), c_key_->private_bytes().span());
  if (s_key_.has_value()) SetBytes(out.mutable_s_private_key(), s_key_->private_bytes().span());
  out.set_has_input(has_input_);
  if (has_input_ && stage_ <= ClientStage::kAwaitingMaskedInputRequest) {
    absl::StatusOr<std::string> packed =
        PackVector<uint64_t>(absl::MakeConstSpan(input_), config_.bits);
    if (!packed.ok()) return packed.status();
    *out.mutable_input() = std::move(*packed);
  }
  if (HoldsNeighbors(stage_)) SetBytes(out.mutable_session_id(), session_id_);
  for (const Neighbor& n : neighbors_) {
    State::Neighbor* entry = out.add_neighbors();
    entry->set_id(n.id);
    SetBytes(entry->mutable_c_public_key(), n.c_public->bytes());
    SetBytes(entry->mutable_s_public_key(), n.s_public->bytes());
    entry->set_shared(n.shared);
    entry->set_unusable(n.unusable);
    SetBytes(entry->mutable_key_share(), n.key_share.span());
    SetBytes(entry->mutable_self_mask_share(), n.self_mask_share.span());
    SetBytes(entry->mutable_key_share_salt(), n.key_share_salt.span());
    SetBytes(entry->mutable_self_mask_share_salt(), n.self_mask_share_salt.span());
  }
  // Completed and aborted sessions keep their old position but no neighborhood.
  if (HoldsNeighbors(stage_)) out.set_self_position(static_cast<uint32_t>(self_position_));
  SetBytes(out.mutable_self_mask_secret(), self_mask_secret_.span());
  out.mutable_signed_survivors()->Add(signed_survivors_.begin(), signed_survivors_.end());
  std::vector<std::pair<uint32_t, Revealed>> ledger(revealed_.begin(), revealed_.end());
  std::sort(ledger.begin(), ledger.end());
  for (const auto& [owner, kind] : ledger) {
    State::Revealed* entry = out.add_revealed();
    entry->set_owner_id(owner);
    entry->set_kind(kind == Revealed::kKeyShare ? State::REVEALED_KEY_SHARE
                                                : State::REVEALED_SELF_MASK_SHARE);
  }
  out.set_abort_reason(abort_reason_);
  return out;
}

absl::StatusOr<std::unique_ptr<ClientSession>> ClientSession::Restore(
    const State& state, ClientIdentity identity,
    std::shared_ptr<const SigningKeyDirectory> directory) {
  if (state.format_version() >= kOldestStateFormatVersion &&
      state.format_version() < kStateFormatVersion) {
    return RestoreOlderFormat(state, std::move(identity), std::move(directory));
  }
  if (state.format_version() != kStateFormatVersion) {
    return Invalid("session state: format_version %d, expected %d to %d", state.format_version(),
                   kOldestStateFormatVersion, kStateFormatVersion);
  }
  absl::StatusOr<SessionConfig> parsed = ConfigFromProto(state.config());
  if (!parsed.ok()) return Invalid("session state: config: %s", parsed.status().message());
  const SessionConfig& config = *parsed;
  absl::StatusOr<std::array<uint8_t, 32>> digest = ConfigDigest(config);
  if (!digest.ok()) return digest.status();
  const absl::Span<const uint8_t> stored = AsBytes(state.config_digest());
  if (!std::equal(digest->begin(), digest->end(), stored.begin(), stored.end())) {
    return Invalid("session state: config_digest does not match the config");
  }
  if (state.client_id() != identity.id) {
    return Invalid("session state: client_id %d, but the caller's identity is %d",
                   state.client_id(), identity.id);
  }
  absl::StatusOr<ClientStage> stage = FromProto(state.stage());
  if (!stage.ok()) return stage.status();
  if (config.signatures && !identity.signing_key.has_value()) {
    return Invalid("session state: signatures are on but the signing key is missing");
  }
  if (config.signatures && HoldsNeighbors(*stage) && directory == nullptr) {
    return Invalid("session state: signatures are on but the directory is missing in stage %s",
                   ClientStageName(*stage));
  }

  std::optional<crypto::X25519PrivateKey> c_key, s_key;
  if (HoldsKeys(*stage)) {
    absl::StatusOr<crypto::X25519PrivateKey> c = PrivateKey(state.c_private_key(), "c_private_key");
    if (!c.ok()) return c.status();
    absl::StatusOr<crypto::X25519PrivateKey> s = PrivateKey(state.s_private_key(), "s_private_key");
    if (!s.ok()) return s.status();
    if (c->public_key() == s->public_key()) {
      return Invalid("session state: c_private_key and s_private_key are the same key");
    }
    c_key = std::move(*c);
    s_key = std::move(*s);
  } else if (!state.c_private_key().empty() || !state.s_private_key().empty()) {
    return Invalid("session state: private keys in stage %s", ClientStageName(*stage));
  }
  std::unique_ptr<ClientSession> session(new ClientSession(config, *digest, std::move(identity),
                                                           std::move(directory), std::move(c_key),
                                                           std::move(s_key)));
  session->stage_ = *stage;

  if (absl::Status s = session->RestoreInput(state); !s.ok()) return s;
  const bool holds_b = *stage == ClientStage::kAwaitingShareKeys || HoldsNeighbors(*stage);
  const size_t b_size = holds_b ? crypto::kShamirSecretSize : 0;
  if (state.self_mask_secret().size() != b_size) {
    return Invalid("session state: self_mask_secret is %d bytes, need %d in stage %s",
                   state.self_mask_secret().size(), b_size, ClientStageName(*stage));
  }
  session->self_mask_secret_ = crypto::SecretBytes(AsBytes(state.self_mask_secret()));
  const size_t sid_size = HoldsNeighbors(*stage) ? kSessionIdSize : 0;
  if (state.session_id().size() != sid_size) {
    return Invalid("session state: session_id is %d bytes, need %d in stage %s",
                   state.session_id().size(), sid_size, ClientStageName(*stage));
  }
  std::copy(state.session_id().begin(), state.session_id().end(), session->session_id_.begin());
  if (absl::Status s = session->RestoreNeighbors(state); !s.ok()) return s;
  if (absl::Status s = session->RestoreLedger(state); !s.ok()) return s;
  if (*stage != ClientStage::kAborted && !state.abort_reason().empty()) {
    return Invalid("session state: abort_reason in stage %s", ClientStageName(*stage));
  }
  session->abort_reason_ = state.abort_reason();
  return session;
}

absl::StatusOr<std::unique_ptr<ClientSession>> ClientSession::RestoreOlderFormat(
    const State& state, ClientIdentity identity,
    std::shared_ptr<const SigningKeyDirectory> directory) {
  State current = state;
  current.set_format_version(kStateFormatVersion);
  const bool in_progress = state.stage() != State::STAGE_NOT_STARTED &&
                           state.stage() != State::STAGE_COMPLETED &&
                           state.stage() != State::STAGE_ABORTED;
  if (in_progress) {
    // Its ledger of revealed shares is kept; its secrets are of no further use.
    WipeClientSessionState(current);
    current.set_stage(State::STAGE_ABORTED);
    current.clear_c_private_key();
    current.clear_s_private_key();
    current.clear_input();
    current.clear_session_id();
    current.clear_neighbors();
    current.clear_self_position();
    current.clear_self_mask_secret();
    current.set_abort_reason(absl::StrFormat(
        "a session saved by an older fedmf (state format %d) cannot continue: the protocol now "
        "commits to %s",
        state.format_version(),
        state.format_version() == 1 ? "the self-mask secret at advertisement"
                                    : "every share it deals"));
  }
  absl::StatusOr<std::unique_ptr<ClientSession>> restored =
      Restore(current, std::move(identity), std::move(directory));
  WipeClientSessionState(current);
  return restored;
}

absl::Status ClientSession::RestoreInput(const State& state) {
  has_input_ = state.has_input();
  const bool held = has_input_ && stage_ <= ClientStage::kAwaitingMaskedInputRequest;
  if (!held) {
    if (!state.input().empty()) {
      return Invalid("session state: input present with has_input=%d in stage %s",
                     static_cast<int>(has_input_), ClientStageName(stage_));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<uint64_t>> input =
      UnpackVector(AsBytes(state.input()), config_.length, config_.bits);
  if (!input.ok()) return Invalid("session state: input: %s", input.status().message());
  input_ = std::move(*input);
  return absl::OkStatus();
}

absl::Status ClientSession::RestoreNeighbors(const State& state) {
  const bool holds = HoldsNeighbors(stage_);
  if (!holds) {
    if (state.neighbors_size() != 0 || state.self_position() != 0) {
      return Invalid("session state: neighbors or self_position in stage %s",
                     ClientStageName(stage_));
    }
    if (!state.signed_survivors().empty() && stage_ != ClientStage::kCompleted &&
        stage_ != ClientStage::kAborted) {
      return Invalid("session state: signed_survivors in stage %s", ClientStageName(stage_));
    }
    signed_survivors_.assign(state.signed_survivors().begin(), state.signed_survivors().end());
    for (size_t i = 1; i < signed_survivors_.size(); ++i) {
      if (signed_survivors_[i] <= signed_survivors_[i - 1]) {
        return Invalid("session state: signed_survivors not ascending at %d", i);
      }
    }
    return absl::OkStatus();
  }
  // As ShareKeys accepted it: at least t members, at most the cohort or k + 1.
  const size_t count = static_cast<size_t>(state.neighbors_size());
  const size_t most = config_.graph == GraphKind::kComplete
                          ? static_cast<size_t>(config_.num_clients)
                          : static_cast<size_t>(config_.degree) + 1;
  if (count < static_cast<size_t>(config_.threshold) || count > most) {
    return Invalid("session state: %d neighbors, need %d to %d", count, config_.threshold, most);
  }
  if (state.self_position() >= count || state.neighbors(state.self_position()).id() != id_) {
    return Invalid("session state: self_position %d does not name client %d", state.self_position(),
                   id_);
  }
  self_position_ = state.self_position();
  absl::flat_hash_set<std::string> seen_keys;
  std::vector<Neighbor> neighbors(count);
  for (size_t i = 0; i < count; ++i) {
    const State::Neighbor& entry = state.neighbors(static_cast<int>(i));
    Neighbor& n = neighbors[i];
    n.id = entry.id();
    if (i > 0 && n.id <= neighbors[i - 1].id) {
      return Invalid("session state: neighbors not strictly ascending at %d (%d after %d)", i, n.id,
                     neighbors[i - 1].id);
    }
    absl::StatusOr<crypto::X25519PublicKey> c =
        crypto::X25519PublicKey::FromBytes(AsBytes(entry.c_public_key()));
    absl::StatusOr<crypto::X25519PublicKey> s =
        crypto::X25519PublicKey::FromBytes(AsBytes(entry.s_public_key()));
    if (!c.ok() || !s.ok()) {
      return Invalid(
          "session state: neighbors[%d] (client %d): public keys of %d and %d bytes, "
          "need 32",
          i, n.id, entry.c_public_key().size(), entry.s_public_key().size());
    }
    if (!seen_keys.insert(entry.c_public_key()).second ||
        !seen_keys.insert(entry.s_public_key()).second) {
      return Invalid("session state: neighbors[%d] (client %d) reuses a public key", i, n.id);
    }
    n.c_public = *c;
    n.s_public = *s;
    n.shared = entry.shared();
    n.unusable = entry.unusable();
    const bool self = i == self_position_;
    if (n.unusable && (self || !n.shared)) {
      return Invalid("session state: neighbors[%d] (client %d) unusable but %s", i, n.id,
                     self ? "itself" : "not shared");
    }
    if (self && (!(*c == c_key_->public_key()) || !(*s == s_key_->public_key()) || !n.shared)) {
      return Invalid(
          "session state: neighbors[%d] (itself) does not match its own keys or has "
          "not shared",
          i);
    }
    if (!self && n.shared && stage_ == ClientStage::kAwaitingMaskedInputRequest) {
      return Invalid(
          "session state: neighbors[%d] (client %d) shared before the masked input "
          "request",
          i, n.id);
    }
    const size_t share_size = n.shared && !n.unusable ? crypto::kShamirShareSize : 0;
    if (entry.key_share().size() != share_size || entry.self_mask_share().size() != share_size) {
      return Invalid(
          "session state: neighbors[%d] (client %d, shared=%d, unusable=%d): shares of %d and "
          "%d bytes, need %d",
          i, n.id, static_cast<int>(n.shared), static_cast<int>(n.unusable),
          entry.key_share().size(), entry.self_mask_share().size(), share_size);
    }
    n.key_share = crypto::SecretBytes(AsBytes(entry.key_share()));
    n.self_mask_share = crypto::SecretBytes(AsBytes(entry.self_mask_share()));
    const size_t salt_size = share_size != 0 && !self ? kShareSaltSize : 0;
    if (entry.key_share_salt().size() != salt_size ||
        entry.self_mask_share_salt().size() != salt_size) {
      return Invalid(
          "session state: neighbors[%d] (client %d%s): share salts of %d and %d bytes, need %d", i,
          n.id, self ? ", itself" : "", entry.key_share_salt().size(),
          entry.self_mask_share_salt().size(), salt_size);
    }
    n.key_share_salt = crypto::SecretBytes(AsBytes(entry.key_share_salt()));
    n.self_mask_share_salt = crypto::SecretBytes(AsBytes(entry.self_mask_share_salt()));
    if (self) continue;
    absl::StatusOr<crypto::Aes256Gcm> channel =
        ShareChannel(*c_key_, id_, *n.c_public, n.id, session_id_);
    if (!channel.ok()) {
      return Invalid("session state: neighbors[%d] (client %d): %s", i, n.id,
                     channel.status().message());
    }
    n.channel = std::move(*channel);
  }
  neighbors_ = std::move(neighbors);

  // The survivor list it signed: only once it answered the consistency check.
  const bool signed_list = config_.consistency_check && stage_ == ClientStage::kAwaitingUnmasking;
  if (!signed_list) {
    if (!state.signed_survivors().empty()) {
      return Invalid("session state: signed_survivors in stage %s", ClientStageName(stage_));
    }
    return absl::OkStatus();
  }
  bool found_self = false;
  for (int i = 0; i < state.signed_survivors_size(); ++i) {
    const uint32_t id = state.signed_survivors(i);
    if (i > 0 && id <= state.signed_survivors(i - 1)) {
      return Invalid("session state: signed_survivors not ascending at %d", i);
    }
    const Neighbor* n = FindNeighbor(id);
    if (n == nullptr || !n->shared) {
      return Invalid("session state: signed survivor %d is not a neighbor that shared", id);
    }
    found_self |= id == id_;
  }
  if (!found_self || state.signed_survivors_size() < config_.threshold) {
    return Invalid("session state: signed_survivors (%d) lack itself or the threshold %d",
                   state.signed_survivors_size(), config_.threshold);
  }
  signed_survivors_.assign(state.signed_survivors().begin(), state.signed_survivors().end());
  return absl::OkStatus();
}

absl::Status ClientSession::RestoreLedger(const State& state) {
  for (int i = 0; i < state.revealed_size(); ++i) {
    const State::Revealed& entry = state.revealed(i);
    if (i > 0 && entry.owner_id() <= state.revealed(i - 1).owner_id()) {
      return Invalid("session state: revealed not strictly ascending at %d", i);
    }
    if (entry.kind() != State::REVEALED_SELF_MASK_SHARE &&
        entry.kind() != State::REVEALED_KEY_SHARE) {
      return Invalid("session state: revealed[%d] (client %d) has unknown kind %d", i,
                     entry.owner_id(), static_cast<int>(entry.kind()));
    }
    revealed_.emplace(entry.owner_id(), entry.kind() == State::REVEALED_KEY_SHARE
                                            ? Revealed::kKeyShare
                                            : Revealed::kSelfMaskShare);
  }
  return absl::OkStatus();
}

void WipeClientSessionState(State& state) {
  Wipe(state.mutable_c_private_key());
  Wipe(state.mutable_s_private_key());
  Wipe(state.mutable_input());
  Wipe(state.mutable_self_mask_secret());
  for (State::Neighbor& n : *state.mutable_neighbors()) {
    Wipe(n.mutable_key_share());
    Wipe(n.mutable_self_mask_share());
    Wipe(n.mutable_key_share_salt());
    Wipe(n.mutable_self_mask_share_salt());
  }
}

}  // namespace fedmf::secagg
