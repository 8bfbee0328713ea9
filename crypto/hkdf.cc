#include "crypto/hkdf.h"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <algorithm>
#include <array>
#include <initializer_list>

#include "absl/strings/str_format.h"
#include "crypto/openssl_util.h"

namespace fedmf::crypto {
namespace {

constexpr size_t kHashSize = 32;

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

// A keyless HMAC-SHA256 context per thread, copied for every MAC: setting the digest by name
// fetches it, which cost as much as the hashing itself when done per call (as OpenSSL's own
// HKDF does through HMAC()). nullptr if OpenSSL fails.
const EVP_MAC_CTX* HmacSha256Template() {
  thread_local const internal::EvpMacCtxPtr ctx = []() -> internal::EvpMacCtxPtr {
    EVP_MAC* mac = internal::Hmac();
    if (mac == nullptr) return nullptr;
    internal::EvpMacCtxPtr c(EVP_MAC_CTX_new(mac));
    char digest[] = "SHA256";
    const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                                 OSSL_PARAM_construct_end()};
    if (c == nullptr || EVP_MAC_CTX_set_params(c.get(), params) != 1) return nullptr;
    return c;
  }();
  return ctx.get();
}

// out (32 bytes) = HMAC-SHA256(key, concatenation of parts); key is not empty.
absl::Status HmacSha256(absl::Span<const uint8_t> key,
                        std::initializer_list<absl::Span<const uint8_t>> parts, uint8_t* out) {
  const EVP_MAC_CTX* tmpl = HmacSha256Template();
  // The copy is freed (and its key-dependent state wiped by OpenSSL) when it goes out of scope.
  internal::EvpMacCtxPtr ctx(tmpl == nullptr ? nullptr
                                             : EVP_MAC_CTX_dup(const_cast<EVP_MAC_CTX*>(tmpl)));
  if (ctx == nullptr || EVP_MAC_init(ctx.get(), key.data(), key.size(), nullptr) != 1) {
    return internal::OpenSslError("HMAC-SHA256 init");
  }
  for (absl::Span<const uint8_t> part : parts) {
    if (!part.empty() && EVP_MAC_update(ctx.get(), part.data(), part.size()) != 1) {
      return internal::OpenSslError("HMAC-SHA256 update");
    }
  }
  size_t len = 0;
  if (EVP_MAC_final(ctx.get(), out, &len, kHashSize) != 1 || len != kHashSize) {
    return internal::OpenSslError("HMAC-SHA256 final");
  }
  return absl::OkStatus();
}

// RFC 5869 section 2.2; an empty salt is HashLen zero bytes.
absl::StatusOr<SecretBytes> Extract(absl::Span<const uint8_t> ikm, absl::Span<const uint8_t> salt) {
  static constexpr std::array<uint8_t, kHashSize> kZeroSalt{};
  SecretBytes prk(kHkdfSha256PrkSize);
  if (absl::Status s =
          HmacSha256(salt.empty() ? absl::MakeConstSpan(kZeroSalt) : salt, {ikm}, prk.data());
      !s.ok()) {
    return s;
  }
  return prk;
}

// RFC 5869 section 2.3: T(i) = HMAC(PRK, T(i-1) || info || i), the output their concatenation.
absl::StatusOr<SecretBytes> Expand(absl::Span<const uint8_t> prk, absl::Span<const uint8_t> info,
                                   size_t out_size) {
  SecretBytes out(out_size);
  SecretBytes block(kHashSize);
  for (size_t done = 0, i = 1; done < out_size; ++i) {
    const uint8_t counter = static_cast<uint8_t>(i);
    const absl::Span<const uint8_t> previous =
        i == 1 ? absl::Span<const uint8_t>() : absl::MakeConstSpan(block.data(), kHashSize);
    if (absl::Status s =
            HmacSha256(prk, {previous, info, absl::MakeConstSpan(&counter, 1)}, block.data());
        !s.ok()) {
      return s;
    }
    const size_t n = std::min(kHashSize, out_size - done);
    std::copy_n(block.data(), n, out.data() + done);
    done += n;
  }
  return out;
}

}  // namespace

absl::StatusOr<SecretBytes> HkdfSha256(absl::Span<const uint8_t> ikm,
                                       absl::Span<const uint8_t> salt,
                                       absl::Span<const uint8_t> info, size_t out_size) {
  if (absl::Status s = CheckIkm(ikm); !s.ok()) return s;
  if (absl::Status s = CheckOutSize(out_size); !s.ok()) return s;
  absl::StatusOr<SecretBytes> prk = Extract(ikm, salt);
  if (!prk.ok()) return prk.status();
  return Expand(prk->span(), info, out_size);
}

absl::StatusOr<SecretBytes> HkdfSha256Extract(absl::Span<const uint8_t> ikm,
                                              absl::Span<const uint8_t> salt) {
  if (absl::Status s = CheckIkm(ikm); !s.ok()) return s;
  return Extract(ikm, salt);
}

absl::StatusOr<SecretBytes> HkdfSha256Expand(absl::Span<const uint8_t> prk,
                                             absl::Span<const uint8_t> info, size_t out_size) {
  if (prk.size() < kHkdfSha256PrkSize) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "HKDF-SHA256 PRK is %d bytes, need at least %d", prk.size(), kHkdfSha256PrkSize));
  }
  if (absl::Status s = CheckOutSize(out_size); !s.ok()) return s;
  return Expand(prk, info, out_size);
}

}  // namespace fedmf::crypto
