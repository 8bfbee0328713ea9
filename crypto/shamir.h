// Shamir t-of-n secret sharing of 32-byte secrets (X25519 private keys, PRG seeds) over the
// prime field GF(2^61 - 1). Any t shares reconstruct the secret; t - 1 shares reveal nothing.
//
// Field and chunking. p = 2^61 - 1 is a Mersenne prime, so field products are one 64x64->128
// multiply plus shifts (no BIGNUM, no Montgomery form), and it leaves room for up to 2^61 - 2
// share indices. The 32-byte secret is cut into 5 chunks: bytes [0,7), [7,14), [14,21), [21,28)
// as 56-bit little-endian integers and bytes [28,32) as a 32-bit one, each < 2^56 < p, and each
// chunk gets its own random polynomial of degree t - 1 (coefficients uniform in GF(p) from the
// CSPRNG). A share is the 5 evaluations at x = index, as 5 little-endian uint64 (40 bytes).
// Alternatives: a prime above 2^256 needs bignum arithmetic (a BN_mod_mul per product, with
// allocation and carries) and 33-byte shares; a 31-bit prime (as in Google's fcp) needs 9 chunks
// and so nearly twice the multiplies for the same secret. The chunk widths give a free consistency
// check: shares that are corrupted or mixed from different secrets reconstruct chunks that look
// uniform in GF(p), so some chunk is >= 2^56 (or >= 2^32 for the last) with probability about 1 -
// 2^-49; that is reported as kDataLoss. This detects accidents; it is not a MAC.
//
// Indices are 1..n (x = 0 holds the secret). Malformed input (too few shares, wrong size,
// element >= p, duplicate or out-of-range index, bad t or n) is kInvalidArgument.
#ifndef FEDMF_CRYPTO_SHAMIR_H_
#define FEDMF_CRYPTO_SHAMIR_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "crypto/secret_bytes.h"

namespace fedmf::crypto {

inline constexpr size_t kShamirSecretSize = 32;
inline constexpr int kShamirChunks = 5;
inline constexpr size_t kShamirShareSize = kShamirChunks * 8;
inline constexpr int kShamirMaxShares = 1 << 20;

struct ShamirParams {
  int threshold = 0;   // t: shares needed, 1 <= t <= n
  int num_shares = 0;  // n: shares made, indices 1..n, n <= kShamirMaxShares
};

struct ShamirShare {
  uint32_t index = 0;  // x-coordinate, in [1, n]
  SecretBytes value;   // kShamirShareSize bytes: 5 little-endian field elements
};

// n shares of `secret` (32 bytes), share i having index i + 1. Cost O(n * t).
absl::StatusOr<std::vector<ShamirShare>> ShamirSplit(absl::Span<const uint8_t> secret,
                                                     ShamirParams params);

// The secret from at least t shares. All shares are validated; the first t are used (the others
// are not checked for consistency). Cost O(t^2).
absl::StatusOr<SecretBytes> ShamirReconstruct(absl::Span<const ShamirShare> shares,
                                              ShamirParams params);

// The result of ShamirDecode.
struct ShamirDecoding {
  SecretBytes secret;
  // Indices of the shares that are off the decoded polynomial in at least one chunk, ascending.
  std::vector<uint32_t> off_polynomial;
};

// Error-correcting reconstruction from all m >= t shares, some of which may be wrong (a lying
// holder): for each chunk separately, the polynomial of degree < t that agrees with at least
// m - e of the shares, e = floor((m - t) / 2), if there is one (it is then unique). Reed-Solomon
// decoding (Berlekamp-Welch); a share wrong in one chunk only counts against that chunk. Malformed
// input is kInvalidArgument as in ShamirReconstruct; kDataLoss when some chunk has no such
// polynomial, or a decoded chunk is out of its width. Up to e wrong shares per chunk are corrected.
// More may give kDataLoss or another polynomial (a wrong secret), so the secret still needs
// checking; only when m - t is odd are e + 1 wrong shares in a chunk always kDataLoss. With m = t
// (e = 0) nothing is corrected or flagged: only the width check applies.
// Cost O(m^3) time per chunk and O(m^2) memory: for the slow path, after the secret from t
// shares failed verification.
absl::StatusOr<ShamirDecoding> ShamirDecode(absl::Span<const ShamirShare> shares,
                                            ShamirParams params);

// Lagrange coefficients at x = 0 for a fixed set of t holders, for reconstructing many secrets
// shared with the same parameters from the same holders (the server rebuilding one secret per
// dropped client from the same survivors): O(t^2) once, then O(t) per secret.
class ShamirReconstructor {
 public:
  // Uses the first t of `holder_indices` (there must be at least t; those t must be distinct and
  // in [1, n]).
  static absl::StatusOr<ShamirReconstructor> Create(absl::Span<const uint32_t> holder_indices,
                                                    ShamirParams params);

  // The t holder indices used, ascending.
  absl::Span<const uint32_t> indices() const { return indices_; }

  // The secret from `shares`, which must contain a share from every holder in indices(); all
  // shares are validated as in ShamirReconstruct, and shares from other holders are ignored.
  absl::StatusOr<SecretBytes> Reconstruct(absl::Span<const ShamirShare> shares) const;

 private:
  ShamirReconstructor(ShamirParams params, std::vector<uint32_t> indices,
                      std::vector<uint64_t> coefficients)
      : params_(params), indices_(std::move(indices)), coefficients_(std::move(coefficients)) {}

  ShamirParams params_;
  std::vector<uint32_t> indices_;       // ascending
  std::vector<uint64_t> coefficients_;  // Lagrange coefficient at 0 of indices_[i]
};

}  // namespace fedmf::crypto

#endif  // FEDMF_CRYPTO_SHAMIR_H_
