// Client round 1 (ShareKeys): check the neighbors' advertised keys, Shamir-share the masking key
// s_SK and the self-mask secret b among the closed neighborhood, encrypt each neighbor's pair of
// shares (with their commitment salts) under the pairwise AEAD, and commit to each share.
#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "crypto/csprng.h"
#include "crypto/secagg/client_session.h"
#include "crypto/secagg/errors.h"
#include "crypto/secagg/vector_codec.h"
#include "crypto/shamir.h"

namespace fedmf::secagg {

using fedmf::v1::secagg::ClientToServer;
using fedmf::v1::secagg::ShareKeysRequest;

absl::StatusOr<ClientToServer> ClientSession::HandleShareKeys(const ShareKeysRequest& request) {
  if (request.session_id().size() != kSessionIdSize) {
    return Invalid("session id is %d bytes, need %d", request.session_id().size(), kSessionIdSize);
  }
  const uint32_t advertised = request.num_advertised();
  if (advertised > static_cast<uint32_t>(config_.num_clients) ||
      advertised < static_cast<uint32_t>(config_.threshold)) {
    return Invalid("num_advertised=%d outside [threshold=%d, num_clients=%d]", advertised,
                   config_.threshold, config_.num_clients);
  }
  // Closed neighborhood size: everyone (complete) or min(k, n1 - 1) + 1 (Harary).
  const size_t expected = config_.graph == GraphKind::kComplete
                              ? advertised
                              : std::min<size_t>(config_.degree, advertised - 1) + 1;
  if (static_cast<size_t>(request.clients_size()) != expected) {
    return Invalid("wrong key count: %d clients listed, need %d", request.clients_size(), expected);
  }
  if (expected < static_cast<size_t>(config_.threshold)) {
    return Invalid("%d clients listed, fewer than the threshold %d", expected, config_.threshold);
  }

  absl::flat_hash_set<std::string> seen_keys;
  bool found_self = false;
  std::vector<Neighbor> neighbors(expected);
  for (int i = 0; i < request.clients_size(); ++i) {
    const fedmf::v1::secagg::ClientKeys& entry = request.clients(i);
    const uint32_t id = entry.client_id();
    if (i > 0 && id == request.clients(i - 1).client_id())
      return Invalid("client %d listed twice", id);
    if (i > 0 && id < request.clients(i - 1).client_id()) {
      return Invalid("client ids not ascending at position %d (%d after %d)", i, id,
                     request.clients(i - 1).client_id());
    }
    const std::string& c = entry.keys().c_public_key();
    const std::string& s = entry.keys().s_public_key();
    if (c.size() != crypto::kX25519KeySize || s.size() != crypto::kX25519KeySize) {
      return Invalid("client %d: public keys of %d and %d bytes, need 32", id, c.size(), s.size());
    }
    if (entry.keys().self_mask_commitment().size() != kCommitmentSize) {
      return Invalid("client %d: self-mask commitment of %d bytes, need %d", id,
                     entry.keys().self_mask_commitment().size(), kCommitmentSize);
    }
    if (!seen_keys.insert(c).second || !seen_keys.insert(s).second) {
      return Invalid("client %d reuses a public key already listed", id);
    }
    if (config_.signatures) {
      if (absl::Status st = VerifyAdvertisement(entry); !st.ok()) return st;
    }
    Neighbor& n = neighbors[static_cast<size_t>(i)];
    n.id = id;
    absl::StatusOr<crypto::X25519PublicKey> c_public =
        crypto::X25519PublicKey::FromBytes(AsBytes(c));
    if (!c_public.ok()) return c_public.status();
    absl::StatusOr<crypto::X25519PublicKey> s_public =
        crypto::X25519PublicKey::FromBytes(AsBytes(s));
    if (!s_public.ok()) return s_public.status();
    n.c_public = *c_public;
    n.s_public = *s_public;
    if (id == id_) {
      if (!(*n.c_public == c_key_->public_key()) || !(*n.s_public == s_key_->public_key())) {
        return Invalid("own keys altered in the key list");
      }
      found_self = true;
      self_position_ = static_cast<size_t>(i);
    }
  }
  if (!found_self) return Invalid("own key missing from the key list");

  SessionId sid{};
  std::copy(request.session_id().begin(), request.session_id().end(), sid.begin());
  if (config_.graph == GraphKind::kComplete) {
    // Every advertised key is here: recompute the session id instead of trusting the server's.
    SessionIdBuilder builder(config_digest_, advertised);
    for (const Neighbor& n : neighbors) builder.Add(n.id, n.c_public->bytes(), n.s_public->bytes());
    absl::StatusOr<SessionId> computed = builder.Finish();
    if (!computed.ok()) return computed.status();
    if (*computed != sid) return Invalid("session id does not match the advertised keys");
  }
  session_id_ = sid;

  // Shares: holder i of the closed neighborhood gets Shamir index i + 1.
  const crypto::ShamirParams params{config_.threshold, static_cast<int>(expected)};
  absl::StatusOr<std::vector<crypto::ShamirShare>> key_shares =
      crypto::ShamirSplit(s_key_->private_bytes().span(), params);
  if (!key_shares.ok()) return key_shares.status();
  absl::StatusOr<std::vector<crypto::ShamirShare>> b_shares =
      crypto::ShamirSplit(self_mask_secret_.span(), params);
  if (!b_shares.ok()) return b_shares.status();

  ClientToServer out;
  fedmf::v1::secagg::ShareKeysResponse* response = out.mutable_share_keys();
  for (size_t i = 0; i < neighbors.size(); ++i) {
    Neighbor& n = neighbors[i];
    if (i == self_position_) {
      n.key_share = std::move((*key_shares)[i].value);
      n.self_mask_share = std::move((*b_shares)[i].value);
      n.shared = true;
      continue;
    }
    absl::StatusOr<crypto::Aes256Gcm> channel = ShareChannel(*c_key_, id_, *n.c_public, n.id, sid);
    if (!channel.ok()) return channel.status();
    SharePayload payload{.key_share = std::move((*key_shares)[i].value),
                         .self_mask_share = std::move((*b_shares)[i].value),
                         .key_share_salt = {},
                         .self_mask_share_salt = {}};
    for (crypto::SecretBytes* salt : {&payload.key_share_salt, &payload.self_mask_share_salt}) {
      absl::StatusOr<crypto::SecretBytes> random = crypto::RandomSecretBytes(kShareSaltSize);
      if (!random.ok()) return random.status();
      *salt = std::move(*random);
    }
    absl::StatusOr<Commitment> key_commitment =
        ShareCommitment(sid, id_, n.id, SharedSecret::kMaskingKey, payload.key_share.span(),
                        payload.key_share_salt.span());
    if (!key_commitment.ok()) return key_commitment.status();
    absl::StatusOr<Commitment> b_commitment =
        ShareCommitment(sid, id_, n.id, SharedSecret::kSelfMask, payload.self_mask_share.span(),
                        payload.self_mask_share_salt.span());
    if (!b_commitment.ok()) return b_commitment.status();
    absl::StatusOr<std::vector<uint8_t>> ciphertext =
        channel->Encrypt(EncodeSharePayload(id_, n.id, payload).span(),
                         ShareAssociatedData(sid, id_, n.id));
    if (!ciphertext.ok()) return ciphertext.status();
    fedmf::v1::secagg::EncryptedShares* entry = response->add_shares();
    entry->set_peer_id(n.id);
    entry->set_ciphertext(ciphertext->data(), ciphertext->size());
    entry->set_key_share_commitment(key_commitment->data(), key_commitment->size());
    entry->set_self_mask_share_commitment(b_commitment->data(), b_commitment->size());
    n.channel = std::move(*channel);
  }
  neighbors_ = std::move(neighbors);
  stage_ = ClientStage::kAwaitingMaskedInputRequest;
  return out;
}

}  // namespace fedmf::secagg
