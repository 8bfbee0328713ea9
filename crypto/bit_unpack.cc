#include "crypto/bit_unpack.h"

#include <cstring>
#include <type_traits>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define FEDMF_HAVE_AVX2_KERNEL 1
#endif

namespace fedmf::crypto::internal {
namespace {

inline uint64_t LoadLe64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

template <UnpackMode kMode, typename Word>
void Scalar(const uint8_t* packed, size_t first, size_t count, int bits, Word* out) {
  const Word mask = static_cast<Word>(LowBitsMask(bits));
  for (size_t i = 0; i < count; ++i) {
    const Word v = static_cast<Word>(ExtractBits(packed, first + i, bits));
    if constexpr (kMode == UnpackMode::kSet) {
      out[i] = v;
    } else if constexpr (kMode == UnpackMode::kAdd) {
      out[i] = static_cast<Word>(out[i] + v) & mask;
    } else {
      out[i] = static_cast<Word>(out[i] - v) & mask;
    }
  }
}

#ifdef FEDMF_HAVE_AVX2_KERNEL
constexpr int kMaxAvx2Bits = 56;

bool CpuHasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

#define FEDMF_AVX2 __attribute__((target("avx2")))

// Two 16-byte loads, at group + first and group + second, as the low and high lanes.
FEDMF_AVX2 inline __m256i LoadLanes(const uint8_t* group, int first, int second) {
  const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(group + first));
  const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(group + second));
  return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

// Applies a vector of values to the 256 bits at dst, with 64- or 32-bit lane arithmetic.
template <UnpackMode kMode, int kLaneBits>
FEDMF_AVX2 inline void ApplyVector(void* dst, __m256i v, __m256i mask) {
  __m256i* p = static_cast<__m256i*>(dst);
  if constexpr (kMode == UnpackMode::kSet) {
    _mm256_storeu_si256(p, v);
  } else {
    const __m256i old = _mm256_loadu_si256(p);
    __m256i r;
    if constexpr (kMode == UnpackMode::kAdd) {
      r = kLaneBits == 64 ? _mm256_add_epi64(old, v) : _mm256_add_epi32(old, v);
    } else {
      r = kLaneBits == 64 ? _mm256_sub_epi64(old, v) : _mm256_sub_epi32(old, v);
    }
    _mm256_storeu_si256(p, _mm256_and_si256(r, mask));
  }
}

// Eight values (one group) span exactly `bits` bytes. Value e starts at byte o_e = e*b/8, bit
// s_e = e*b%8, and s_e + b <= 63 for b <= 56, so one 64-bit lane holds it. Each 128-bit lane
// loads 16 bytes at o_e of its first value (e even) and shuffles the 8 bytes of e and e+1 into
// place (o_{e+1} - o_e <= 7), then a variable shift and a mask finish the extraction. For 32-bit
// words the two vectors of four 64-bit values are narrowed into one vector of eight.
template <UnpackMode kMode, typename Word>
FEDMF_AVX2 void Avx2Groups(const uint8_t* packed, size_t groups, int bits, Word* out) {
  int offset[4];
  alignas(32) uint8_t control[2][32];
  alignas(32) uint64_t shift[2][4];
  for (int pair = 0; pair < 4; ++pair) {
    const int first_bit = 2 * pair * bits;
    const int second_bit = first_bit + bits;
    offset[pair] = first_bit >> 3;
    const int delta = (second_bit >> 3) - offset[pair];
    uint8_t* c = control[pair / 2] + 16 * (pair % 2);
    for (int k = 0; k < 8; ++k) {
      c[k] = static_cast<uint8_t>(k);
      c[8 + k] = static_cast<uint8_t>(delta + k);
    }
    shift[pair / 2][2 * (pair % 2)] = static_cast<uint64_t>(first_bit & 7);
    shift[pair / 2][2 * (pair % 2) + 1] = static_cast<uint64_t>(second_bit & 7);
  }
  const __m256i control_lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(control[0]));
  const __m256i control_hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(control[1]));
  const __m256i shift_lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(shift[0]));
  const __m256i shift_hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(shift[1]));
  const __m256i mask = _mm256_set1_epi64x(static_cast<long long>(LowBitsMask(bits)));
  // Lanes [v0 v4 v1 v5 v2 v6 v3 v7] (32-bit) back into order.
  const __m256i order = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);

  const uint8_t* group = packed;
  for (size_t g = 0; g < groups; ++g, group += bits, out += 8) {
    __m256i lo = _mm256_shuffle_epi8(LoadLanes(group, offset[0], offset[1]), control_lo);
    __m256i hi = _mm256_shuffle_epi8(LoadLanes(group, offset[2], offset[3]), control_hi);
    lo = _mm256_and_si256(_mm256_srlv_epi64(lo, shift_lo), mask);
    hi = _mm256_and_si256(_mm256_srlv_epi64(hi, shift_hi), mask);
    if constexpr (std::is_same_v<Word, uint64_t>) {
      ApplyVector<kMode, 64>(out, lo, mask);
      ApplyVector<kMode, 64>(out + 4, hi, mask);
    } else {
      // Values fit in 32 bits: even 32-bit lanes from lo, odd ones from hi << 32.
      const __m256i mixed = _mm256_blend_epi32(lo, _mm256_slli_epi64(hi, 32), 0xaa);
      ApplyVector<kMode, 32>(out, _mm256_permutevar8x32_epi32(mixed, order),
                             _mm256_set1_epi32(static_cast<int>(LowBitsMask(bits))));
    }
  }
}

