// A vector of Z_{2^b} that SecAgg masks are added into: 32-bit words when b <= 32 (half the memory
// traffic of 64-bit words, which is what bounds mask expansion), 64-bit words otherwise. Clients
// build y = x + masks in one; the server sums masked inputs and removes masks in one. Not
// thread-safe (it owns one AES-CTR expander).
#ifndef FEDMF_CRYPTO_SECAGG_MASK_ACCUMULATOR_H_
#define FEDMF_CRYPTO_SECAGG_MASK_ACCUMULATOR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "crypto/prg.h"

namespace fedmf::secagg {

class MaskAccumulator {
 public:
  // A zero vector of `length` values with `bits` in 1..62. kInvalidArgument otherwise.
  static absl::StatusOr<MaskAccumulator> Create(int bits, size_t length);

  int bits() const { return bits_; }
  size_t length() const { return length_; }

  // += values (each must be < 2^bits and values.size() == length; kInvalidArgument otherwise,
  // leaving the vector unchanged).
  absl::Status AddValues(absl::Span<const uint64_t> values);
  // += a packed vector (vector_codec.h), validated first.
  absl::Status AddPacked(absl::Span<const uint8_t> packed);
  // +=/-= PRG(seed) (crypto/prg.h, b-bit values).
  absl::Status AddMask(absl::Span<const uint8_t> seed, crypto::MaskOp op);
  // += another accumulator of the same bits and length (kInvalidArgument otherwise).
  absl::Status Add(const MaskAccumulator& other);

  std::vector<uint64_t> Values() const;
  absl::StatusOr<std::string> Pack() const;

 private:
  MaskAccumulator(int bits, size_t length, crypto::AesCtrPrg prg);

  int bits_;
  size_t length_;
  std::vector<uint32_t> words32_;  // used when bits <= 32
  std::vector<uint64_t> words64_;  // used otherwise
  crypto::AesCtrPrg prg_;
};

}  // namespace fedmf::secagg

#endif  // FEDMF_CRYPTO_SECAGG_MASK_ACCUMULATOR_H_
