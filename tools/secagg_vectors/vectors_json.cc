#include "tools/secagg_vectors/vectors_json.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "crypto/aead.h"
#include "crypto/bit_unpack.h"
#include "crypto/ed25519.h"
#include "crypto/hkdf.h"
#include "crypto/prg.h"
#include "crypto/secagg/config.h"
#include "crypto/secagg/derivation.h"
#include "crypto/secagg/vector_codec.h"
#include "crypto/shamir.h"
#include "crypto/x25519.h"

// Local error plumbing: every step of the builder can fail, and each failure is returned as is.
#define VECTORS_RETURN_IF_ERROR(expr)           \
  do {                                          \
    if (absl::Status _st = (expr); !_st.ok()) { \
      return _st;                               \
    }                                           \
  } while (0)
#define VECTORS_CONCAT_INNER(a, b) a##b
#define VECTORS_CONCAT(a, b) VECTORS_CONCAT_INNER(a, b)
#define VECTORS_ASSIGN_OR_RETURN(lhs, expr) \
  VECTORS_ASSIGN_OR_RETURN_IMPL(VECTORS_CONCAT(_statusor_, __LINE__), lhs, expr)
#define VECTORS_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(*tmp)

namespace fedmf::secagg_vectors {
namespace {

using json = nlohmann::ordered_json;
using ByteVector = std::vector<uint8_t>;
using fedmf::v1::secagg::ClientSessionState;

ByteVector ToBytes(const std::string& s) { return ByteVector(s.begin(), s.end()); }
ByteVector ToBytes(absl::Span<const uint8_t> s) { return ByteVector(s.begin(), s.end()); }

std::string Hex(absl::Span<const uint8_t> bytes) {
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}
std::string Hex(const std::string& bytes) { return absl::BytesToHexString(bytes); }

void AppendU32(ByteVector& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void AppendU64(ByteVector& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void Append(ByteVector& out, absl::Span<const uint8_t> bytes) {
  out.insert(out.end(), bytes.begin(), bytes.end());
}
void Append(ByteVector& out, absl::string_view text) {
  out.insert(out.end(), text.begin(), text.end());
}

absl::Status Mismatch(absl::string_view what) {
  return absl::InternalError(absl::StrFormat("test vectors: %s does not match", what));
}

absl::StatusOr<std::array<uint8_t, 32>> Sha256Of(const ByteVector& bytes) {
  secagg::Sha256 h;
  h.Update(bytes);
  return h.Finish();
}

// info = label || u32 lo || u32 hi || key(lo) || key(hi) (docs/protocol.md, "Key derivation").
ByteVector PairInfo(absl::string_view label, uint32_t lo, uint32_t hi, const std::string& key_lo,
                    const std::string& key_hi) {
  ByteVector info;
  Append(info, label);
  AppendU32(info, lo);
  AppendU32(info, hi);
  Append(info, ToBytes(key_lo));
  Append(info, ToBytes(key_hi));
  return info;
}

json Values(const std::vector<uint64_t>& v) {
  json out = json::array();
  for (uint64_t x : v) out.push_back(x);
  return out;
}

json Ids(const std::vector<uint32_t>& v) {
  json out = json::array();
  for (uint32_t x : v) out.push_back(x);
  return out;
}

// Builds one session's vectors; see docs/vectors/README.md for the fields.
class Builder {
 public:
  explicit Builder(const RecordedSession& s)
      : s_(s), mask_(crypto::internal::LowBitsMask(s.config.bits)) {}

  absl::StatusOr<json> Build(absl::string_view name, absl::string_view description) {
    out_["name"] = std::string(name);
    out_["description"] = std::string(description);
    VECTORS_RETURN_IF_ERROR(Config());
    VECTORS_RETURN_IF_ERROR(ClientKeys());
    VECTORS_RETURN_IF_ERROR(SessionId());
    VECTORS_RETURN_IF_ERROR(Pairs());
    VECTORS_RETURN_IF_ERROR(Shares());
    VECTORS_RETURN_IF_ERROR(Shamir());
    VECTORS_RETURN_IF_ERROR(MaskedInputs());
    VECTORS_RETURN_IF_ERROR(Consistency());
    VECTORS_RETURN_IF_ERROR(Unmasking());
    Messages();
    return out_;
  }

 private:
  struct KeySet {
    std::string c_private, s_private, c_public, s_public;
  };
  struct Pair {
    ByteVector share_key;
    std::vector<uint64_t> mask;
  };

  // The recorded messages of one stage, direction and (0: any) client.
  std::vector<const RecordedMessage*> Find(absl::string_view stage, bool from_server,
                                           uint32_t client = 0) const {
    std::vector<const RecordedMessage*> found;
    for (const RecordedMessage& m : s_.messages) {
      if (m.stage == stage && m.from_server == from_server && (client == 0 || m.client == client)) {
        found.push_back(&m);
      }
    }
    return found;
  }

  absl::Status Config() {
    const secagg::SessionConfig& c = s_.config;
    out_["config"] = {{"context", c.context},
                      {"num_clients", c.num_clients},
                      {"threshold", c.threshold},
                      {"bits", c.bits},
                      {"length", c.length},
                      {"harary_graph", c.graph == secagg::GraphKind::kHarary},
                      {"degree", c.degree},
                      {"signatures", c.signatures},
                      {"consistency_check", c.consistency_check}};
    ByteVector input;
    Append(input, secagg::kLabelConfig);
    AppendU32(input, static_cast<uint32_t>(c.context.size()));
    Append(input, c.context);
    AppendU32(input, static_cast<uint32_t>(c.num_clients));
    AppendU32(input, static_cast<uint32_t>(c.threshold));
    AppendU32(input, static_cast<uint32_t>(c.bits));
    AppendU64(input, c.length);
    AppendU32(input, static_cast<uint32_t>(c.graph));
    AppendU32(input, static_cast<uint32_t>(c.degree));
    AppendU32(input, c.signatures ? 1 : 0);
    AppendU32(input, c.consistency_check ? 1 : 0);
    VECTORS_ASSIGN_OR_RETURN(digest_, secagg::ConfigDigest(c));
    VECTORS_ASSIGN_OR_RETURN(const auto hashed, Sha256Of(input));
    if (hashed != digest_) return Mismatch("config_digest_input");
    out_["config_digest_input"] = Hex(input);
    out_["config_digest"] = Hex(digest_);
    return absl::OkStatus();
  }

  // Secret and public keys and the self-mask secret b from the states exported after Start (b is
  // drawn there), the commitment to b, the advertisement and its signature.
  absl::Status ClientKeys() {
    json clients = json::array();
    for (const RecordedClient& c : s_.clients) {
      const ClientSessionState& st = c.after_advertise;
      KeySet& k = keys_[c.id];
      k.c_private = st.c_private_key();
      k.s_private = st.s_private_key();
      VECTORS_ASSIGN_OR_RETURN(auto c_key,
                               crypto::X25519PrivateKey::FromBytes(ToBytes(k.c_private)));
      VECTORS_ASSIGN_OR_RETURN(auto s_key,
                               crypto::X25519PrivateKey::FromBytes(ToBytes(k.s_private)));
      k.c_public =
          std::string(c_key.public_key().bytes().begin(), c_key.public_key().bytes().end());
      k.s_public =
          std::string(s_key.public_key().bytes().begin(), s_key.public_key().bytes().end());
      const std::vector<const RecordedMessage*> advertise = Find("AdvertiseKeys", false, c.id);
      if (advertise.size() != 1) return Mismatch("number of AdvertiseKeys messages");
      const fedmf::v1::secagg::AdvertiseKeys& m = advertise[0]->client_message.advertise_keys();
      if (m.c_public_key() != k.c_public || m.s_public_key() != k.s_public) {
        return Mismatch("advertised public keys");
      }
      const ByteVector b = ToBytes(st.self_mask_secret());
      if (b.size() != crypto::kShamirSecretSize) return Mismatch("self_mask_secret size");
      self_mask_secrets_[c.id] = b;
      // SHA-256(label || config digest || u32 id || b), by hand and by the library.
      ByteVector commitment_input;
      Append(commitment_input, secagg::kLabelSelfMaskCommitment);
      Append(commitment_input, digest_);
      AppendU32(commitment_input, c.id);
      Append(commitment_input, b);
      VECTORS_ASSIGN_OR_RETURN(const secagg::Commitment commitment,
                               secagg::SelfMaskCommitment(digest_, c.id, b));
      VECTORS_ASSIGN_OR_RETURN(const auto hashed, Sha256Of(commitment_input));
      if (hashed != commitment) return Mismatch("self_mask_commitment_input");
      if (ToBytes(commitment) != ToBytes(m.self_mask_commitment())) {
        return Mismatch("self_mask_commitment");
      }
      commitments_[c.id] = commitment;
      const ByteVector message = secagg::AdvertisementMessage(
          digest_, c.id, c_key.public_key().bytes(), s_key.public_key().bytes(), commitment);
      VECTORS_ASSIGN_OR_RETURN(auto signing,
                               crypto::Ed25519PrivateKey::FromSeed(ToBytes(c.signing_seed)));
      VECTORS_ASSIGN_OR_RETURN(const crypto::Ed25519Signature signature, signing.Sign(message));
      if (ToBytes(signature) != ToBytes(m.signature())) return Mismatch("advertise_signature");
      if (Hex(signing.public_key().bytes()) != Hex(c.signing_public_key)) {
        return Mismatch("signing_public_key");
      }
      json j;
      j["id"] = c.id;
      j["signing_key_seed"] = Hex(c.signing_seed);
      j["signing_public_key"] = Hex(c.signing_public_key);
      j["c_private_key"] = Hex(k.c_private);
      j["c_public_key"] = Hex(k.c_public);
      j["s_private_key"] = Hex(k.s_private);
      j["s_public_key"] = Hex(k.s_public);
      j["self_mask_secret"] = Hex(b);
      j["self_mask_commitment_input"] = Hex(commitment_input);
      j["self_mask_commitment"] = Hex(commitment);
      j["advertise_message"] = Hex(message);
      j["advertise_signature"] = Hex(m.signature());
      clients.push_back(std::move(j));
    }
    out_["clients"] = std::move(clients);
    return absl::OkStatus();
  }

  absl::Status SessionId() {
    // U1: the clients listed in the ShareKeysRequests (the complete graph lists all of U1).
    const std::vector<const RecordedMessage*> requests = Find("ShareKeys", true);
    if (requests.empty()) return Mismatch("ShareKeysRequest count");
    for (const RecordedMessage* r : requests) {
      const fedmf::v1::secagg::ShareKeysRequest& m = r->server_message.share_keys();
      if (ToBytes(m.session_id()) != ToBytes(s_.session_id)) return Mismatch("request's sid");
      std::vector<uint32_t>& hood = neighborhood_[r->client];
      for (const fedmf::v1::secagg::ClientKeys& k : m.clients()) {
        // Each member's advertisement as it sent it, commitment included (it is signed).
        const std::vector<const RecordedMessage*> sent =
            Find("AdvertiseKeys", false, k.client_id());
        if (sent.size() != 1 || k.keys().SerializeAsString() !=
                                    sent[0]->client_message.advertise_keys().SerializeAsString()) {
          return Mismatch("forwarded advertisement");
        }
        hood.push_back(k.client_id());
      }
      for (uint32_t id : hood) advertised_.insert(id);
      num_advertised_ = m.num_advertised();
    }
    ByteVector input;
    Append(input, secagg::kLabelSessionId);
    Append(input, digest_);
    AppendU32(input, num_advertised_);
    for (uint32_t id : advertised_) {
      AppendU32(input, id);
      Append(input, ToBytes(keys_.at(id).c_public));
      Append(input, ToBytes(keys_.at(id).s_public));
    }
    VECTORS_ASSIGN_OR_RETURN(const auto hashed, Sha256Of(input));
    if (hashed != s_.session_id) return Mismatch("session_id_input");
    out_["advertised"] = Ids({advertised_.begin(), advertised_.end()});
    out_["session_id_input"] = Hex(input);
    out_["session_id"] = Hex(s_.session_id);
    return absl::OkStatus();
  }

  // share_key and pairwise_seed (with their X25519 secrets and HKDF info) and the pairwise mask
  // of every pair of neighbors.
  absl::Status Pairs() {
    json pairs = json::array();
    for (const auto& [lo, hood] : neighborhood_) {
      for (uint32_t hi : hood) {
        if (hi <= lo) continue;
        const KeySet& a = keys_.at(lo);
        const KeySet& b = keys_.at(hi);
        VECTORS_ASSIGN_OR_RETURN(auto c_lo,
                                 crypto::X25519PrivateKey::FromBytes(ToBytes(a.c_private)));
        VECTORS_ASSIGN_OR_RETURN(auto s_lo,
                                 crypto::X25519PrivateKey::FromBytes(ToBytes(a.s_private)));
        VECTORS_ASSIGN_OR_RETURN(auto c_hi_pub,
                                 crypto::X25519PublicKey::FromBytes(ToBytes(b.c_public)));
        VECTORS_ASSIGN_OR_RETURN(auto s_hi_pub,
                                 crypto::X25519PublicKey::FromBytes(ToBytes(b.s_public)));
        VECTORS_ASSIGN_OR_RETURN(crypto::SecretBytes c_shared, c_lo.ComputeSharedSecret(c_hi_pub));
        VECTORS_ASSIGN_OR_RETURN(crypto::SecretBytes s_shared, s_lo.ComputeSharedSecret(s_hi_pub));
        const ByteVector share_info =
            PairInfo(secagg::kLabelShareKey, lo, hi, a.c_public, b.c_public);
        const ByteVector seed_info =
            PairInfo(secagg::kLabelPairwiseMask, lo, hi, a.s_public, b.s_public);
        VECTORS_ASSIGN_OR_RETURN(
            crypto::SecretBytes share_key,
            crypto::HkdfSha256(c_shared.span(), s_.session_id, share_info, 32));
        VECTORS_ASSIGN_OR_RETURN(crypto::SecretBytes seed,
                                 crypto::HkdfSha256(s_shared.span(), s_.session_id, seed_info, 32));
        VECTORS_ASSIGN_OR_RETURN(crypto::SecretBytes library_seed,
                                 secagg::PairwiseMaskSeed(s_lo, lo, s_hi_pub, hi, s_.session_id));
        if (seed != library_seed) return Mismatch("pairwise_seed");
        VECTORS_ASSIGN_OR_RETURN(std::vector<uint64_t> mask,
                                 crypto::ExpandMask(seed.span(), s_.config.bits, s_.config.length));
        json j;
        j["lo"] = lo;
        j["hi"] = hi;
        j["c_shared_secret"] = Hex(c_shared.span());
        j["share_key_info"] = Hex(share_info);
        j["share_key"] = Hex(share_key.span());
        j["s_shared_secret"] = Hex(s_shared.span());
        j["pairwise_seed_info"] = Hex(seed_info);
        j["pairwise_seed"] = Hex(seed.span());
        j["pairwise_mask"] = Values(mask);
        pairs.push_back(std::move(j));
        pairs_[{lo, hi}] = Pair{ToBytes(share_key.span()), std::move(mask)};
      }
    }
    out_["pairs"] = std::move(pairs);
    return absl::OkStatus();
  }

  const Pair& PairOf(uint32_t a, uint32_t b) const {
    return pairs_.at({std::min(a, b), std::max(a, b)});
  }

  // Every ShareKeysResponse ciphertext, its associated data and its plaintext (decrypted with the
  // recorded share_key and checked against the receiver's stored shares when it got them).
  absl::Status Shares() {
    json shares = json::array();
    for (const RecordedMessage* r : Find("ShareKeys", false)) {
      const uint32_t sender = r->client;
      shared_.insert(sender);
      for (const fedmf::v1::secagg::EncryptedShares& e : r->client_message.share_keys().shares()) {
        const uint32_t receiver = e.peer_id();
        const ByteVector ad = secagg::ShareAssociatedData(s_.session_id, sender, receiver);
        VECTORS_ASSIGN_OR_RETURN(auto aead,
                                 crypto::Aes256Gcm::Create(PairOf(sender, receiver).share_key));
        VECTORS_ASSIGN_OR_RETURN(crypto::SecretBytes payload,
                                 aead.Decrypt(ToBytes(e.ciphertext()), ad));
        VECTORS_ASSIGN_OR_RETURN(secagg::SharePayload decoded,
                                 secagg::DecodeSharePayload(payload, sender, receiver));
        const RecordedClient& holder = ClientOf(receiver);
        if (holder.sent_masked_input) {
          const ClientSessionState::Neighbor* n = NeighborIn(holder.after_masked_input, sender);
          if (n == nullptr || !n->shared() ||
              ToBytes(n->key_share()) != ToBytes(decoded.key_share.span()) ||
              ToBytes(n->self_mask_share()) != ToBytes(decoded.self_mask_share.span()) ||
              ToBytes(n->key_share_salt()) != ToBytes(decoded.key_share_salt.span()) ||
              ToBytes(n->self_mask_share_salt()) != ToBytes(decoded.self_mask_share_salt.span())) {
            return Mismatch("decrypted shares and the receiver's stored shares");
          }
        }
        held_[{sender, receiver}] = {ToBytes(decoded.key_share.span()),
                                     ToBytes(decoded.self_mask_share.span())};
        salts_[{sender, receiver}] = {ToBytes(decoded.key_share_salt.span()),
                                      ToBytes(decoded.self_mask_share_salt.span())};
        json j;
        j["sender"] = sender;
        j["receiver"] = receiver;
        j["associated_data"] = Hex(ad);
        j["payload"] = Hex(payload.span());
        j["ciphertext"] = Hex(e.ciphertext());
        for (const secagg::SharedSecret secret :
             {secagg::SharedSecret::kMaskingKey, secagg::SharedSecret::kSelfMask}) {
          const bool key = secret == secagg::SharedSecret::kMaskingKey;
          const crypto::SecretBytes& share = key ? decoded.key_share : decoded.self_mask_share;
          const crypto::SecretBytes& salt =
              key ? decoded.key_share_salt : decoded.self_mask_share_salt;
          const std::string& sent = key ? e.key_share_commitment() : e.self_mask_share_commitment();
          ByteVector input;
          Append(input, secagg::kLabelShareCommitment);
          Append(input, s_.session_id);
          AppendU32(input, sender);
          AppendU32(input, receiver);
          input.push_back(static_cast<uint8_t>(secret));
          Append(input, share.span());
          Append(input, salt.span());
          VECTORS_ASSIGN_OR_RETURN(
              const secagg::Commitment commitment,
              secagg::ShareCommitment(s_.session_id, sender, receiver, secret, share.span(),
                                      salt.span()));
          VECTORS_ASSIGN_OR_RETURN(const auto by_hand, Sha256Of(input));
          if (commitment != by_hand || ToBytes(commitment) != ToBytes(sent)) {
            return Mismatch(key ? "key_share_commitment" : "self_mask_share_commitment");
          }
          const std::string name = key ? "key_share_commitment" : "self_mask_share_commitment";
          j[name + "_input"] = Hex(input);
          j[name] = Hex(commitment);
        }
        shares.push_back(std::move(j));
      }
    }
    out_["shared_keys"] = Ids({shared_.begin(), shared_.end()});
    out_["share_ciphertexts"] = std::move(shares);
    return absl::OkStatus();
  }

  const RecordedClient& ClientOf(uint32_t id) const {
    return *std::find_if(s_.clients.begin(), s_.clients.end(),
                         [id](const RecordedClient& c) { return c.id == id; });
  }

  static const ClientSessionState::Neighbor* NeighborIn(const ClientSessionState& st, uint32_t id) {
    for (const ClientSessionState::Neighbor& n : st.neighbors()) {
      if (n.id() == id) return &n;
    }
    return nullptr;
  }

  // For each owner in U2 and each of its two secrets: the secret, and every holder's share with
  // its Shamir index (position in N[owner] + 1); any t of them rebuild the secret.
  absl::Status Shamir() {
    json out = json::array();
    for (uint32_t owner : shared_) {
      const RecordedClient& c = ClientOf(owner);
      const ClientSessionState& st = c.after_share_keys;
      const ClientSessionState::Neighbor* self = NeighborIn(st, owner);
      if (self == nullptr) return Mismatch("own neighbor entry");
      held_[{owner, owner}] = {ToBytes(self->key_share()), ToBytes(self->self_mask_share())};
      // The b it shares is the b it committed to when it advertised.
      if (ToBytes(st.self_mask_secret()) != self_mask_secrets_.at(owner)) {
        return Mismatch("self_mask_secret shared and self_mask_secret committed");
      }
      secrets_[owner] = {ToBytes(keys_.at(owner).s_private), ToBytes(st.self_mask_secret())};
      const std::vector<uint32_t>& hood = neighborhood_.at(owner);
      for (int kind = 0; kind < 2; ++kind) {
        const ByteVector& secret = kind == 0 ? secrets_[owner].first : secrets_[owner].second;
        std::vector<crypto::ShamirShare> all;
        json holders = json::array();
        for (size_t i = 0; i < hood.size(); ++i) {
          const auto& pair = held_.at({owner, hood[i]});
          const ByteVector& share = kind == 0 ? pair.first : pair.second;
          all.push_back({static_cast<uint32_t>(i + 1), crypto::SecretBytes(share)});
          holders.push_back({{"holder", hood[i]}, {"index", i + 1}, {"share", Hex(share)}});
        }
        const crypto::ShamirParams params{s_.config.threshold, static_cast<int>(hood.size())};
        // t consecutive holders from each holder on, wrapping (for n = 3, t = 2: every pair).
        for (size_t a = 0; a < all.size(); ++a) {
          std::vector<crypto::ShamirShare> some;
          for (int k = 0; k < params.threshold; ++k) {
            some.push_back(
                {all[(a + k) % all.size()].index, all[(a + k) % all.size()].value.Clone()});
          }
          VECTORS_ASSIGN_OR_RETURN(crypto::SecretBytes rebuilt,
                                   crypto::ShamirReconstruct(some, params));
          if (ToBytes(rebuilt.span()) != secret) return Mismatch("Shamir reconstruction");
        }
        json j;
        j["owner"] = owner;
        j["secret"] = kind == 0 ? "s_private_key" : "self_mask_secret";
        j["value"] = Hex(secret);
        j["threshold"] = params.threshold;
        j["num_shares"] = params.num_shares;
        j["shares"] = std::move(holders);
        out.push_back(std::move(j));
      }
    }
    out_["shamir"] = std::move(out);
    return absl::OkStatus();
  }

  // Per client: input, self_mask_seed and self mask, and (if sent) the masked input, checked
  // against x + self mask + pairwise masks, with the neighbors it reported unusable shares of
  // (none: Shares() decrypted and decoded every ciphertext).
  absl::Status MaskedInputs() {
    const int bits = s_.config.bits;
    const size_t d = s_.config.length;
    for (json& j : out_["clients"]) {
      const uint32_t id = j["id"].get<uint32_t>();
      const RecordedClient& c = ClientOf(id);
      VECTORS_ASSIGN_OR_RETURN(std::vector<uint64_t> unpacked,
                               secagg::UnpackVector(ToBytes(c.after_advertise.input()), d, bits));
      if (unpacked != c.input) return Mismatch("input_packed");
      j["input"] = Values(c.input);
      j["input_packed"] = Hex(c.after_advertise.input());
      if (!secrets_.contains(id)) continue;
      ByteVector info;
      Append(info, secagg::kLabelSelfMask);
      AppendU32(info, id);
      VECTORS_ASSIGN_OR_RETURN(crypto::SecretBytes seed,
                               secagg::SelfMaskSeed(secrets_[id].second, id, s_.session_id));
      VECTORS_ASSIGN_OR_RETURN(crypto::SecretBytes by_hand,
                               crypto::HkdfSha256(secrets_[id].second, s_.session_id, info, 32));
      if (seed != by_hand) return Mismatch("self_mask_seed");
      VECTORS_ASSIGN_OR_RETURN(std::vector<uint64_t> self_mask,
                               crypto::ExpandMask(seed.span(), bits, d));
      j["self_mask_seed_info"] = Hex(info);
      j["self_mask_seed"] = Hex(seed.span());
      j["self_mask"] = Values(self_mask);
      self_masks_[id] = self_mask;
      const std::vector<const RecordedMessage*> request = Find("MaskedInput", true, id);
      if (request.empty()) continue;
      std::vector<uint32_t> senders;
      for (const auto& e : request[0]->server_message.masked_input().shares()) {
        senders.push_back(e.peer_id());
      }
      const std::vector<const RecordedMessage*> reply = Find("MaskedInput", false, id);
      if (reply.size() != 1) return Mismatch("MaskedInput count");
      const fedmf::v1::secagg::MaskedInput& sent = reply[0]->client_message.masked_input();
      const std::string& packed = sent.packed();
      // The reported neighbors are those its state marks unusable; in these sessions none.
      const std::vector<uint32_t> reported(sent.unusable_shares_from().begin(),
                                           sent.unusable_shares_from().end());
      std::vector<uint32_t> unusable;
      for (const ClientSessionState::Neighbor& n : c.after_masked_input.neighbors()) {
        if (n.unusable()) unusable.push_back(n.id());
      }
      if (reported != unusable || !reported.empty()) return Mismatch("unusable_shares_from");
      VECTORS_ASSIGN_OR_RETURN(std::vector<uint64_t> y,
                               secagg::UnpackVector(ToBytes(packed), d, bits));
      std::vector<uint64_t> expected = c.input;
      for (size_t i = 0; i < d; ++i) expected[i] = (expected[i] + self_mask[i]) & mask_;
      for (uint32_t v : senders) {
        const std::vector<uint64_t>& m = PairOf(id, v).mask;
        for (size_t i = 0; i < d; ++i) {
          expected[i] = (id < v ? expected[i] + m[i] : expected[i] - m[i]) & mask_;
        }
      }
      if (expected != y) return Mismatch("masked_input");
      j["masked_with"] = Ids(senders);
      j["masked_input"] = Values(y);
      j["masked_input_packed"] = Hex(packed);
      j["unusable_shares_from"] = Ids(reported);
      masked_inputs_[id] = std::move(y);
    }
    return absl::OkStatus();
  }

  absl::Status Consistency() {
    const std::vector<const RecordedMessage*> requests = Find("ConsistencyCheck", true);
    if (requests.empty()) return absl::OkStatus();
    const auto& ids = requests[0]->server_message.consistency_check().survivor_ids();
    const std::vector<uint32_t> survivors(ids.begin(), ids.end());
    const ByteVector message = secagg::SurvivorListMessage(s_.session_id, survivors);
    json signatures = json::array();
    for (const RecordedMessage* r : Find("ConsistencyCheck", false)) {
      const std::string& signature = r->client_message.consistency_check().signature();
      VECTORS_ASSIGN_OR_RETURN(auto signing, crypto::Ed25519PrivateKey::FromSeed(
                                                 ToBytes(ClientOf(r->client).signing_seed)));
      VECTORS_ASSIGN_OR_RETURN(const crypto::Ed25519Signature expected, signing.Sign(message));
      if (ToBytes(expected) != ToBytes(signature)) return Mismatch("survivor signature");
      signatures.push_back({{"client_id", r->client}, {"signature", Hex(signature)}});
    }
    out_["consistency_check"] = {{"survivor_ids", Ids(survivors)},
                                 {"survivors_message", Hex(message)},
                                 {"signatures", std::move(signatures)}};
    return absl::OkStatus();
  }

  // The requests and responses, the secrets the server rebuilds from the first t shares of each
  // owner (in arrival order) and checks (b against the owner's commitment, s_SK against its s_pk:
  // honest shares pass, so the server needs no error-correcting decode), the masks it removes and
  // the sum.
  absl::Status Unmasking() {
    json requests = json::array();
    for (const RecordedMessage* r : Find("Unmasking", true)) {
      const auto& m = r->server_message.unmasking();
      json signers = json::array();
      for (const auto& sig : m.signatures()) signers.push_back(sig.client_id());
      requests.push_back({{"client", r->client},
                          {"dropped_ids", Ids({m.dropped_ids().begin(), m.dropped_ids().end()})},
                          {"signers", std::move(signers)}});
    }
    json responses = json::array();
    std::map<uint32_t, std::vector<crypto::ShamirShare>> first_t;
    std::map<uint32_t, std::vector<uint32_t>> first_t_holders;
    std::map<uint32_t, bool> is_key;
    const char* mismatch = nullptr;
    for (const RecordedMessage* r : Find("Unmasking", false)) {
      const auto& m = r->client_message.unmasking();
      auto list = [&](const auto& shares, bool key) {
        json out = json::array();
        for (const auto& s : shares) {
          out.push_back(
              {{"owner_id", s.owner_id()}, {"share", Hex(s.share())}, {"salt", Hex(s.salt())}});
          // The salt the holder got with the share (none for its own), so that the server's
          // check against the owner's commitment passes.
          const auto salts = salts_.find({s.owner_id(), r->client});
          const ByteVector expected_salt =
              salts == salts_.end() ? ByteVector{}
                                    : (key ? salts->second.first : salts->second.second);
          if (ToBytes(s.salt()) != expected_salt) mismatch = "revealed salt";
          const std::vector<uint32_t>& hood = neighborhood_.at(s.owner_id());
          const size_t position = static_cast<size_t>(
              std::lower_bound(hood.begin(), hood.end(), r->client) - hood.begin());
          auto& kept = first_t[s.owner_id()];
          is_key[s.owner_id()] = key;
          if (kept.size() < static_cast<size_t>(s_.config.threshold)) {
            kept.push_back(
                {static_cast<uint32_t>(position + 1), crypto::SecretBytes(ToBytes(s.share()))});
            first_t_holders[s.owner_id()].push_back(r->client);
          }
        }
        return out;
      };
      json self_shares = list(m.self_mask_shares(), false);
      json key_shares = list(m.key_shares(), true);
      responses.push_back({{"client", r->client},
                           {"self_mask_shares", std::move(self_shares)},
                           {"key_shares", std::move(key_shares)}});
    }
    if (mismatch != nullptr) return Mismatch(mismatch);
    json rebuilt = json::array();
    std::vector<uint64_t> sum(s_.config.length, 0);
    for (const auto& [id, y] : masked_inputs_) {
      for (size_t i = 0; i < sum.size(); ++i) sum[i] = (sum[i] + y[i]) & mask_;
    }
    const std::vector<uint64_t> sum_of_masked = sum;
    json removed = json::array();
    for (const auto& [owner, shares] : first_t) {
      const crypto::ShamirParams params{s_.config.threshold,
                                        static_cast<int>(neighborhood_.at(owner).size())};
      VECTORS_ASSIGN_OR_RETURN(crypto::SecretBytes secret,
                               crypto::ShamirReconstruct(shares, params));
      const ByteVector& expected =
          is_key[owner] ? secrets_.at(owner).first : secrets_.at(owner).second;
      if (ToBytes(secret.span()) != expected) return Mismatch("rebuilt secret");
      if (is_key[owner]) {
        VECTORS_ASSIGN_OR_RETURN(auto key, crypto::X25519PrivateKey::FromBytes(secret.span()));
        if (ToBytes(key.public_key().bytes()) != ToBytes(keys_.at(owner).s_public)) {
          return Mismatch("rebuilt s private key and s_public_key");
        }
      } else {
        VECTORS_ASSIGN_OR_RETURN(const secagg::Commitment commitment,
                                 secagg::SelfMaskCommitment(digest_, owner, secret.span()));
        if (commitment != commitments_.at(owner)) {
          return Mismatch("rebuilt self_mask_secret and self_mask_commitment");
        }
      }
      json indices = json::array();
      for (const crypto::ShamirShare& s : shares) indices.push_back(s.index);
      rebuilt.push_back({{"owner", owner},
                         {"secret", is_key[owner] ? "s_private_key" : "self_mask_secret"},
                         {"holders", Ids(first_t_holders[owner])},
                         {"indices", std::move(indices)},
                         {"value", Hex(secret.span())}});
      if (!is_key[owner]) {
        const std::vector<uint64_t>& m = self_masks_.at(owner);
        for (size_t i = 0; i < sum.size(); ++i) sum[i] = (sum[i] - m[i]) & mask_;
        removed.push_back({{"mask", "self"}, {"owner", owner}, {"op", "subtract"}});
        continue;
      }
      for (uint32_t v : neighborhood_.at(owner)) {
        if (!masked_inputs_.contains(v)) continue;
        const std::vector<uint64_t>& m = PairOf(owner, v).mask;
        // v added the mask if v < owner, subtracted it otherwise: undo that.
        for (size_t i = 0; i < sum.size(); ++i) {
          sum[i] = (v < owner ? sum[i] - m[i] : sum[i] + m[i]) & mask_;
        }
        removed.push_back({{"mask", "pairwise"},
                           {"dropped", owner},
                           {"survivor", v},
                           {"op", v < owner ? "subtract" : "add"}});
      }
    }
    std::vector<uint64_t> inputs(s_.config.length, 0);
    for (uint32_t id : s_.included) {
      for (size_t i = 0; i < inputs.size(); ++i)
        inputs[i] = (inputs[i] + ClientOf(id).input[i]) & mask_;
    }
    if (sum != s_.sum || inputs != s_.sum) return Mismatch("sum");
    out_["included"] = Ids(s_.included);
    out_["unmasking"] = {{"requests", std::move(requests)},
                         {"responses", std::move(responses)},
                         {"rebuilt", std::move(rebuilt)},
                         {"sum_of_masked_inputs", Values(sum_of_masked)},
                         {"removed_masks", std::move(removed)}};
    out_["sum"] = Values(s_.sum);
    return absl::OkStatus();
  }

  // Every message as serialized protobuf (secagg.proto's ClientToServer / ServerToClient).
  void Messages() {
    json messages = json::array();
    for (const RecordedMessage& m : s_.messages) {
      messages.push_back({{"stage", m.stage},
                          {"direction", m.from_server ? "server_to_client" : "client_to_server"},
                          {"client", m.client},
                          {"type", m.from_server ? "fedmf.v1.secagg.ServerToClient"
                                                 : "fedmf.v1.secagg.ClientToServer"},
                          {"bytes", Hex(m.from_server ? m.server_message.SerializeAsString()
                                                      : m.client_message.SerializeAsString())}});
    }
    out_["messages"] = std::move(messages);
  }

  const RecordedSession& s_;
  const uint64_t mask_;
  json out_;
  std::array<uint8_t, 32> digest_{};
  std::map<uint32_t, KeySet> keys_;
  std::map<uint32_t, ByteVector> self_mask_secrets_;        // b, drawn at Start
  std::map<uint32_t, secagg::Commitment> commitments_;      // its self_mask_commitment
  std::map<uint32_t, std::vector<uint32_t>> neighborhood_;  // N[u] from u's ShareKeysRequest
  std::set<uint32_t> advertised_;                           // U1
  uint32_t num_advertised_ = 0;
  std::set<uint32_t> shared_;                            // U2
  std::map<std::pair<uint32_t, uint32_t>, Pair> pairs_;  // (lo, hi)
  // (owner, holder) -> (share of s_SK, share of b), and the salts of their commitments (holders
  // other than the owner).
  std::map<std::pair<uint32_t, uint32_t>, std::pair<ByteVector, ByteVector>> held_;
  std::map<std::pair<uint32_t, uint32_t>, std::pair<ByteVector, ByteVector>> salts_;
  std::map<uint32_t, std::pair<ByteVector, ByteVector>> secrets_;  // owner -> (s_SK, b)
  std::map<uint32_t, std::vector<uint64_t>> self_masks_;
  std::map<uint32_t, std::vector<uint64_t>> masked_inputs_;  // U3
};

}  // namespace

absl::StatusOr<nlohmann::ordered_json> SessionVectors(const RecordedSession& session,
                                                      absl::string_view name,
                                                      absl::string_view description) {
  Builder builder(session);
  return builder.Build(name, description);
}

}  // namespace fedmf::secagg_vectors

#undef VECTORS_ASSIGN_OR_RETURN_IMPL
#undef VECTORS_ASSIGN_OR_RETURN
#undef VECTORS_CONCAT
#undef VECTORS_CONCAT_INNER
#undef VECTORS_RETURN_IF_ERROR
