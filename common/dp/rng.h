// Rng: the random generator behind every noise sample of fedmf::dp. It is the AES-256-CTR keystream
// under a 256-bit key, read as little-endian 64-bit words: a keyed cryptographic PRG, so the noise
// that protects a user cannot be predicted from other outputs (unlike a Mersenne Twister), and a
// fixed function of the key, so tests and public-seed uses (projections) are reproducible
// everywhere. Production noise uses FromOsEntropy() (key from OpenSSL RAND_bytes).
#ifndef FEDMF_COMMON_DP_RNG_H_
#define FEDMF_COMMON_DP_RNG_H_

#include <array>
#include <cstdint>
#include <limits>
#include <memory>

#include "absl/status/statusor.h"

namespace fedmf::dp {

// Satisfies std::uniform_random_bit_generator with full 64-bit output, so every sampler in
// samplers.h accepts it.
class Rng {
 public:
  using result_type = uint64_t;

  // Key = the 8 little-endian bytes of `seed` followed by 24 zero bytes. For tests and public seeds
  // only: 64 bits of key are not a secret.
  explicit Rng(uint64_t seed);
  // Key = `seed` then `stream` (8 little-endian bytes each) then 16 zero bytes: distinct
  // (seed, stream) pairs give distinct keys, and Rng(seed, 0) is Rng(seed). For tests and
  // reproducible experiments only (e.g. one stream per participant id): not a secret either.
  Rng(uint64_t seed, uint64_t stream);
  static absl::StatusOr<Rng> FromOsEntropy();
  // Key = `key`: a secret key drawn from another Rng replays the same noise later (e.g. a
  // participant that must subtract, in a second phase, the noise it added in the first).
  static Rng FromKey(const std::array<uint8_t, 32>& key) { return Rng(key); }

  Rng(Rng&&) noexcept;
  Rng& operator=(Rng&&) noexcept;
  ~Rng();  // wipes key schedule and unread keystream: they determine the noise

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() {
    if (next_ == kWords) Refill();
    return words_[next_++];
  }

 private:
  static constexpr int kWords = 512;  // keystream drawn per AES call
  struct Cipher;

  explicit Rng(const std::array<uint8_t, 32>& key);
  void Refill();

  std::unique_ptr<Cipher> cipher_;
  std::array<uint64_t, kWords> words_{};
  int next_ = kWords;
};

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_RNG_H_
