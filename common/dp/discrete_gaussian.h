// Exact discrete Laplace and discrete Gaussian samplers of Canonne, Kamath, Steinke (NeurIPS 2020,
// "The Discrete Gaussian for Differential Privacy", Algorithms 1-3). Integer arithmetic only (no
// floating point), so every sample is exact and bit-reproducible from the Rng seed.
#ifndef FEDMF_COMMON_DP_DISCRETE_GAUSSIAN_H_
#define FEDMF_COMMON_DP_DISCRETE_GAUSSIAN_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/dp/rng.h"

namespace fedmf::dp {

// The non-negative rational num / den.
struct Rational {
  uint64_t num = 0;
  uint64_t den = 1;
};

// The smallest num / 2^k >= x (x > 0) with num <= 2^48 and 2^k <= 2^32, i.e. x rounded UP to a
// rational the sampler accepts (rounding up only adds noise, so privacy is kept). Error when x is
// not finite, not positive, or above 2^48.
absl::StatusOr<Rational> RationalUpperBound(double x);

// Exact Bernoulli(exp(-num/den)), den > 0 (CKS Algorithm 1). Exposed for tests.
absl::StatusOr<bool> BernoulliExpMinus(Rng& rng, unsigned __int128 num, unsigned __int128 den);

// Exact discrete Laplace: P(y) proportional to exp(-|y| / t) on the integers, t >= 1 (CKS
// Algorithm 2 with s = 1).
absl::StatusOr<int64_t> DiscreteLaplace(Rng& rng, uint64_t t);

// Exact discrete Gaussian N_Z(0, sigma^2): P(y) proportional to exp(-y^2 / (2 sigma^2)) on the
// integers (CKS Algorithm 3), sigma^2 = variance.num / variance.den. Its variance is at most
// sigma^2 (and within sigma^2 * 1e-8 of it once sigma >= 1). Intermediates fit 128-bit integers
// because variance.num <= 2^48 and variance.den <= 2^32. The one event that would leave 128 bits (a
// discrete Laplace proposal beyond 2^14 sigma that then survives 2^25 Bernoulli(1/e) trials,
// probability below exp(-2^25)) is reported as an InternalError, never turned into a biased sample.
class DiscreteGaussianSampler {
 public:
  static absl::StatusOr<DiscreteGaussianSampler> Create(Rational variance);

  absl::StatusOr<int64_t> Sample(Rng& rng) const;
  Rational variance() const { return variance_; }

 private:
  explicit DiscreteGaussianSampler(Rational variance);

  Rational variance_;
  uint64_t t_ = 1;                   // floor(sigma) + 1: scale of the discrete Laplace proposal
  uint64_t y_limit_ = 0;             // largest |y| with |y| * t * den < 2^63
  unsigned __int128 gamma_den_ = 1;  // 2 * num * den * t^2
};

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_DISCRETE_GAUSSIAN_H_
