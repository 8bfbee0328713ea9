// Wire format of SecAgg vectors: d values of Z_{2^b} packed LSB-first, b bits each, into exactly
// ceil(d*b/8) bytes (value i = bits [i*b, (i+1)*b), bit j = bit j%8 of byte j/8, the same layout
// as the mask PRG's keystream), with the padding bits of the last byte zero. Unpacking validates
// size and padding, so a malformed vector is an error Status, never an out-of-bounds read.
#ifndef FEDMF_CRYPTO_SECAGG_VECTOR_CODEC_H_
#define FEDMF_CRYPTO_SECAGG_VECTOR_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace fedmf::secagg {

// The packed bytes of `values` (each must be < 2^bits; bits in 1..64; Word uint32_t or uint64_t).
// kInvalidArgument naming the first value out of range.
template <typename Word>
absl::StatusOr<std::string> PackVector(absl::Span<const Word> values, int bits);

// OK iff `packed` is exactly ceil(length*bits/8) bytes with zero padding bits.
absl::Status ValidatePacked(absl::Span<const uint8_t> packed, size_t length, int bits);

// acc[i] = (acc[i] + value i) mod 2^bits for the `acc.size()` values of a validated `packed`
// (validates first; kInvalidArgument leaves acc unchanged). Word is uint32_t (bits <= 32) or
// uint64_t.
template <typename Word>
absl::Status AddPackedVector(absl::Span<const uint8_t> packed, int bits, absl::Span<Word> acc);

// The values of a validated packed vector.
absl::StatusOr<std::vector<uint64_t>> UnpackVector(absl::Span<const uint8_t> packed, size_t length,
                                                   int bits);

// Bytes of a std::string as a span (protobuf `bytes` fields are std::string).
inline absl::Span<const uint8_t> AsBytes(const std::string& s) {
  return absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

}  // namespace fedmf::secagg

#endif  // FEDMF_CRYPTO_SECAGG_VECTOR_CODEC_H_
