// X25519 Diffie-Hellman key agreement (RFC 7748) over OpenSSL EVP_PKEY. A shared secret is raw
// key material: feed it to HkdfSha256 (salt = session id) before use as a key or seed.
//
// In secure aggregation each client holds two key pairs: one whose agreements key the AEAD that
// carries Shamir shares, one whose agreements seed the pairwise masks. The masking private key
// is itself Shamir-shared (private_bytes()) and rebuilt by the server for dropped clients
// (FromBytes()).
#ifndef FEDMF_CRYPTO_X25519_H_
#define FEDMF_CRYPTO_X25519_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "crypto/openssl_util.h"
#include "crypto/secret_bytes.h"

namespace fedmf::crypto {

inline constexpr size_t kX25519KeySize = 32;
inline constexpr size_t kX25519SharedSecretSize = 32;

// A public u-coordinate, 32 bytes little-endian as on the wire. Any 32 bytes are accepted here
// (RFC 7748 section 5: the top bit is ignored); low-order points are caught by the agreement, or
// by CheckNotLowOrder.
class X25519PublicKey {
 public:
  // kInvalidArgument unless `bytes` is exactly 32 bytes.
  static absl::StatusOr<X25519PublicKey> FromBytes(absl::Span<const uint8_t> bytes);

  // The same key, imported into OpenSSL now, for a key that takes part in many agreements (the
  // SecAgg server's survivors, one agreement per dropped neighbor): agreements with it skip the
  // import, about an eighth of an agreement's cost. Copies share the import; an imported key may
  // be used by several threads at once. kInternal if OpenSSL fails.
  absl::StatusOr<X25519PublicKey> Imported() const;

  const std::array<uint8_t, kX25519KeySize>& bytes() const { return bytes_; }
  friend bool operator==(const X25519PublicKey& a, const X25519PublicKey& b) {
    return a.bytes_ == b.bytes_;
  }

 private:
  explicit X25519PublicKey(const std::array<uint8_t, kX25519KeySize>& b) : bytes_(b) {}
  friend class X25519PrivateKey;
  std::array<uint8_t, kX25519KeySize> bytes_;
  std::shared_ptr<EVP_PKEY> imported_;  // null until Imported()
};

// A private scalar with its public key. Move-only; the scalar is wiped on destruction.
class X25519PrivateKey {
 public:
  // A fresh key pair from OpenSSL's CSPRNG.
  static absl::StatusOr<X25519PrivateKey> Generate();
  // The key with the given 32-byte scalar (clamped by X25519 itself, RFC 7748 section 5).
  // kInvalidArgument for another length.
  static absl::StatusOr<X25519PrivateKey> FromBytes(absl::Span<const uint8_t> scalar);

  const X25519PublicKey& public_key() const { return public_key_; }
  // The 32-byte scalar as given to FromBytes (or generated): what gets Shamir-shared.
  const SecretBytes& private_bytes() const { return scalar_; }

  // X25519(own scalar, peer u-coordinate). kInvalidArgument if the result is all zeros, which
  // happens exactly when the peer key is a low-order point (RFC 7748 section 6.1): such a key
  // would make the "shared" secret known to everyone.
  absl::StatusOr<SecretBytes> ComputeSharedSecret(const X25519PublicKey& peer) const;

 private:
  X25519PrivateKey(internal::EvpPkeyPtr pkey, SecretBytes scalar, X25519PublicKey public_key)
      : pkey_(std::move(pkey)), scalar_(std::move(scalar)), public_key_(public_key) {}
  static absl::StatusOr<X25519PrivateKey> FromPkey(internal::EvpPkeyPtr pkey);

  internal::EvpPkeyPtr pkey_;
  SecretBytes scalar_;
  X25519PublicKey public_key_;
};

// OK unless `key` is a low-order point, whose agreement with every private key is all zeros
// (kInvalidArgument). For a party that relays keys without agreeing with them, e.g. a SecAgg
// server refusing such a key from the client that advertised it. Checked by one agreement with a
// fixed, public scalar: X25519 clamps every scalar to a multiple of the cofactor 8, so that
// agreement is all zeros exactly for the low-order points (RFC 7748 section 6.1).
absl::Status CheckNotLowOrder(const X25519PublicKey& key);

}  // namespace fedmf::crypto

#endif  // FEDMF_CRYPTO_X25519_H_
