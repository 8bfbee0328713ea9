// Every byte string the SecAgg protocol hashes, signs, encrypts or derives keys from, in one place
// so that client and server cannot disagree: the session id, the pairwise AEAD keys and associated
// data, the mask seeds, the encrypted share payload and the signed messages. Integers are
// little-endian and fixed-width; labels are distinct ASCII strings ("fedmf/secagg/v1/..."), so no
// two purposes share an input. Specification: docs/protocol.md, "Key derivation".
#ifndef FEDMF_CRYPTO_SECAGG_DERIVATION_H_
#define FEDMF_CRYPTO_SECAGG_DERIVATION_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "crypto/aead.h"
#include "crypto/openssl_util.h"
#include "crypto/secret_bytes.h"
#include "crypto/shamir.h"
#include "crypto/x25519.h"

namespace fedmf::secagg {

inline constexpr absl::string_view kLabelConfig = "fedmf/secagg/v1/config";
inline constexpr absl::string_view kLabelSessionId = "fedmf/secagg/v1/session-id";
inline constexpr absl::string_view kLabelShareKey = "fedmf/secagg/v1/share-key";
inline constexpr absl::string_view kLabelPairwiseMask = "fedmf/secagg/v1/pairwise-mask";
inline constexpr absl::string_view kLabelSelfMask = "fedmf/secagg/v1/self-mask";
inline constexpr absl::string_view kLabelHarary = "fedmf/secagg/v1/harary-permutation";
inline constexpr absl::string_view kLabelAdvertise = "fedmf/secagg/v1/advertise";
inline constexpr absl::string_view kLabelSurvivors = "fedmf/secagg/v1/survivors";
inline constexpr absl::string_view kLabelSelfMaskCommitment =
    "fedmf/secagg/v1/self-mask-commitment";
inline constexpr absl::string_view kLabelShareCommitment = "fedmf/secagg/v1/share-commitment";

inline constexpr size_t kSessionIdSize = 32;
using SessionId = std::array<uint8_t, kSessionIdSize>;
using PublicKeyBytes = std::array<uint8_t, crypto::kX25519KeySize>;
inline constexpr size_t kCommitmentSize = 32;
using Commitment = std::array<uint8_t, kCommitmentSize>;

// Incremental SHA-256 (OpenSSL EVP). Finish() is kInternal if any OpenSSL call failed.
class Sha256 {
 public:
  Sha256();
  void Update(absl::Span<const uint8_t> bytes);
  void Update(absl::string_view text);
  void UpdateU32(uint32_t v);
  void UpdateU64(uint64_t v);
  absl::StatusOr<std::array<uint8_t, 32>> Finish();

 private:
  crypto::internal::EvpMdCtxPtr ctx_;
  bool ok_ = true;
};

// SHA-256 of `bytes` in one call (a model's content hash); kInternal if OpenSSL failed.
absl::StatusOr<std::array<uint8_t, 32>> Sha256Of(absl::string_view bytes);

// sid = SHA-256(label || config digest || u32 n1 || for each client in ascending id:
// u32 id || c_pk || s_pk). Add() must be called in ascending id order (kInvalidArgument otherwise,
// from Finish()).
class SessionIdBuilder {
 public:
  SessionIdBuilder(const std::array<uint8_t, 32>& config_digest, uint32_t num_clients);
  void Add(uint32_t id, const PublicKeyBytes& c_public, const PublicKeyBytes& s_public);
  absl::StatusOr<SessionId> Finish();

