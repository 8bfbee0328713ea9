// Rng: the statistical random generator of fedmf::dp. It is std::mt19937_64, whose output sequence
// is fixed by the C++ standard (reproducible across standard libraries), seeded by the caller:
// tests use a constant seed, production code uses FromOsEntropy() (OpenSSL RAND_bytes).
#ifndef FEDMF_COMMON_DP_RNG_H_
#define FEDMF_COMMON_DP_RNG_H_

#include <cstdint>
#include <limits>
#include <random>

#include "absl/status/statusor.h"

namespace fedmf::dp {

// Satisfies std::uniform_random_bit_generator with full 64-bit output, so every sampler in
// samplers.h accepts it. Not a CSPRNG: its state must stay on the device that draws the noise.
class Rng {
 public:
  using result_type = uint64_t;

  explicit Rng(uint64_t seed) : engine_(seed) {}
  // 256 bits from the OS CSPRNG, expanded by std::seed_seq (its algorithm is also standard).
  static absl::StatusOr<Rng> FromOsEntropy();

  Rng(const Rng&) = delete;
  Rng& operator=(const Rng&) = delete;
  Rng(Rng&&) = default;
  Rng& operator=(Rng&&) = default;
  ~Rng();  // wipes the engine state: it determines the noise that protects the user

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() { return engine_(); }

 private:
  explicit Rng(std::seed_seq& seq) : engine_(seq) {}
  std::mt19937_64 engine_;
};

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_RNG_H_
