#include "crypto/aead.h"

#include <openssl/evp.h>

#include <climits>
#include <cstring>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "crypto/csprng.h"
#include "crypto/openssl_util.h"

namespace fedmf::crypto {
namespace {

// EVP takes int lengths; GCM itself allows at most 2^36 - 32 bytes of plaintext.
constexpr size_t kMaxInputSize = INT_MAX - Aes256Gcm::kOverhead;

absl::Status CheckInputSize(absl::string_view what, size_t size) {
  if (size > kMaxInputSize) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "AES-256-GCM %s is %d bytes, more than the supported %d", what, size, kMaxInputSize));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Aes256Gcm> Aes256Gcm::Create(absl::Span<const uint8_t> key) {
  if (key.size() != kKeySize) {
    return absl::InvalidArgumentError(
        absl::StrFormat("AES-256-GCM key is %d bytes, need %d", key.size(), kKeySize));
  }
  return Aes256Gcm(SecretBytes(key));
}

absl::StatusOr<std::vector<uint8_t>> Aes256Gcm::Encrypt(
    absl::Span<const uint8_t> plaintext, absl::Span<const uint8_t> associated_data) const {
  if (absl::Status s = CheckInputSize("plaintext", plaintext.size()); !s.ok()) return s;
  if (absl::Status s = CheckInputSize("associated data", associated_data.size()); !s.ok()) {
    return s;
  }
  std::vector<uint8_t> out(kNonceSize + plaintext.size() + kTagSize);
  uint8_t* nonce = out.data();
  uint8_t* body = nonce + kNonceSize;
  uint8_t* tag = body + plaintext.size();
  if (absl::Status s = RandomBytes(absl::MakeSpan(nonce, kNonceSize)); !s.ok()) return s;

  const EVP_CIPHER* cipher = internal::Aes256Gcm();
  internal::EvpCipherCtxPtr ctx(EVP_CIPHER_CTX_new());
  if (cipher == nullptr || ctx == nullptr) return internal::OpenSslError("AES-256-GCM setup");
  int len = 0;
  // The default GCM IV length is 96 bits, so no EVP_CTRL_GCM_SET_IVLEN is needed.
  if (EVP_EncryptInit_ex2(ctx.get(), cipher, key_.data(), nonce, nullptr) != 1 ||
      (!associated_data.empty() &&
       EVP_EncryptUpdate(ctx.get(), nullptr, &len, associated_data.data(),
                         static_cast<int>(associated_data.size())) != 1) ||
      (!plaintext.empty() && EVP_EncryptUpdate(ctx.get(), body, &len, plaintext.data(),
                                               static_cast<int>(plaintext.size())) != 1) ||
      EVP_EncryptFinal_ex(ctx.get(), tag, &len) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagSize, tag) != 1) {
    return internal::OpenSslError("AES-256-GCM encryption");
  }
  return out;
}

absl::StatusOr<SecretBytes> Aes256Gcm::Decrypt(absl::Span<const uint8_t> ciphertext,
                                               absl::Span<const uint8_t> associated_data) const {
  if (ciphertext.size() < kOverhead) {
    return absl::InvalidArgumentError(
        absl::StrFormat("AES-256-GCM ciphertext is %d bytes, shorter than the %d-byte nonce + tag",
                        ciphertext.size(), kOverhead));
  }
  if (absl::Status s = CheckInputSize("ciphertext", ciphertext.size() - kOverhead); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckInputSize("associated data", associated_data.size()); !s.ok()) {
    return s;
  }
  const uint8_t* nonce = ciphertext.data();
  const size_t body_size = ciphertext.size() - kOverhead;
  const uint8_t* body = nonce + kNonceSize;
  uint8_t tag[kTagSize];  // EVP_CTRL_GCM_SET_TAG takes a non-const pointer.
  std::memcpy(tag, body + body_size, kTagSize);

  const EVP_CIPHER* cipher = internal::Aes256Gcm();
  internal::EvpCipherCtxPtr ctx(EVP_CIPHER_CTX_new());
  if (cipher == nullptr || ctx == nullptr) return internal::OpenSslError("AES-256-GCM setup");
  SecretBytes plaintext(body_size);
  int len = 0;
  if (EVP_DecryptInit_ex2(ctx.get(), cipher, key_.data(), nonce, nullptr) != 1 ||
      (!associated_data.empty() &&
       EVP_DecryptUpdate(ctx.get(), nullptr, &len, associated_data.data(),
                         static_cast<int>(associated_data.size())) != 1) ||
      (body_size > 0 && EVP_DecryptUpdate(ctx.get(), plaintext.data(), &len, body,
                                          static_cast<int>(body_size)) != 1) ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagSize, tag) != 1) {
    return internal::OpenSslError("AES-256-GCM decryption");
  }
  uint8_t final_block[16];
  if (EVP_DecryptFinal_ex(ctx.get(), final_block, &len) != 1) {
    internal::ClearOpenSslErrors();
    // `plaintext` holds unauthenticated data: its destructor wipes it.
    return absl::InvalidArgumentError(
        "AES-256-GCM decryption failed: the tag does not authenticate the ciphertext and "
        "associated data under this key");
  }
  return plaintext;
}

}  // namespace fedmf::crypto
