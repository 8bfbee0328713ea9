#include "common/dp/rng.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/status/status.h"

namespace fedmf::dp {
namespace {

// EVP fails here only when memory runs out; a noise generator that cannot run must not degrade
// into a predictable one, so this is fatal.
[[noreturn]] void Fatal(const char* what) {
  std::fprintf(stderr, "fedmf::dp::Rng: %s failed\n", what);
  std::abort();
}

}  // namespace

struct Rng::Cipher {
  EVP_CIPHER_CTX* ctx = nullptr;
  ~Cipher() { EVP_CIPHER_CTX_free(ctx); }  // also wipes the key schedule
};

Rng::Rng(const std::array<uint8_t, 32>& key) : cipher_(std::make_unique<Cipher>()) {
  cipher_->ctx = EVP_CIPHER_CTX_new();
  if (cipher_->ctx == nullptr) Fatal("EVP_CIPHER_CTX_new");
  const std::array<uint8_t, 16> counter{};  // the keystream starts at counter block 0
  if (EVP_EncryptInit_ex(cipher_->ctx, EVP_aes_256_ctr(), nullptr, key.data(), counter.data()) !=
      1) {
    Fatal("EVP_EncryptInit_ex");
  }
}

Rng::Rng(uint64_t seed) : Rng(seed, 0) {}

Rng::Rng(uint64_t seed, uint64_t stream)
    : Rng([seed, stream] {
        std::array<uint8_t, 32> key{};
        for (int i = 0; i < 8; ++i) {
          key[i] = static_cast<uint8_t>(seed >> (8 * i));
          key[8 + i] = static_cast<uint8_t>(stream >> (8 * i));
        }
        return key;
      }()) {}

absl::StatusOr<Rng> Rng::FromOsEntropy() {
  std::array<uint8_t, 32> key;
  if (RAND_bytes(key.data(), static_cast<int>(key.size())) != 1) {
    return absl::UnavailableError("RAND_bytes failed: the OS CSPRNG could not key the noise Rng");
  }
  Rng rng(key);
  OPENSSL_cleanse(key.data(), key.size());
  return rng;
}

Rng::Rng(Rng&&) noexcept = default;
Rng& Rng::operator=(Rng&&) noexcept = default;

Rng::~Rng() { OPENSSL_cleanse(words_.data(), sizeof(words_)); }

void Rng::Refill() {
  // Encrypting zeros yields the raw keystream.
  std::memset(words_.data(), 0, sizeof(words_));
  auto* bytes = reinterpret_cast<unsigned char*>(words_.data());
  int written = 0;
  if (EVP_EncryptUpdate(cipher_->ctx, bytes, &written, bytes, static_cast<int>(sizeof(words_))) !=
          1 ||
      written != static_cast<int>(sizeof(words_))) {
    Fatal("EVP_EncryptUpdate");
  }
  // Words are little-endian by definition; swap on big-endian hosts.
  if constexpr (std::endian::native == std::endian::big) {
    for (uint64_t& w : words_) w = __builtin_bswap64(w);
  }
  next_ = 0;
}

}  // namespace fedmf::dp
