#include "crypto/x25519.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"

namespace fedmf::crypto {
namespace {

absl::Status CheckKeySize(const char* what, size_t size) {
  if (size != kX25519KeySize) {
    return absl::InvalidArgumentError(
        absl::StrFormat("X25519 %s is %d bytes, need %d", what, size, kX25519KeySize));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<X25519PublicKey> X25519PublicKey::FromBytes(absl::Span<const uint8_t> bytes) {
  if (absl::Status s = CheckKeySize("public key", bytes.size()); !s.ok()) return s;
  std::array<uint8_t, kX25519KeySize> b;
  std::copy(bytes.begin(), bytes.end(), b.begin());
  return X25519PublicKey(b);
}

namespace {

internal::EvpPkeyPtr ImportPublicKey(const std::array<uint8_t, kX25519KeySize>& bytes) {
  return internal::EvpPkeyPtr(
      EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nullptr, bytes.data(), bytes.size()));
}

}  // namespace

absl::StatusOr<X25519PublicKey> X25519PublicKey::Imported() const {
  X25519PublicKey out(bytes_);
  out.imported_ = std::shared_ptr<EVP_PKEY>(ImportPublicKey(bytes_).release(), EVP_PKEY_free);
  if (out.imported_ == nullptr) return internal::OpenSslError("X25519 public key import");
  return out;
}

absl::StatusOr<X25519PrivateKey> X25519PrivateKey::Generate() {
  internal::EvpPkeyPtr pkey(EVP_PKEY_Q_keygen(nullptr, nullptr, "X25519"));
  if (pkey == nullptr) return internal::OpenSslError("X25519 key generation");
  return FromPkey(std::move(pkey));
}

absl::StatusOr<X25519PrivateKey> X25519PrivateKey::FromBytes(absl::Span<const uint8_t> scalar) {
  if (absl::Status s = CheckKeySize("private key", scalar.size()); !s.ok()) return s;
  internal::EvpPkeyPtr pkey(
      EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nullptr, scalar.data(), scalar.size()));
  if (pkey == nullptr) return internal::OpenSslError("X25519 private key import");
  return FromPkey(std::move(pkey));
}

absl::StatusOr<X25519PrivateKey> X25519PrivateKey::FromPkey(internal::EvpPkeyPtr pkey) {
  SecretBytes scalar(kX25519KeySize);
  std::array<uint8_t, kX25519KeySize> pub;
  size_t scalar_len = scalar.size();
  size_t pub_len = pub.size();
  if (EVP_PKEY_get_raw_private_key(pkey.get(), scalar.data(), &scalar_len) != 1 ||
      EVP_PKEY_get_raw_public_key(pkey.get(), pub.data(), &pub_len) != 1 ||
      scalar_len != kX25519KeySize || pub_len != kX25519KeySize) {
    return internal::OpenSslError("X25519 key export");
  }
  return X25519PrivateKey(std::move(pkey), std::move(scalar), X25519PublicKey(pub));
}

absl::StatusOr<SecretBytes> X25519PrivateKey::ComputeSharedSecret(
    const X25519PublicKey& peer) const {
  internal::EvpPkeyPtr fresh;
  EVP_PKEY* peer_key = peer.imported_.get();
  if (peer_key == nullptr) {
    fresh = ImportPublicKey(peer.bytes());
    peer_key = fresh.get();
  }
  if (peer_key == nullptr) return internal::OpenSslError("X25519 public key import");
  internal::EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, pkey_.get(), nullptr));
  if (ctx == nullptr || EVP_PKEY_derive_init(ctx.get()) != 1) {
    return internal::OpenSslError("X25519 derive setup");
  }
  // Peer validation is our all-zero check below; OpenSSL's optional check adds nothing for X25519.
  if (EVP_PKEY_derive_set_peer_ex(ctx.get(), peer_key, /*validate_peer=*/0) != 1) {
    return internal::OpenSslError("X25519 set peer");
  }
  SecretBytes secret(kX25519SharedSecretSize);
  size_t len = secret.size();
  const int derived = EVP_PKEY_derive(ctx.get(), secret.data(), &len);
  static constexpr uint8_t kZeros[kX25519SharedSecretSize] = {};
  // OpenSSL itself fails the derivation on an all-zero result; check again so the contract does
  // not depend on that detail.
  if (derived != 1 || len != kX25519SharedSecretSize ||
      CRYPTO_memcmp(secret.data(), kZeros, kX25519SharedSecretSize) == 0) {
    internal::ClearOpenSslErrors();
    return absl::InvalidArgumentError(
        "X25519 agreement gave the all-zero secret: the peer public key is a low-order point");
  }
  return secret;
}

absl::Status CheckNotLowOrder(const X25519PublicKey& key) {
  static constexpr std::array<uint8_t, kX25519KeySize> kProbeScalar = {9};
  absl::StatusOr<X25519PrivateKey> probe = X25519PrivateKey::FromBytes(kProbeScalar);
  if (!probe.ok()) return probe.status();
  return probe->ComputeSharedSecret(key).status();
}

}  // namespace fedmf::crypto
