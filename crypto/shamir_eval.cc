#include "crypto/shamir_eval.h"

#include <openssl/crypto.h>

#include <algorithm>

#include "crypto/mersenne61.h"
#include "crypto/shamir.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define FEDMF_HAVE_AVX2_SHAMIR 1
#endif

namespace fedmf::crypto::internal {
namespace {

constexpr size_t kWidth = kShamirChunks;

// Horner's rule at kPoints indices at a time: kWidth * kPoints independent multiply chains keep
// the multiplier busy (one chain is latency-bound). Points past n are computed and discarded.
void ScalarBlocks(const uint64_t* coefficients, size_t terms, size_t first, size_t n,
                  uint64_t* out) {
  constexpr size_t kPoints = 4;
  for (; first < n; first += kPoints) {
    uint64_t y[kPoints][kWidth];
    for (size_t j = 0; j < kPoints; ++j) {
      for (size_t c = 0; c < kWidth; ++c) y[j][c] = coefficients[(terms - 1) * kWidth + c];
    }
    for (size_t k = terms - 1; k-- > 0;) {
      const uint64_t* a = &coefficients[k * kWidth];
      for (size_t j = 0; j < kPoints; ++j) {
        const uint64_t x = first + j + 1;
        for (size_t c = 0; c < kWidth; ++c) {
          y[j][c] = AddModMersenne61(MulModMersenne61(y[j][c], x), a[c]);
        }
      }
    }
    const size_t points = std::min(kPoints, n - first);
    std::copy_n(&y[0][0], points * kWidth, out + first * kWidth);
    OPENSSL_cleanse(y, sizeof(y));
  }
}

#ifdef FEDMF_HAVE_AVX2_SHAMIR
#define FEDMF_AVX2 __attribute__((target("avx2")))

bool ShamirAvx2Available() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

// y * x + a mod p per 64-bit lane, for y, a < p and x < 2^24. With y = yh 2^32 + yl:
// y x = yl x + (yh x) 2^32, and writing h = yh x < 2^53 as hl + hh 2^29 (hl < 2^29),
// h 2^32 = hl 2^32 + hh 2^61 = hl 2^32 + hh (mod p). The sum yl x + hl 2^32 + hh + a is
// < 2^56 + 2^61 + 2^24 + 2^61 < 2^63, and one Mersenne fold plus a conditional subtraction of p
// brings it into [0, p).
FEDMF_AVX2 inline __m256i MulAddMod(__m256i y, __m256i x, __m256i a) {
  const __m256i p = _mm256_set1_epi64x(static_cast<long long>(kMersenne61));
  const __m256i low29 = _mm256_set1_epi64x((1LL << 29) - 1);
  const __m256i h = _mm256_mul_epu32(_mm256_srli_epi64(y, 32), x);
  __m256i s = _mm256_add_epi64(_mm256_mul_epu32(y, x), a);
  s = _mm256_add_epi64(s, _mm256_slli_epi64(_mm256_and_si256(h, low29), 32));
  s = _mm256_add_epi64(s, _mm256_srli_epi64(h, 29));
  s = _mm256_add_epi64(_mm256_and_si256(s, p), _mm256_srli_epi64(s, 61));  // < 2^61 + 4
  // s < p (signed compare: both < 2^63): keep s, else subtract p.
  return _mm256_sub_epi64(s, _mm256_andnot_si256(_mm256_cmpgt_epi64(p, s), p));
}

// Blocks of 8 points (two vectors of 4 per polynomial: 2 kWidth independent chains); returns
// the first point it did not evaluate (the scalar code takes the rest).
FEDMF_AVX2 size_t Avx2Blocks(const uint64_t* coefficients, size_t terms, size_t n, uint64_t* out) {
  size_t first = 0;
  for (; first + 8 <= n; first += 8) {
    const long long x0 = static_cast<long long>(first);
    const __m256i x_lo = _mm256_setr_epi64x(x0 + 1, x0 + 2, x0 + 3, x0 + 4);
    const __m256i x_hi = _mm256_setr_epi64x(x0 + 5, x0 + 6, x0 + 7, x0 + 8);
    __m256i lo[kWidth], hi[kWidth];
    for (size_t c = 0; c < kWidth; ++c) {
      lo[c] = hi[c] =
          _mm256_set1_epi64x(static_cast<long long>(coefficients[(terms - 1) * kWidth + c]));
    }
    for (size_t k = terms - 1; k-- > 0;) {
      for (size_t c = 0; c < kWidth; ++c) {
        const __m256i a = _mm256_set1_epi64x(static_cast<long long>(coefficients[k * kWidth + c]));
        lo[c] = MulAddMod(lo[c], x_lo, a);
        hi[c] = MulAddMod(hi[c], x_hi, a);
      }
    }
    alignas(32) uint64_t y[kWidth][8];
    for (size_t c = 0; c < kWidth; ++c) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(&y[c][0]), lo[c]);
      _mm256_store_si256(reinterpret_cast<__m256i*>(&y[c][4]), hi[c]);
    }
    for (size_t j = 0; j < 8; ++j) {
      for (size_t c = 0; c < kWidth; ++c) out[(first + j) * kWidth + c] = y[c][j];
    }
    OPENSSL_cleanse(y, sizeof(y));
  }
  return first;
}
#endif  // FEDMF_HAVE_AVX2_SHAMIR

}  // namespace

void EvaluateShamirPolynomialsScalar(absl::Span<const uint64_t> coefficients, size_t n,
                                     absl::Span<uint64_t> out) {
  ScalarBlocks(coefficients.data(), coefficients.size() / kWidth, 0, n, out.data());
}

void EvaluateShamirPolynomials(absl::Span<const uint64_t> coefficients, size_t n,
                               absl::Span<uint64_t> out) {
  const size_t terms = coefficients.size() / kWidth;
  size_t first = 0;
#ifdef FEDMF_HAVE_AVX2_SHAMIR
  if (ShamirAvx2Available()) first = Avx2Blocks(coefficients.data(), terms, n, out.data());
#endif
  ScalarBlocks(coefficients.data(), terms, first, n, out.data());
}

}  // namespace fedmf::crypto::internal
