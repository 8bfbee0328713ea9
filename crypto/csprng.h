// Cryptographically secure random bytes from OpenSSL's DRBG (RAND_bytes, seeded by the OS).
// This is the only source of randomness for keys, nonces and Shamir coefficients in fedmf_crypto.
#ifndef FEDMF_CRYPTO_CSPRNG_H_
#define FEDMF_CRYPTO_CSPRNG_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "crypto/secret_bytes.h"

namespace fedmf::crypto {

// Fills `out` with random bytes. kInternal if the DRBG fails (e.g. it cannot be seeded); `out` is
// then wiped rather than left partially filled.
absl::Status RandomBytes(absl::Span<uint8_t> out);

// `size` random bytes in a wiped-on-destruction buffer (for keys and seeds).
absl::StatusOr<SecretBytes> RandomSecretBytes(size_t size);

}  // namespace fedmf::crypto

#endif  // FEDMF_CRYPTO_CSPRNG_H_
