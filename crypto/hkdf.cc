#include "crypto/hkdf.h"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include "absl/strings/str_format.h"
#include "crypto/openssl_util.h"

namespace fedmf::crypto {
namespace {

// OSSL_PARAM wants non-const pointers even for inputs it only reads.
void* Mutable(absl::Span<const uint8_t> s) { return const_cast<uint8_t*>(s.data()); }

absl::Status CheckIkm(absl::Span<const uint8_t> ikm) {
  if (ikm.empty()) return absl::InvalidArgumentError("HKDF-SHA256 input keying material is empty");
  return absl::OkStatus();
}

absl::Status CheckOutSize(size_t out_size) {
  if (out_size == 0 || out_size > kHkdfSha256MaxOutputSize) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "HKDF-SHA256 output size %d is outside [1, %d]", out_size, kHkdfSha256MaxOutputSize));
  }
  return absl::OkStatus();
}

absl::StatusOr<SecretBytes> Derive(int mode, absl::Span<const uint8_t> key,
                                   absl::Span<const uint8_t> salt, absl::Span<const uint8_t> info,
                                   size_t out_size) {
  EVP_KDF* kdf = internal::Hkdf();
  if (kdf == nullptr) return internal::OpenSslError("EVP_KDF_fetch(HKDF)");
  internal::EvpKdfCtxPtr ctx(EVP_KDF_CTX_new(kdf));
  if (ctx == nullptr) return internal::OpenSslError("EVP_KDF_CTX_new");

  char digest[] = "SHA256";
  OSSL_PARAM params[6];
  OSSL_PARAM* p = params;
  *p++ = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode);
  *p++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0);
  *p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, Mutable(key), key.size());
  // Empty salt and info are simply omitted: HKDF then uses the RFC defaults (zero salt, no info).
  if (!salt.empty()) {
    *p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, Mutable(salt), salt.size());
  }
  if (!info.empty()) {
    *p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, Mutable(info), info.size());
  }
  *p = OSSL_PARAM_construct_end();

  SecretBytes out(out_size);
  if (EVP_KDF_derive(ctx.get(), out.data(), out.size(), params) != 1) {
    return internal::OpenSslError("EVP_KDF_derive(HKDF-SHA256)");
  }
  return out;
}

}  // namespace

absl::StatusOr<SecretBytes> HkdfSha256(absl::Span<const uint8_t> ikm,
                                       absl::Span<const uint8_t> salt,
                                       absl::Span<const uint8_t> info, size_t out_size) {
  if (absl::Status s = CheckIkm(ikm); !s.ok()) return s;
  if (absl::Status s = CheckOutSize(out_size); !s.ok()) return s;
  return Derive(EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND, ikm, salt, info, out_size);
}

absl::StatusOr<SecretBytes> HkdfSha256Extract(absl::Span<const uint8_t> ikm,
                                              absl::Span<const uint8_t> salt) {
  if (absl::Status s = CheckIkm(ikm); !s.ok()) return s;
  return Derive(EVP_KDF_HKDF_MODE_EXTRACT_ONLY, ikm, salt, {}, kHkdfSha256PrkSize);
}

absl::StatusOr<SecretBytes> HkdfSha256Expand(absl::Span<const uint8_t> prk,
                                             absl::Span<const uint8_t> info, size_t out_size) {
  if (prk.size() < kHkdfSha256PrkSize) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "HKDF-SHA256 PRK is %d bytes, need at least %d", prk.size(), kHkdfSha256PrkSize));
  }
  if (absl::Status s = CheckOutSize(out_size); !s.ok()) return s;
  return Derive(EVP_KDF_HKDF_MODE_EXPAND_ONLY, prk, {}, info, out_size);
}

}  // namespace fedmf::crypto
