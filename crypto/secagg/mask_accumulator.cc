#include "crypto/secagg/mask_accumulator.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "crypto/bit_unpack.h"
#include "crypto/secagg/config.h"
#include "crypto/secagg/vector_codec.h"

namespace fedmf::secagg {

MaskAccumulator::MaskAccumulator(int bits, size_t length, crypto::AesCtrPrg prg)
    : bits_(bits), length_(length), prg_(std::move(prg)) {
  if (bits <= 32) {
    words32_.assign(length, 0);
  } else {
    words64_.assign(length, 0);
  }
}

absl::StatusOr<MaskAccumulator> MaskAccumulator::Create(int bits, size_t length) {
  if (bits < 1 || bits > kMaxBits || length < 1 || length > kMaxLength) {
    return absl::InvalidArgumentError(
        absl::StrFormat("mask accumulator: bits=%d (need 1..%d), length=%d (need 1..%d)", bits,
                        kMaxBits, length, kMaxLength));
  }
  absl::StatusOr<crypto::AesCtrPrg> prg = crypto::AesCtrPrg::Create();
  if (!prg.ok()) return prg.status();
  return MaskAccumulator(bits, length, std::move(*prg));
}

absl::Status MaskAccumulator::AddValues(absl::Span<const uint64_t> values) {
  if (values.size() != length_) {
    return absl::InvalidArgumentError(
        absl::StrFormat("vector has %d values, need %d", values.size(), length_));
  }
  const uint64_t limit = crypto::internal::LowBitsMask(bits_);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] > limit) {
      return absl::InvalidArgumentError(
          absl::StrFormat("vector value %d = %d does not fit in %d bits", i, values[i], bits_));
    }
  }
  if (bits_ <= 32) {
    for (size_t i = 0; i < length_; ++i) {
      words32_[i] = static_cast<uint32_t>((words32_[i] + values[i]) & limit);
    }
  } else {
    for (size_t i = 0; i < length_; ++i) words64_[i] = (words64_[i] + values[i]) & limit;
  }
  return absl::OkStatus();
}

absl::Status MaskAccumulator::AddPacked(absl::Span<const uint8_t> packed) {
  if (bits_ <= 32) return AddPackedVector<uint32_t>(packed, bits_, absl::MakeSpan(words32_));
  return AddPackedVector<uint64_t>(packed, bits_, absl::MakeSpan(words64_));
}

absl::Status MaskAccumulator::AddMask(absl::Span<const uint8_t> seed, crypto::MaskOp op) {
  if (bits_ <= 32) return prg_.AddMask(seed, bits_, op, absl::MakeSpan(words32_));
  return prg_.AddMask(seed, bits_, op, absl::MakeSpan(words64_));
}

absl::Status MaskAccumulator::Add(const MaskAccumulator& other) {
  if (other.bits_ != bits_ || other.length_ != length_) {
    return absl::InvalidArgumentError(
        absl::StrFormat("cannot add a %d-bit vector of %d values to a %d-bit one of %d",
                        other.bits_, other.length_, bits_, length_));
  }
  const uint64_t limit = crypto::internal::LowBitsMask(bits_);
  if (bits_ <= 32) {
    for (size_t i = 0; i < length_; ++i) {
      words32_[i] = static_cast<uint32_t>((uint64_t{words32_[i]} + other.words32_[i]) & limit);
    }
  } else {
    for (size_t i = 0; i < length_; ++i) words64_[i] = (words64_[i] + other.words64_[i]) & limit;
  }
  return absl::OkStatus();
}

std::vector<uint64_t> MaskAccumulator::Values() const {
  if (bits_ <= 32) return std::vector<uint64_t>(words32_.begin(), words32_.end());
  return words64_;
}

absl::StatusOr<std::string> MaskAccumulator::Pack() const {
  if (bits_ <= 32) return PackVector<uint32_t>(words32_, bits_);
  return PackVector<uint64_t>(words64_, bits_);
}

}  // namespace fedmf::secagg
