// Ed25519 signatures (RFC 8032, pure EdDSA) over OpenSSL EVP_PKEY. Verification failures and
// malformed keys or signatures are kInvalidArgument, never a crash.
//
// In secure aggregation (Bonawitz et al., active-security variant) each client signs its
// advertised keys and, in the consistency check, the session id and the survivor set, with a
// long-term key whose public half the server cannot substitute.
#ifndef FEDMF_CRYPTO_ED25519_H_
#define FEDMF_CRYPTO_ED25519_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "crypto/openssl_util.h"
#include "crypto/secret_bytes.h"

namespace fedmf::crypto {

inline constexpr size_t kEd25519PublicKeySize = 32;
inline constexpr size_t kEd25519SeedSize = 32;
inline constexpr size_t kEd25519SignatureSize = 64;

using Ed25519Signature = std::array<uint8_t, kEd25519SignatureSize>;

class Ed25519PublicKey {
 public:
  // kInvalidArgument unless `bytes` is 32 bytes. A 32-byte string that is not a curve point is
  // accepted here and rejected by every Verify (OpenSSL decodes the point when verifying).
  static absl::StatusOr<Ed25519PublicKey> FromBytes(absl::Span<const uint8_t> bytes);

  const std::array<uint8_t, kEd25519PublicKeySize>& bytes() const { return bytes_; }
  friend bool operator==(const Ed25519PublicKey& a, const Ed25519PublicKey& b) {
    return a.bytes_ == b.bytes_;
  }

  // OK iff `signature` is a valid signature of `message` under this key. kInvalidArgument if the
  // signature is not 64 bytes, the key is not a valid point, or the signature does not verify.
  absl::Status Verify(absl::Span<const uint8_t> message, absl::Span<const uint8_t> signature) const;

 private:
  explicit Ed25519PublicKey(const std::array<uint8_t, kEd25519PublicKeySize>& b) : bytes_(b) {}
  friend class Ed25519PrivateKey;
  std::array<uint8_t, kEd25519PublicKeySize> bytes_;
};

// A signing key. Move-only; the seed is wiped on destruction.
class Ed25519PrivateKey {
 public:
  // A fresh key from OpenSSL's CSPRNG.
  static absl::StatusOr<Ed25519PrivateKey> Generate();
  // The key with the given 32-byte seed (RFC 8032 "secret key"). kInvalidArgument otherwise.
  static absl::StatusOr<Ed25519PrivateKey> FromSeed(absl::Span<const uint8_t> seed);

  const Ed25519PublicKey& public_key() const { return public_key_; }
  const SecretBytes& seed() const { return seed_; }

  // The deterministic RFC 8032 signature of `message`.
  absl::StatusOr<Ed25519Signature> Sign(absl::Span<const uint8_t> message) const;

 private:
  Ed25519PrivateKey(internal::EvpPkeyPtr pkey, SecretBytes seed, Ed25519PublicKey public_key)
      : pkey_(std::move(pkey)), seed_(std::move(seed)), public_key_(public_key) {}
  static absl::StatusOr<Ed25519PrivateKey> FromPkey(internal::EvpPkeyPtr pkey);

  internal::EvpPkeyPtr pkey_;
  SecretBytes seed_;
  Ed25519PublicKey public_key_;
};

}  // namespace fedmf::crypto

#endif  // FEDMF_CRYPTO_ED25519_H_
