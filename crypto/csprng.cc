#include "crypto/csprng.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <algorithm>
#include <climits>

#include "crypto/openssl_util.h"

namespace fedmf::crypto {

absl::Status RandomBytes(absl::Span<uint8_t> out) {
  // RAND_bytes takes an int length: feed larger requests in pieces.
  for (size_t done = 0; done < out.size();) {
    const size_t n = std::min<size_t>(out.size() - done, INT_MAX);
    if (RAND_bytes(out.data() + done, static_cast<int>(n)) != 1) {
      OPENSSL_cleanse(out.data(), out.size());
      return internal::OpenSslError("RAND_bytes");
    }
    done += n;
  }
  return absl::OkStatus();
}

absl::StatusOr<SecretBytes> RandomSecretBytes(size_t size) {
  SecretBytes secret(size);
  if (absl::Status s = RandomBytes(secret.mutable_span()); !s.ok()) return s;
  return secret;
}

}  // namespace fedmf::crypto
