// Internal helpers for the OpenSSL-backed primitives: owning pointers for EVP objects and the
// conversion of OpenSSL's thread-local error queue into an absl::Status.
#ifndef FEDMF_CRYPTO_OPENSSL_UTIL_H_
#define FEDMF_CRYPTO_OPENSSL_UTIL_H_

#include <openssl/evp.h>

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace fedmf::crypto::internal {

template <typename T, void (*Free)(T*)>
struct OpenSslDeleter {
  void operator()(T* p) const { Free(p); }
};

using EvpPkeyPtr = std::unique_ptr<EVP_PKEY, OpenSslDeleter<EVP_PKEY, EVP_PKEY_free>>;
using EvpPkeyCtxPtr =
    std::unique_ptr<EVP_PKEY_CTX, OpenSslDeleter<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using EvpMdCtxPtr = std::unique_ptr<EVP_MD_CTX, OpenSslDeleter<EVP_MD_CTX, EVP_MD_CTX_free>>;
using EvpCipherCtxPtr =
    std::unique_ptr<EVP_CIPHER_CTX, OpenSslDeleter<EVP_CIPHER_CTX, EVP_CIPHER_CTX_free>>;
using EvpMacCtxPtr = std::unique_ptr<EVP_MAC_CTX, OpenSslDeleter<EVP_MAC_CTX, EVP_MAC_CTX_free>>;

// kInternal status "<what> failed: <OpenSSL error strings>". Drains this thread's error queue so
// that later calls do not report stale errors.
absl::Status OpenSslError(absl::string_view what);

// Empties this thread's OpenSSL error queue (after an expected failure, e.g. a bad tag).
void ClearOpenSslErrors();

// Algorithms fetched once from the default provider and cached for the life of the process
// (explicit fetching avoids a provider lookup on every operation). nullptr if unavailable.
const EVP_CIPHER* Aes256Gcm();
const EVP_CIPHER* Aes256Ctr();
EVP_MAC* Hmac();

}  // namespace fedmf::crypto::internal

#endif  // FEDMF_CRYPTO_OPENSSL_UTIL_H_
