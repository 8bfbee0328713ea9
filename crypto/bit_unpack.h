// Internal kernel of the PRG: reads consecutive b-bit unsigned integers from an LSB-first bit
// stream (value i = bits [i*b, (i+1)*b), bit j = bit j%8 of byte j/8) and stores, adds or
// subtracts them mod 2^b into an array of uint64_t (b <= 64) or uint32_t (b <= 32). Uses AVX2
// when the CPU has it (b <= 56), else portable scalar code; both give identical results.
#ifndef FEDMF_CRYPTO_BIT_UNPACK_H_
#define FEDMF_CRYPTO_BIT_UNPACK_H_

#include <cstddef>
#include <cstdint>

namespace fedmf::crypto::internal {

enum class UnpackMode { kSet, kAdd, kSubtract };

// Bytes past ceil(count*b/8) that UnpackBits may read (their values never matter).
inline constexpr size_t kUnpackSlackBytes = 32;

// 2^bits - 1, for 1 <= bits <= 64.
constexpr uint64_t LowBitsMask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

// For i < count: out[i] = v_i (kSet), (out[i] + v_i) mod 2^b (kAdd) or (out[i] - v_i) mod 2^b
// (kSubtract), v_i being value i of `packed`. Word is uint64_t or uint32_t; requires
// 1 <= bits <= 8 * sizeof(Word) and `packed` readable for ceil(count*bits/8) + kUnpackSlackBytes
// bytes.
template <typename Word>
void UnpackBits(UnpackMode mode, const uint8_t* packed, size_t count, int bits, Word* out);

// The portable path alone, and whether UnpackBits uses SIMD for `bits` on this CPU (for tests
// that compare the two paths).
template <typename Word>
void UnpackBitsScalar(UnpackMode mode, const uint8_t* packed, size_t count, int bits, Word* out);
bool UnpackBitsUsesSimd(int bits);

// Value i of `packed` (same layout), reading at most 9 bytes from byte (i*bits)/8.
uint64_t ExtractBits(const uint8_t* packed, uint64_t i, int bits);

}  // namespace fedmf::crypto::internal

#endif  // FEDMF_CRYPTO_BIT_UNPACK_H_