 private:
  Sha256 hash_;
  uint32_t expected_ = 0;
  uint32_t added_ = 0;
  bool ordered_ = true;
  bool any_ = false;
  uint32_t last_id_ = 0;
};

// The AEAD that carries Shamir shares between clients a and b (either direction): AES-256-GCM
// keyed by HKDF(ikm = X25519(own c key, peer c key), salt = sid, info = label || u32 lo id ||
// u32 hi id || c_pk(lo) || c_pk(hi)). kInvalidArgument if the peer key is a low-order point.
absl::StatusOr<crypto::Aes256Gcm> ShareChannel(const crypto::X25519PrivateKey& own_c,
                                               uint32_t own_id,
                                               const crypto::X25519PublicKey& peer_c,
                                               uint32_t peer_id, const SessionId& sid);

// Associated data of a share ciphertext: sid || u32 sender || u32 receiver.
std::vector<uint8_t> ShareAssociatedData(const SessionId& sid, uint32_t sender, uint32_t receiver);

// The PRG seed of the pairwise mask of clients a and b: HKDF(ikm = X25519(own s key, peer s key),
// salt = sid, info = label || u32 lo id || u32 hi id || s_pk(lo) || s_pk(hi)), 32 bytes. The
// server calls it with a dropped client's reconstructed key as `own_s`.
absl::StatusOr<crypto::SecretBytes> PairwiseMaskSeed(const crypto::X25519PrivateKey& own_s,
                                                     uint32_t own_id,
                                                     const crypto::X25519PublicKey& peer_s,
                                                     uint32_t peer_id, const SessionId& sid);

// The PRG seed of client `id`'s self mask from its 32-byte secret b: HKDF(ikm = b, salt = sid,
// info = label || u32 id), 32 bytes.
absl::StatusOr<crypto::SecretBytes> SelfMaskSeed(absl::Span<const uint8_t> self_mask_secret,
                                                 uint32_t id, const SessionId& sid);

// A client's commitment to its self-mask secret b, sent (and signed) with its advertisement so
// that the server can tell a b rebuilt from honest shares from one rebuilt from false ones:
// SHA-256(label || config digest || u32 id || b). b is 32 uniformly random bytes, so the hash
// hides it.
absl::StatusOr<Commitment> SelfMaskCommitment(const std::array<uint8_t, 32>& config_digest,
                                              uint32_t id,
                                              absl::Span<const uint8_t> self_mask_secret);

// A dealer's two secrets, each Shamir-shared among its closed neighborhood.
enum class SharedSecret : uint8_t { kMaskingKey = 1, kSelfMask = 2 };

// The salt of a share commitment: 32 random bytes the dealer sends with the share, so that the
// commitment hides the share until its holder reveals both.
inline constexpr size_t kShareSaltSize = 32;

// The dealer's commitment to the share of `secret` it deals to `holder`, sent to the server with
// the share's ciphertext (ShareKeys) and forwarded with it to the holder, who checks it: a share
// revealed at Unmasking is then checked on its own, so a false reveal convicts its revealer and
// never the dealer (docs/protocol.md, "Misbehaving clients"). SHA-256(label || sid || u32 dealer ||
// u32 holder || u8 secret || share (40) || salt (32)).
absl::StatusOr<Commitment> ShareCommitment(const SessionId& sid, uint32_t dealer, uint32_t holder,
                                           SharedSecret secret, absl::Span<const uint8_t> share,
                                           absl::Span<const uint8_t> salt);

// What one share ciphertext carries: the holder's share of each secret and its commitment salt.
struct SharePayload {
  crypto::SecretBytes key_share;             // 40 bytes
  crypto::SecretBytes self_mask_share;       // 40 bytes
  crypto::SecretBytes key_share_salt;        // 32 bytes
  crypto::SecretBytes self_mask_share_salt;  // 32 bytes
};

// Plaintext of one share ciphertext: u32 sender || u32 receiver || share of the s private key (40)
// || share of the self-mask secret b (40) || salt of the key share (32) || salt of the b share
// (32).
inline constexpr size_t kSharePayloadSize = 8 + 2 * crypto::kShamirShareSize + 2 * kShareSaltSize;
inline constexpr size_t kShareCiphertextSize = kSharePayloadSize + crypto::Aes256Gcm::kOverhead;

// Fields shorter than their size are zero-padded, longer ones cut (the caller's shares are
// always of the right size).
crypto::SecretBytes EncodeSharePayload(uint32_t sender, uint32_t receiver,
                                       const SharePayload& shares);

// kInvalidArgument unless `payload` is kSharePayloadSize bytes naming exactly sender -> receiver.
absl::StatusOr<SharePayload> DecodeSharePayload(const crypto::SecretBytes& payload, uint32_t sender,
                                                uint32_t receiver);

// Signed by a client over its advertisement: label || config digest || u32 id || c_pk || s_pk ||
// self-mask commitment.
std::vector<uint8_t> AdvertisementMessage(const std::array<uint8_t, 32>& config_digest, uint32_t id,
                                          const PublicKeyBytes& c_public,
                                          const PublicKeyBytes& s_public,
                                          const Commitment& self_mask_commitment);

// Signed in the consistency check: label || sid || u32 count || u32 id for each survivor.
std::vector<uint8_t> SurvivorListMessage(const SessionId& sid,
                                         absl::Span<const uint32_t> survivors);

// The 32-byte seed of the Harary graph permutation: HKDF(ikm = sid, info = label).
absl::StatusOr<crypto::SecretBytes> HararySeed(const SessionId& sid);

}  // namespace fedmf::secagg

#endif  // FEDMF_CRYPTO_SECAGG_DERIVATION_H_
