// AES-256-GCM authenticated encryption with associated data. Every Encrypt draws a fresh random
// 96-bit nonce from the CSPRNG; the output is nonce (12) || ciphertext || tag (16). Decrypt fails
// cleanly (kInvalidArgument, never a crash) on short input, a wrong key, a modified ciphertext or
// tag, or associated data that differs from the one used to encrypt.
//
// In secure aggregation the associated data binds each encrypted share to its context:
// session id || sender id || receiver id (fixed-width encoding), so the server cannot replay a
// ciphertext into another session or reroute it to another client. With random nonces, keep
// each key under 2^32 messages (NIST SP 800-38D section 8.3); a pairwise SecAgg key encrypts one.
#ifndef FEDMF_CRYPTO_AEAD_H_
#define FEDMF_CRYPTO_AEAD_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "crypto/secret_bytes.h"

namespace fedmf::crypto {

class Aes256Gcm {
 public:
  static constexpr size_t kKeySize = 32;
  static constexpr size_t kNonceSize = 12;
  static constexpr size_t kTagSize = 16;
  // Ciphertext size minus plaintext size.
  static constexpr size_t kOverhead = kNonceSize + kTagSize;

  // kInvalidArgument unless `key` is exactly 32 bytes. The key is copied into a SecretBytes.
  static absl::StatusOr<Aes256Gcm> Create(absl::Span<const uint8_t> key);

  // nonce || ciphertext || tag, of size plaintext.size() + kOverhead.
  absl::StatusOr<std::vector<uint8_t>> Encrypt(absl::Span<const uint8_t> plaintext,
                                               absl::Span<const uint8_t> associated_data) const;

  // The plaintext (in a wiped-on-destruction buffer), or kInvalidArgument if `ciphertext` is
  // shorter than kOverhead or does not authenticate under this key and `associated_data`.
  absl::StatusOr<SecretBytes> Decrypt(absl::Span<const uint8_t> ciphertext,
                                      absl::Span<const uint8_t> associated_data) const;

 private:
  explicit Aes256Gcm(SecretBytes key) : key_(std::move(key)) {}
  SecretBytes key_;
};

}  // namespace fedmf::crypto

#endif  // FEDMF_CRYPTO_AEAD_H_
