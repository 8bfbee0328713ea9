// Public-seed hash functions of fedmf::dp: SplitMix64 (Steele, Lea, Flood 2014), fully specified
// integer arithmetic, so every platform derives the same projection and sign patterns from a seed.
// They are statistical hashes of a PUBLIC seed, not PRFs: never feed them a secret.
#ifndef FEDMF_COMMON_DP_HASHING_H_
#define FEDMF_COMMON_DP_HASHING_H_

#include <cstdint>

namespace fedmf::dp {

// The SplitMix64 output function (a bijection of uint64).
constexpr uint64_t SplitMix64Finalize(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Output number j (0-based) of the SplitMix64 generator whose state starts at `key`.
constexpr uint64_t SplitMix64At(uint64_t key, uint64_t j) {
  return SplitMix64Finalize(key + (j + 1) * 0x9e3779b97f4a7c15ULL);
}

// Domain tags: one independent-looking stream per use of the same public seed.
inline constexpr uint64_t kTagProjectionBucket = 0x6275636b65742d68ULL;  // "bucket-h"
inline constexpr uint64_t kTagProjectionSign = 0x7369676e2d736967ULL;    // "sign-sig"
inline constexpr uint64_t kTagHadamardSign = 0x6861646d2d786921ULL;      // "hadm-xi!"
inline constexpr uint64_t kTagNoiseCommittee = 0x636f6d6d69747465ULL;    // "committe"

// Key of the stream `tag` of `seed`. Mixing (not just xor) keeps the streams of one seed from
// being shifted copies of each other.
constexpr uint64_t DeriveStreamKey(uint64_t seed, uint64_t tag) {
  return SplitMix64Finalize(seed ^ tag);
}

// floor(n * w / 2^64): maps a uniform 64-bit w to [0, n). Bias at most n / 2^64 per value
// (Lemire 2019); negligible for the dimensions used here.
inline uint64_t ReduceToRange(uint64_t w, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(w) * n) >> 64);
}

// +1 or -1 from the top bit of w.
constexpr int SignFromBits(uint64_t w) { return (w >> 63) ? -1 : 1; }

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_HASHING_H_
