// HKDF with HMAC-SHA256 (RFC 5869), on OpenSSL's EVP_MAC "HMAC". The output is key material and
// is returned in a wiped-on-destruction buffer.
//
// Intended use in secure aggregation: ikm = an X25519 shared secret (or a random seed),
// salt = the session id (hash of all advertised keys), info = a fixed purpose label plus the
// sender and receiver ids, so every AEAD key and PRG seed is bound to one session, one pair of
// clients and one purpose. Encode `info` unambiguously (fixed-width or length-prefixed fields).
#ifndef FEDMF_CRYPTO_HKDF_H_
#define FEDMF_CRYPTO_HKDF_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "crypto/secret_bytes.h"

namespace fedmf::crypto {

inline constexpr size_t kHkdfSha256PrkSize = 32;
// RFC 5869 section 2.3: L <= 255 * HashLen.
inline constexpr size_t kHkdfSha256MaxOutputSize = 255 * 32;

// HKDF-Extract then HKDF-Expand: `out_size` bytes of output keying material. An empty salt means
// the RFC default (32 zero bytes). kInvalidArgument for an empty ikm or unless
// 1 <= out_size <= 8160.
absl::StatusOr<SecretBytes> HkdfSha256(absl::Span<const uint8_t> ikm,
                                       absl::Span<const uint8_t> salt,
                                       absl::Span<const uint8_t> info, size_t out_size);

// HKDF-Extract alone: the 32-byte pseudorandom key PRK = HMAC-SHA256(salt, ikm). kInvalidArgument
// for an empty ikm.
absl::StatusOr<SecretBytes> HkdfSha256Extract(absl::Span<const uint8_t> ikm,
                                              absl::Span<const uint8_t> salt);

// HKDF-Expand alone from a PRK of at least 32 bytes. kInvalidArgument for a shorter PRK or an
// out_size outside [1, 8160].
absl::StatusOr<SecretBytes> HkdfSha256Expand(absl::Span<const uint8_t> prk,
                                             absl::Span<const uint8_t> info, size_t out_size);

}  // namespace fedmf::crypto

#endif  // FEDMF_CRYPTO_HKDF_H_
