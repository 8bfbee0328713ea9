// AES-256-CTR pseudorandom generator that expands a 32-byte seed into d values uniform in
// [0, 2^b) (b in 1..64) or in [0, q) by rejection sampling, and can add or subtract such a mask
// directly into an accumulator: the hot loop of secure aggregation.
//
// Bit-exact specification (both sides of the protocol must agree on it):
//  * Keystream K = AES-256_seed(C0) || AES-256_seed(C0 + 1) || ..., with C0 = 16 zero bytes and
//    the counter block incremented as a 128-bit big-endian integer (NIST SP 800-38A CTR).
//  * Keystream bit j is bit (j mod 8), least significant first, of byte floor(j / 8).
//  * With b bits, candidate i is the b-bit integer whose bit k is keystream bit i*b + k; that is,
//    reading K as one little-endian integer, candidate i = (K >> (i*b)) mod 2^b. Each keystream
//    bit is used once, so every candidate is exactly uniform in [0, 2^b).
//  * Mask value i = candidate i; d values consume exactly ceil(d*b/8) keystream bytes.
//  * Uniform mod q: b = bit width of q-1, and output i is the i-th candidate that is < q
//    (acceptance probability > 1/2). For q = 2^b both rules give the same values.
// A seed must be used for one expansion only: derive it with HKDF bound to the session id, the
// pair of clients and the purpose (self mask / pairwise mask).
#ifndef FEDMF_CRYPTO_PRG_H_
#define FEDMF_CRYPTO_PRG_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "crypto/bit_unpack.h"
#include "crypto/openssl_util.h"

namespace fedmf::crypto {

inline constexpr size_t kPrgSeedSize = 32;
inline constexpr int kPrgMaxBits = 64;

// Whether a mask is added to or subtracted from the accumulator (mod 2^b).
enum class MaskOp { kAdd, kSubtract };

// Reusable expander: one EVP context and one keystream buffer for any number of expansions.
// Not thread-safe (use one per thread); a moved-from expander must not be used. Errors
// (kInvalidArgument) for a seed that is not 32 bytes, b outside [1, 64] (or [1, 32] for 32-bit
// words) or q < 2; kInternal if OpenSSL fails.
class AesCtrPrg {
 public:
  static absl::StatusOr<AesCtrPrg> Create();

  AesCtrPrg(AesCtrPrg&&) noexcept;
  AesCtrPrg& operator=(AesCtrPrg&&) noexcept;
  ~AesCtrPrg();  // wipes the keystream buffer

  // out[i] = mask value i, for i < out.size().
  absl::Status Expand(absl::Span<const uint8_t> seed, int bits, absl::Span<uint64_t> out);

  // acc[i] = (acc[i] + value i) mod 2^b for kAdd, (acc[i] - value i) mod 2^b for kSubtract.
  // Results are reduced mod 2^b whatever the inputs were.
  absl::Status AddMask(absl::Span<const uint8_t> seed, int bits, MaskOp op,
                       absl::Span<uint64_t> acc);

  // The same on 32-bit words, for b <= 32 (kInvalidArgument otherwise): same values, half the
  // memory traffic, which is what bounds mask expansion into vectors larger than the L2 cache.
  absl::Status Expand(absl::Span<const uint8_t> seed, int bits, absl::Span<uint32_t> out);
  absl::Status AddMask(absl::Span<const uint8_t> seed, int bits, MaskOp op,
                       absl::Span<uint32_t> acc);

  // out[i] uniform in [0, modulus), by rejection sampling as specified above.
  absl::Status ExpandUniformMod(absl::Span<const uint8_t> seed, uint64_t modulus,
                                absl::Span<uint64_t> out);

 private:
  struct Buffers;
  AesCtrPrg(internal::EvpCipherCtxPtr ctx, std::unique_ptr<Buffers> buffers);
  absl::Status Start(absl::Span<const uint8_t> seed, int bits);
  absl::Status Keystream(size_t bytes);
  template <typename Word>
  absl::Status Run(absl::Span<const uint8_t> seed, int bits, internal::UnpackMode mode,
                   absl::Span<Word> out);

  internal::EvpCipherCtxPtr ctx_;
  std::unique_ptr<Buffers> buffers_;
  bool keyed_once_ = false;
};

// One-shot conveniences over a temporary AesCtrPrg.
absl::StatusOr<std::vector<uint64_t>> ExpandMask(absl::Span<const uint8_t> seed, int bits,
                                                 size_t d);
absl::Status AddMask(absl::Span<const uint8_t> seed, int bits, MaskOp op, absl::Span<uint64_t> acc);
absl::Status AddMask(absl::Span<const uint8_t> seed, int bits, MaskOp op, absl::Span<uint32_t> acc);
absl::StatusOr<std::vector<uint64_t>> ExpandUniformMod(absl::Span<const uint8_t> seed,
                                                       uint64_t modulus, size_t d);

}  // namespace fedmf::crypto

#endif  // FEDMF_CRYPTO_PRG_H_
