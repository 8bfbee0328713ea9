#include "crypto/ed25519.h"

#include <openssl/evp.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"

namespace fedmf::crypto {
namespace {

// EVP_DigestSign/Verify may dereference the message pointer even for length 0, and an empty
// span's data() can be null.
const uint8_t* NonNull(absl::Span<const uint8_t> s) {
  static constexpr uint8_t kEmpty = 0;
  return s.data() != nullptr ? s.data() : &kEmpty;
}

}  // namespace

absl::StatusOr<Ed25519PublicKey> Ed25519PublicKey::FromBytes(absl::Span<const uint8_t> bytes) {
  if (bytes.size() != kEd25519PublicKeySize) {
    return absl::InvalidArgumentError(absl::StrFormat("Ed25519 public key is %d bytes, need %d",
                                                      bytes.size(), kEd25519PublicKeySize));
  }
  std::array<uint8_t, kEd25519PublicKeySize> b;
  std::copy(bytes.begin(), bytes.end(), b.begin());
  return Ed25519PublicKey(b);
}

absl::Status Ed25519PublicKey::Verify(absl::Span<const uint8_t> message,
                                      absl::Span<const uint8_t> signature) const {
  if (signature.size() != kEd25519SignatureSize) {
    return absl::InvalidArgumentError(absl::StrFormat("Ed25519 signature is %d bytes, need %d",
                                                      signature.size(), kEd25519SignatureSize));
  }
  internal::EvpPkeyPtr pkey(
      EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, bytes_.data(), bytes_.size()));
  internal::EvpMdCtxPtr ctx(EVP_MD_CTX_new());
  if (pkey == nullptr || ctx == nullptr ||
      EVP_DigestVerifyInit_ex(ctx.get(), nullptr, nullptr, nullptr, nullptr, pkey.get(), nullptr) !=
          1) {
    return internal::OpenSslError("Ed25519 verify setup");
  }
  if (EVP_DigestVerify(ctx.get(), signature.data(), signature.size(), NonNull(message),
                       message.size()) != 1) {
    internal::ClearOpenSslErrors();
    return absl::InvalidArgumentError("Ed25519 signature does not verify under this public key");
  }
  return absl::OkStatus();
}

absl::StatusOr<Ed25519PrivateKey> Ed25519PrivateKey::Generate() {
  internal::EvpPkeyPtr pkey(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  if (pkey == nullptr) return internal::OpenSslError("Ed25519 key generation");
  return FromPkey(std::move(pkey));
}

absl::StatusOr<Ed25519PrivateKey> Ed25519PrivateKey::FromSeed(absl::Span<const uint8_t> seed) {
  if (seed.size() != kEd25519SeedSize) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Ed25519 seed is %d bytes, need %d", seed.size(), kEd25519SeedSize));
  }
  internal::EvpPkeyPtr pkey(
      EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed.data(), seed.size()));
  if (pkey == nullptr) return internal::OpenSslError("Ed25519 private key import");
  return FromPkey(std::move(pkey));
}

absl::StatusOr<Ed25519PrivateKey> Ed25519PrivateKey::FromPkey(internal::EvpPkeyPtr pkey) {
  SecretBytes seed(kEd25519SeedSize);
  std::array<uint8_t, kEd25519PublicKeySize> pub;
  size_t seed_len = seed.size();
  size_t pub_len = pub.size();
  if (EVP_PKEY_get_raw_private_key(pkey.get(), seed.data(), &seed_len) != 1 ||
      EVP_PKEY_get_raw_public_key(pkey.get(), pub.data(), &pub_len) != 1 ||
      seed_len != kEd25519SeedSize || pub_len != kEd25519PublicKeySize) {
    return internal::OpenSslError("Ed25519 key export");
  }
  return Ed25519PrivateKey(std::move(pkey), std::move(seed), Ed25519PublicKey(pub));
}

absl::StatusOr<Ed25519Signature> Ed25519PrivateKey::Sign(absl::Span<const uint8_t> message) const {
  internal::EvpMdCtxPtr ctx(EVP_MD_CTX_new());
  Ed25519Signature signature;
  size_t len = signature.size();
  if (ctx == nullptr ||
      EVP_DigestSignInit_ex(ctx.get(), nullptr, nullptr, nullptr, nullptr, pkey_.get(), nullptr) !=
          1 ||
      EVP_DigestSign(ctx.get(), signature.data(), &len, NonNull(message), message.size()) != 1 ||
      len != kEd25519SignatureSize) {
    return internal::OpenSslError("Ed25519 signing");
  }
  return signature;
}

}  // namespace fedmf::crypto
