#include "crypto/openssl_util.h"

#include <openssl/err.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace fedmf::crypto::internal {

absl::Status OpenSslError(absl::string_view what) {
  std::string details;
  unsigned long code;  // NOLINT(runtime/int): OpenSSL's type.
  while ((code = ERR_get_error()) != 0) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof(buf));
    absl::StrAppend(&details, details.empty() ? "" : "; ", buf);
  }
  if (details.empty()) details = "no OpenSSL error reported";
  return absl::InternalError(absl::StrCat(what, " failed: ", details));
}

void ClearOpenSslErrors() { ERR_clear_error(); }

// The fetched objects are deliberately never freed: process-lifetime caches shared by all threads
// (fetching is thread-safe and each static is initialised once).
const EVP_CIPHER* Aes256Gcm() {
  static const EVP_CIPHER* const cipher = EVP_CIPHER_fetch(nullptr, "AES-256-GCM", nullptr);
  return cipher;
}

const EVP_CIPHER* Aes256Ctr() {
  static const EVP_CIPHER* const cipher = EVP_CIPHER_fetch(nullptr, "AES-256-CTR", nullptr);
  return cipher;
}

EVP_MAC* Hmac() {
  static EVP_MAC* const mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  return mac;
}

}  // namespace fedmf::crypto::internal
