#include "crypto/secagg/derivation.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_format.h"
#include "crypto/hkdf.h"

namespace fedmf::secagg {
namespace {

// Grows `out` by `n` bytes and copies them from `data` (resize + memcpy: GCC 12 at -O3 takes the
// range insert of a fixed-size array into an empty vector for an overflow, a false positive).
void AppendRaw(std::vector<uint8_t>& out, const void* data, size_t n) {
  if (n == 0) return;
  const size_t at = out.size();
  out.resize(at + n);
  std::memcpy(out.data() + at, data, n);
}

void AppendU32(std::vector<uint8_t>& out, uint32_t v) {
  const uint8_t bytes[4] = {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8),
                            static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 24)};
  AppendRaw(out, bytes, sizeof bytes);
}

void Append(std::vector<uint8_t>& out, absl::Span<const uint8_t> bytes) {
  AppendRaw(out, bytes.data(), bytes.size());
}

void Append(std::vector<uint8_t>& out, absl::string_view text) {
  AppendRaw(out, text.data(), text.size());
}

uint32_t LoadU32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// info = label || u32 lo id || u32 hi id || key(lo) || key(hi), for a symmetric pair derivation.
std::vector<uint8_t> PairInfo(absl::string_view label, uint32_t id_a, const PublicKeyBytes& key_a,
                              uint32_t id_b, const PublicKeyBytes& key_b) {
  const bool a_first = id_a < id_b;
  std::vector<uint8_t> info;
  info.reserve(label.size() + 8 + 64);
  Append(info, label);
  AppendU32(info, a_first ? id_a : id_b);
  AppendU32(info, a_first ? id_b : id_a);
  Append(info, a_first ? key_a : key_b);
  Append(info, a_first ? key_b : key_a);
  return info;
}

absl::StatusOr<crypto::SecretBytes> PairSecret(const crypto::X25519PrivateKey& own, uint32_t own_id,
                                               const crypto::X25519PublicKey& peer,
                                               uint32_t peer_id, const SessionId& sid,
                                               absl::string_view label) {
  if (own_id == peer_id) {
    return absl::InvalidArgumentError(absl::StrFormat("pair key of client %d with itself", own_id));
  }
  absl::StatusOr<crypto::SecretBytes> shared = own.ComputeSharedSecret(peer);
  if (!shared.ok()) {
    return absl::InvalidArgumentError(absl::StrFormat("key agreement of clients %d and %d: %s",
                                                      own_id, peer_id, shared.status().message()));
  }
  const std::vector<uint8_t> info =
      PairInfo(label, own_id, own.public_key().bytes(), peer_id, peer.bytes());
  return crypto::HkdfSha256(shared->span(), sid, info, 32);
}

}  // namespace

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  ok_ = ctx_ != nullptr && EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) == 1;
}

void Sha256::Update(absl::Span<const uint8_t> bytes) {
  if (ok_ && !bytes.empty()) ok_ = EVP_DigestUpdate(ctx_.get(), bytes.data(), bytes.size()) == 1;
}

