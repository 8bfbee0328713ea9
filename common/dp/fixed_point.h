// Fixed-point encoding of real vectors into Z_{2^b} for secure aggregation: unbiased stochastic
// rounding, reduction mod 2^b, centered lifting of a decoded sum, and the wrap-around policy shared
// by the Gaussian and discrete Gaussian mechanisms:
//   a per-coordinate range R such that, with probability >= 1 - eta, no coordinate of the sum of
//   the clients' integers leaves [-R, R] (deterministic part + Gaussian/sub-Gaussian tail with a
//   union bound over the d coordinates), and the modulus 2^b with 2^(b-1) > 2R. A decoder that sees
//   a centered value outside [-R, R] reports the round as failed; an undetected wrap needs a
//   coordinate with |sum| >= 2^b - R > 3R, whose probability is below 2 d (eta / 2d)^9.
#ifndef FEDMF_COMMON_DP_FIXED_POINT_H_
#define FEDMF_COMMON_DP_FIXED_POINT_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/dp/rng.h"

namespace fedmf::dp {

inline constexpr int kMaxModulusBits = 62;

// floor(y) + Bernoulli(y - floor(y)), so E = y up to the double rounding of y - floor(y) (exact
// for |y| >= 1/2; otherwise off by at most 2^-53). Requires |y| < 2^62 (checked by callers).
int64_t StochasticRound(double y, Rng& rng);

// v mod 2^bits in [0, 2^bits), 1 <= bits <= 62.
uint64_t ReduceModPow2(int64_t v, int bits);
// The representative of r mod 2^bits in [-2^(bits-1), 2^(bits-1)).
int64_t CenteredLift(uint64_t r, int bits);

// z with 2 exp(-z^2/2) = eta / dim: P(|X| > z s) <= eta / dim for any s^2-sub-Gaussian X
// (Gaussian or discrete Gaussian with variance s^2), hence <= eta over dim coordinates.
double TailMultiplier(double eta, int64_t dim);

// R = deterministic_bound + TailMultiplier(eta, dim) * sqrt(variance_proxy), rounded up.
double SumRange(double deterministic_bound, double variance_proxy, double eta, int64_t dim);

// Smallest b with 2^(b-1) > 2 * range; error when b would exceed kMaxModulusBits.
absl::StatusOr<int> ModulusBitsForRange(double range);

// The real-valued sum: centered lift of every coordinate of `sum` (values mod 2^bits) divided by
// `scale` (integer units per real unit). OutOfRange error naming the first coordinate whose lift
// lies outside [-range, range] (the round must be discarded, it may have wrapped), and
// InvalidArgument if a value is not below 2^bits.
absl::StatusOr<Eigen::VectorXd> DecodeCheckedSum(absl::Span<const uint64_t> sum, int bits,
                                                 double range, double scale);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_FIXED_POINT_H_
