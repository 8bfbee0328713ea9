// Arithmetic in the prime field GF(p), p = 2^61 - 1 (a Mersenne prime), on uint64_t values in
// [0, p). Reduction is shifts and adds (2^61 = 1 mod p), so a product costs one 64x64->128
// multiply. Used by Shamir secret sharing; inputs outside [0, p) give unspecified results.
#ifndef FEDMF_CRYPTO_MERSENNE61_H_
#define FEDMF_CRYPTO_MERSENNE61_H_

#include <cstdint>

namespace fedmf::crypto {

inline constexpr uint64_t kMersenne61 = (uint64_t{1} << 61) - 1;

// Reduces any x < 2^64 to [0, p).
constexpr uint64_t ReduceMersenne61(uint64_t x) {
  x = (x & kMersenne61) + (x >> 61);  // < 2^61 + 8
  return x >= kMersenne61 ? x - kMersenne61 : x;
}

constexpr uint64_t AddModMersenne61(uint64_t a, uint64_t b) {
  const uint64_t s = a + b;  // < 2^62
  return s >= kMersenne61 ? s - kMersenne61 : s;
}

constexpr uint64_t SubModMersenne61(uint64_t a, uint64_t b) {
  return a >= b ? a - b : a + kMersenne61 - b;
}

constexpr uint64_t MulModMersenne61(uint64_t a, uint64_t b) {
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;  // < 2^122
  const uint64_t lo = static_cast<uint64_t>(product) & kMersenne61;
  const uint64_t hi = static_cast<uint64_t>(product >> 61);  // < 2^61
  const uint64_t s = lo + hi;                                // < 2^62
  return s >= kMersenne61 ? s - kMersenne61 : s;
}

// a^e mod p.
constexpr uint64_t PowModMersenne61(uint64_t a, uint64_t e) {
  uint64_t result = 1;
  while (e != 0) {
    if (e & 1) result = MulModMersenne61(result, a);
    a = MulModMersenne61(a, a);
    e >>= 1;
  }
  return result;
}

// a^-1 mod p for a != 0 (Fermat: a^(p-2)); returns 0 for a = 0.
constexpr uint64_t InvModMersenne61(uint64_t a) { return PowModMersenne61(a, kMersenne61 - 2); }

}  // namespace fedmf::crypto

#endif  // FEDMF_CRYPTO_MERSENNE61_H_