// 32-bit values into 32-bit words are the packed words themselves (little-endian): no shuffle,
// shift or mask, only the load, the lane add and the store, eight values at a time (the reduction
// mod 2^32 is the lanes' own wrap-around).
template <UnpackMode kMode>
FEDMF_AVX2 void Avx2Words32(const uint8_t* packed, size_t count, uint32_t* out) {
  const __m256i all = _mm256_set1_epi32(-1);
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(packed + 4 * i));
    ApplyVector<kMode, 32>(out + i, v, all);
  }
  Scalar<kMode>(packed, i, count - i, 32, out + i);
}
#endif  // FEDMF_HAVE_AVX2_KERNEL

template <UnpackMode kMode, typename Word>
void Unpack(const uint8_t* packed, size_t count, int bits, Word* out) {
#ifdef FEDMF_HAVE_AVX2_KERNEL
  if constexpr (std::is_same_v<Word, uint32_t>) {
    if (bits == 32 && UnpackBitsUsesSimd(bits)) return Avx2Words32<kMode>(packed, count, out);
  }
  if (UnpackBitsUsesSimd(bits)) {
    const size_t groups = count / 8;
    Avx2Groups<kMode>(packed, groups, bits, out);
    Scalar<kMode>(packed, groups * 8, count - groups * 8, bits, out + groups * 8);
    return;
  }
#endif
  Scalar<kMode>(packed, 0, count, bits, out);
}

}  // namespace

uint64_t ExtractBits(const uint8_t* packed, uint64_t i, int bits) {
  const uint64_t bit = i * static_cast<uint64_t>(bits);
  const uint8_t* p = packed + (bit >> 3);
  const unsigned s = static_cast<unsigned>(bit & 7);
  uint64_t v = LoadLe64(p) >> s;
  // Values wider than 57 bits can straddle nine bytes (then s > 0).
  if (s + static_cast<unsigned>(bits) > 64) v |= uint64_t{p[8]} << (64 - s);
  return v & LowBitsMask(bits);
}

bool UnpackBitsUsesSimd(int bits) {
#ifdef FEDMF_HAVE_AVX2_KERNEL
  return bits <= kMaxAvx2Bits && CpuHasAvx2();
#else
  (void)bits;
  return false;
#endif
}

template <typename Word>
void UnpackBits(UnpackMode mode, const uint8_t* packed, size_t count, int bits, Word* out) {
  switch (mode) {
    case UnpackMode::kSet:
      return Unpack<UnpackMode::kSet>(packed, count, bits, out);
    case UnpackMode::kAdd:
      return Unpack<UnpackMode::kAdd>(packed, count, bits, out);
    case UnpackMode::kSubtract:
      return Unpack<UnpackMode::kSubtract>(packed, count, bits, out);
  }
}

template <typename Word>
void UnpackBitsScalar(UnpackMode mode, const uint8_t* packed, size_t count, int bits, Word* out) {
  switch (mode) {
    case UnpackMode::kSet:
      return Scalar<UnpackMode::kSet>(packed, 0, count, bits, out);
    case UnpackMode::kAdd:
      return Scalar<UnpackMode::kAdd>(packed, 0, count, bits, out);
    case UnpackMode::kSubtract:
      return Scalar<UnpackMode::kSubtract>(packed, 0, count, bits, out);
  }
}

template void UnpackBits<uint64_t>(UnpackMode, const uint8_t*, size_t, int, uint64_t*);
template void UnpackBits<uint32_t>(UnpackMode, const uint8_t*, size_t, int, uint32_t*);
template void UnpackBitsScalar<uint64_t>(UnpackMode, const uint8_t*, size_t, int, uint64_t*);
template void UnpackBitsScalar<uint32_t>(UnpackMode, const uint8_t*, size_t, int, uint32_t*);

}  // namespace fedmf::crypto::internal
