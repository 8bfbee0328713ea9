// Distributed discrete Gaussian mechanism for secure aggregation (Kairouz, Liu, Steinke, ICML 2021,
// Algorithm 1), with exact noise: each client L2-clips to c, scales by gamma (= 1/granularity),
// rounds conditionally (stochastic rounding repeated until the integer vector's squared norm is
// <= Delta_2^2 below; the conditioning adds a small bias bounded by KLS, none when beta = 0), adds
// exact discrete Gaussian noise N_Z(0, v) per coordinate (discrete_gaussian.h) with
// v >= (gamma sigma)^2 / n_noise, and reduces mod 2^b. n_noise is n_min, or with a noise committee
// the c clients of each sum that add noise (the others encode without noise: EncodeSupport).
// Randomized rotation, which KLS apply before rounding, is RandomizedHadamard (hadamard.h) composed
// by the caller.
//
//   Delta_2^2 = floor(min{(gamma c)^2 + d/4 + sqrt(2 ln(1/beta)) (gamma c + sqrt(d)/2),
//                         (gamma c + sqrt(d))^2})                                  (grid units)
// A single rounding exceeds it with probability <= beta (KLS Lemma); beta = 0 keeps only the
// deterministic bound. Facts for the accountant (not computed here): the sum of n >= n_min
// encodings is the integer sum of the rounded vectors (L2 sensitivity rounded_l2_bound()) plus the
// sum of n' i.i.d. N_Z(0, v) (n' = n, or c with a committee); KLS 2021 Theorem 1 bounds its
// concentrated-DP epsilon by
//   min{ sqrt(Delta_2^2/(n' v) + tau d / 2), Delta_2/sqrt(n' v) + tau sqrt(d) },
//   tau = 10 sum_{k=1}^{n'-1} exp(-2 pi^2 v k / (k+1))
// (their proof only uses that the noise is a sum of n' i.i.d. N_Z(0, v) added to the integer sum).
//
// Overflow policy as in fixed_point.h: R = n_max min(gamma L + 1, Delta_2) + z sqrt(n' v) with
// n' = n_max or c (discrete Gaussians are v-sub-Gaussian, CKS 2020), 2^(b-1) > 2R, Decode reports
// OutOfRange.
#ifndef FEDMF_COMMON_DP_DISTRIBUTED_DISCRETE_GAUSSIAN_H_
#define FEDMF_COMMON_DP_DISTRIBUTED_DISCRETE_GAUSSIAN_H_

#include <cmath>
#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/dp/discrete_gaussian.h"
#include "common/dp/rng.h"

namespace fedmf::dp {

struct DistributedDiscreteGaussianParams {
  int64_t dim = 0;          // d
  double clip_norm = 0;     // c: L2 bound of each client's vector
  double linf_bound = 0;    // L <= c: coordinates clamped to [-L, L]; 0 means c
  double noise_std = 0;     // sigma: noise std per coordinate, sum of n_min clients
  int64_t min_clients = 0;  // n_min: the SecAgg threshold
  int64_t max_clients = 0;  // n_max: most clients in one sum
  // c: a noise committee of c <= n_min clients in every sum adds all the noise, v >= (gamma
  // sigma)^2 / c; 0: every client adds noise (v >= (gamma sigma)^2 / n_min).
  int64_t noise_clients = 0;
  double scale = 0;                           // gamma: integer units per real unit
  double rounding_beta = 0.6065306597126334;  // beta in [0, 1); KLS use exp(-1/2)
  double wrap_probability = 1e-9;             // eta
};

// KLS conditional rounding: stochastic rounding of every coordinate of y (|y_j| < 2^31), repeated
// until the squared L2 norm of the result is <= norm2_bound. InternalError after 1000 rejections.
absl::StatusOr<std::vector<int64_t>> ConditionalStochasticRound(
    const Eigen::Ref<const Eigen::VectorXd>& y, uint64_t norm2_bound, Rng& rng);

class DistributedDiscreteGaussian {
 public:
  // Requires gamma c + sqrt(d) < 2^31 and v <= 2^48.
  static absl::StatusOr<DistributedDiscreteGaussian> Create(
      const DistributedDiscreteGaussianParams& params);

  const DistributedDiscreteGaussianParams& params() const { return params_; }
  int modulus_bits() const { return bits_; }
  double range() const { return range_; }                               // R, integer units
  uint64_t rounded_norm_bound_squared() const { return norm2_bound_; }  // Delta_2^2, grid
  double rounded_l2_bound() const { return std::sqrt(static_cast<double>(norm2_bound_)); }
  Rational per_client_variance() const { return sampler_.variance(); }  // v, grid units

  // Clip, scale, conditionally round, add N_Z(0, v), reduce mod 2^b. Errors: dimension mismatch,
  // non-finite input, or 1000 consecutive rounding rejections (probability beta^1000).
  absl::StatusOr<std::vector<uint64_t>> Encode(const Eigen::Ref<const Eigen::VectorXd>& x,
                                               Rng& rng) const;
  // A client outside the noise committee: Encode without the noise, given only the values of x's
  // support (at most d; the caller keeps their indices). Zero rounds to zero and adds nothing to
  // the norm, so these codes are the noiseless encoding of x on its support, 0 elsewhere.
  absl::StatusOr<std::vector<uint64_t>> EncodeSupport(
      const Eigen::Ref<const Eigen::VectorXd>& support_values, Rng& rng) const;
  // The SecAgg sum (mod 2^b) of `clients` encodings -> estimate of the sum of clipped inputs.
  absl::StatusOr<Eigen::VectorXd> Decode(absl::Span<const uint64_t> sum, int64_t clients) const;

 private:
  // Clip, scale and conditionally round (no noise, no reduction).
  absl::StatusOr<std::vector<int64_t>> Round(const Eigen::Ref<const Eigen::VectorXd>& x,
                                             Rng& rng) const;

  DistributedDiscreteGaussian(const DistributedDiscreteGaussianParams& params,
                              DiscreteGaussianSampler sampler, uint64_t norm2_bound, int bits,
                              double range);

  DistributedDiscreteGaussianParams params_;
  DiscreteGaussianSampler sampler_;
  uint64_t norm2_bound_;
  int bits_;
  double range_;
};

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_DISTRIBUTED_DISCRETE_GAUSSIAN_H_