void Sha256::Update(absl::string_view text) {
  Update(absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

void Sha256::UpdateU32(uint32_t v) {
  uint8_t b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
  Update(b);
}

void Sha256::UpdateU64(uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
  Update(b);
}

absl::StatusOr<std::array<uint8_t, 32>> Sha256::Finish() {
  std::array<uint8_t, 32> out{};
  unsigned int len = 0;
  if (!ok_ || EVP_DigestFinal_ex(ctx_.get(), out.data(), &len) != 1 || len != out.size()) {
    ok_ = false;
    return crypto::internal::OpenSslError("SHA-256");
  }
  ok_ = false;  // one digest per object
  return out;
}

absl::StatusOr<std::array<uint8_t, 32>> Sha256Of(absl::string_view bytes) {
  Sha256 hash;
  hash.Update(bytes);
  return hash.Finish();
}

SessionIdBuilder::SessionIdBuilder(const std::array<uint8_t, 32>& config_digest,
                                   uint32_t num_clients)
    : expected_(num_clients) {
  hash_.Update(kLabelSessionId);
  hash_.Update(config_digest);
  hash_.UpdateU32(num_clients);
}

void SessionIdBuilder::Add(uint32_t id, const PublicKeyBytes& c_public,
                           const PublicKeyBytes& s_public) {
  if (any_ && id <= last_id_) ordered_ = false;
  any_ = true;
  last_id_ = id;
  ++added_;
  hash_.UpdateU32(id);
  hash_.Update(c_public);
  hash_.Update(s_public);
}

absl::StatusOr<SessionId> SessionIdBuilder::Finish() {
  if (!ordered_ || added_ != expected_) {
    return absl::InvalidArgumentError(
        absl::StrFormat("session id: %d clients added (%d expected), ids ascending: %s", added_,
                        expected_, ordered_ ? "yes" : "no"));
  }
  return hash_.Finish();
}

absl::StatusOr<crypto::Aes256Gcm> ShareChannel(const crypto::X25519PrivateKey& own_c,
                                               uint32_t own_id,
                                               const crypto::X25519PublicKey& peer_c,
                                               uint32_t peer_id, const SessionId& sid) {
  absl::StatusOr<crypto::SecretBytes> key =
      PairSecret(own_c, own_id, peer_c, peer_id, sid, kLabelShareKey);
  if (!key.ok()) return key.status();
  return crypto::Aes256Gcm::Create(key->span());
}

std::vector<uint8_t> ShareAssociatedData(const SessionId& sid, uint32_t sender, uint32_t receiver) {
  std::vector<uint8_t> ad;
  ad.reserve(sid.size() + 8);
  Append(ad, sid);
  AppendU32(ad, sender);
  AppendU32(ad, receiver);
  return ad;
}

absl::StatusOr<crypto::SecretBytes> PairwiseMaskSeed(const crypto::X25519PrivateKey& own_s,
                                                     uint32_t own_id,
                                                     const crypto::X25519PublicKey& peer_s,
                                                     uint32_t peer_id, const SessionId& sid) {
  return PairSecret(own_s, own_id, peer_s, peer_id, sid, kLabelPairwiseMask);
}

absl::StatusOr<crypto::SecretBytes> SelfMaskSeed(absl::Span<const uint8_t> self_mask_secret,
                                                 uint32_t id, const SessionId& sid) {
  std::vector<uint8_t> info;
  Append(info, kLabelSelfMask);
  AppendU32(info, id);
  return crypto::HkdfSha256(self_mask_secret, sid, info, 32);
}

absl::StatusOr<Commitment> SelfMaskCommitment(const std::array<uint8_t, 32>& config_digest,
                                              uint32_t id,
                                              absl::Span<const uint8_t> self_mask_secret) {
  Sha256 hash;
  hash.Update(kLabelSelfMaskCommitment);
  hash.Update(config_digest);
  hash.UpdateU32(id);
  hash.Update(self_mask_secret);
  return hash.Finish();
}

absl::StatusOr<Commitment> ShareCommitment(const SessionId& sid, uint32_t dealer, uint32_t holder,
                                           SharedSecret secret, absl::Span<const uint8_t> share,
                                           absl::Span<const uint8_t> salt) {
  Sha256 hash;
  hash.Update(kLabelShareCommitment);
  hash.Update(sid);
  hash.UpdateU32(dealer);
  hash.UpdateU32(holder);
  const uint8_t kind = static_cast<uint8_t>(secret);
  hash.Update(absl::MakeConstSpan(&kind, 1));
  hash.Update(share);
  hash.Update(salt);
  return hash.Finish();
}

crypto::SecretBytes EncodeSharePayload(uint32_t sender, uint32_t receiver,
                                       const SharePayload& shares) {
  crypto::SecretBytes out(kSharePayloadSize);
  uint8_t* p = out.data();
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(sender >> (8 * i));
  for (int i = 0; i < 4; ++i) p[4 + i] = static_cast<uint8_t>(receiver >> (8 * i));
  size_t at = 8;
  auto put = [&](const crypto::SecretBytes& field, size_t size) {
    std::memcpy(p + at, field.data(), std::min(field.size(), size));
    at += size;
  };
  put(shares.key_share, crypto::kShamirShareSize);
  put(shares.self_mask_share, crypto::kShamirShareSize);
  put(shares.key_share_salt, kShareSaltSize);
  put(shares.self_mask_share_salt, kShareSaltSize);
  return out;
}

absl::StatusOr<SharePayload> DecodeSharePayload(const crypto::SecretBytes& payload, uint32_t sender,
                                                uint32_t receiver) {
  if (payload.size() != kSharePayloadSize) {
    return absl::InvalidArgumentError(
        absl::StrFormat("share payload from client %d is %d bytes, need %d", sender, payload.size(),
                        kSharePayloadSize));
  }
  const uint32_t named_sender = LoadU32(payload.data());
  const uint32_t named_receiver = LoadU32(payload.data() + 4);
  if (named_sender != sender || named_receiver != receiver) {
    return absl::InvalidArgumentError(
        absl::StrFormat("share payload from client %d to %d names %d -> %d", sender, receiver,
                        named_sender, named_receiver));
  }
  size_t at = 8;
  auto take = [&](size_t size) {
    crypto::SecretBytes field(payload.span().subspan(at, size));
    at += size;
    return field;
  };
  SharePayload out;
  out.key_share = take(crypto::kShamirShareSize);
  out.self_mask_share = take(crypto::kShamirShareSize);
  out.key_share_salt = take(kShareSaltSize);
  out.self_mask_share_salt = take(kShareSaltSize);
  return out;
}

std::vector<uint8_t> AdvertisementMessage(const std::array<uint8_t, 32>& config_digest, uint32_t id,
                                          const PublicKeyBytes& c_public,
                                          const PublicKeyBytes& s_public,
                                          const Commitment& self_mask_commitment) {
  std::vector<uint8_t> m;
  Append(m, kLabelAdvertise);
  Append(m, config_digest);
  AppendU32(m, id);
  Append(m, c_public);
  Append(m, s_public);
  Append(m, self_mask_commitment);
  return m;
}

std::vector<uint8_t> SurvivorListMessage(const SessionId& sid,
                                         absl::Span<const uint32_t> survivors) {
  std::vector<uint8_t> m;
  m.reserve(kLabelSurvivors.size() + sid.size() + 4 + 4 * survivors.size());
  Append(m, kLabelSurvivors);
  Append(m, sid);
  AppendU32(m, static_cast<uint32_t>(survivors.size()));
  for (uint32_t id : survivors) AppendU32(m, id);
  return m;
}

absl::StatusOr<crypto::SecretBytes> HararySeed(const SessionId& sid) {
  return crypto::HkdfSha256(
      sid, {},
      absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(kLabelHarary.data()),
                          kLabelHarary.size()),
      32);
}

}  // namespace fedmf::secagg
