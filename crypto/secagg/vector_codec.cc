#include "crypto/secagg/vector_codec.h"

#include <cstring>

#include "absl/strings/str_format.h"
#include "crypto/bit_unpack.h"
#include "crypto/secagg/config.h"

namespace fedmf::secagg {

template <typename Word>
absl::StatusOr<std::string> PackVector(absl::Span<const Word> values, int bits) {
  if (bits < 1 || bits > static_cast<int>(8 * sizeof(Word))) {
    return absl::InvalidArgumentError(
        absl::StrFormat("pack: bits=%d outside [1, %d]", bits, 8 * sizeof(Word)));
  }
  const uint64_t limit = crypto::internal::LowBitsMask(bits);
  std::string out(PackedSize(values.size(), bits), '\0');
  unsigned __int128 acc = 0;  // pending bits, LSB first; < 64 + 64 bits
  int pending = 0;
  size_t pos = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const uint64_t v = values[i];
    if (v > limit) {
      return absl::InvalidArgumentError(
          absl::StrFormat("pack: value %d = %d does not fit in %d bits", i, v, bits));
    }
    acc |= static_cast<unsigned __int128>(v) << pending;
    pending += bits;
    if (pending >= 64) {
      const uint64_t word = static_cast<uint64_t>(acc);
      for (int k = 0; k < 8; ++k) out[pos++] = static_cast<char>(word >> (8 * k));
      acc >>= 64;
      pending -= 64;
    }
  }
  while (pending > 0) {
    out[pos++] = static_cast<char>(static_cast<uint8_t>(acc));
    acc >>= 8;
    pending -= 8;
  }
  return out;
}

absl::Status ValidatePacked(absl::Span<const uint8_t> packed, size_t length, int bits) {
  if (bits < 1 || bits > 64) {
    return absl::InvalidArgumentError(absl::StrFormat("packed vector: bits=%d", bits));
  }
  const size_t want = PackedSize(length, bits);
  if (packed.size() != want) {
    return absl::InvalidArgumentError(
        absl::StrFormat("packed vector is %d bytes, need ceil(%d * %d / 8) = %d", packed.size(),
                        length, bits, want));
  }
  const int used = static_cast<int>((length * static_cast<size_t>(bits)) % 8);
  if (used != 0 && (packed.back() >> used) != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("packed vector: padding bits of the last byte are not zero (byte 0x%02x, "
                        "%d bits used)",
                        packed.back(), used));
  }
  return absl::OkStatus();
}

template <typename Word>
absl::Status AddPackedVector(absl::Span<const uint8_t> packed, int bits, absl::Span<Word> acc) {
  if (bits > static_cast<int>(8 * sizeof(Word))) {
    return absl::InvalidArgumentError(
        absl::StrFormat("packed vector: %d bits do not fit %d-bit words", bits, 8 * sizeof(Word)));
  }
  if (absl::Status s = ValidatePacked(packed, acc.size(), bits); !s.ok()) return s;
  // UnpackBits may read kUnpackSlackBytes past the data: give it a padded copy.
  std::vector<uint8_t> padded(packed.size() + crypto::internal::kUnpackSlackBytes, 0);
  if (!packed.empty()) std::memcpy(padded.data(), packed.data(), packed.size());
  crypto::internal::UnpackBits(crypto::internal::UnpackMode::kAdd, padded.data(), acc.size(), bits,
                               acc.data());
  return absl::OkStatus();
}

absl::StatusOr<std::vector<uint64_t>> UnpackVector(absl::Span<const uint8_t> packed, size_t length,
                                                   int bits) {
  std::vector<uint64_t> out(length, 0);
  if (absl::Status s = AddPackedVector<uint64_t>(packed, bits, absl::MakeSpan(out)); !s.ok()) {
    return s;
  }
  return out;
}

template absl::StatusOr<std::string> PackVector<uint32_t>(absl::Span<const uint32_t>, int);
template absl::StatusOr<std::string> PackVector<uint64_t>(absl::Span<const uint64_t>, int);
template absl::Status AddPackedVector<uint32_t>(absl::Span<const uint8_t>, int,
                                                absl::Span<uint32_t>);
template absl::Status AddPackedVector<uint64_t>(absl::Span<const uint8_t>, int,
                                                absl::Span<uint64_t>);

}  // namespace fedmf::secagg
