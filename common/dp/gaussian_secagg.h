// Gaussian mechanism for secure aggregation (the LFL-SGDMF recipe of the FMF privacy paper,
// Section 6.1, in fixed point): each client L2-clips its vector to c, scales by gamma, rounds it
// stochastically (unbiased) to integers, adds integer noise R(gamma xi), xi ~ N(0, sigma^2/n_min)
// (R = stochastic rounding), and reduces mod 2^b. When any n >= n_min clients survive SecAgg, the
// decoded sum carries Gaussian noise of variance n sigma^2 / n_min >= sigma^2 per coordinate.
//
// Privacy facts for the accountant: the noise is independent of the data; the rounded, clipped
// vector has L2 norm <= gamma c + sqrt(d) in grid units, i.e. l2_sensitivity() = c + sqrt(d)/gamma
// in real units. The noise in the sum is sum_i R(gamma xi_i) / gamma = N(0, n sigma^2/n_min) plus
// a bounded rounding term (variance about n / (6 gamma^2)); treating it as exactly Gaussian is an
// approximation that improves as gamma sigma / sqrt(n_min) grows. For an exact integer-noise
// guarantee use distributed_discrete_gaussian.h.
//
// Overflow policy (fixed_point.h): range() = n_max (gamma L + 2) + z sqrt(n_max) gamma sigma /
// sqrt(n_min) with L the per-coordinate bound of the clipped input and z = TailMultiplier(eta, d),
// so P(some coordinate of the sum leaves [-R, R]) <= eta; modulus_bits() has 2^(b-1) > 2R; Decode
// reports OutOfRange instead of returning a wrapped value.
#ifndef FEDMF_COMMON_DP_GAUSSIAN_SECAGG_H_
#define FEDMF_COMMON_DP_GAUSSIAN_SECAGG_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/dp/rng.h"

namespace fedmf::dp {

struct GaussianSecAggParams {
  int64_t dim = 0;                 // d
  double clip_norm = 0;            // c: L2 bound of each client's vector
  double linf_bound = 0;           // L <= c: coordinates are clamped to [-L, L]; 0 means c
  double noise_std = 0;            // sigma: noise std per coordinate of a sum of n_min clients
  int64_t min_clients = 0;         // n_min: the SecAgg threshold
  int64_t max_clients = 0;         // n_max: most clients in one sum
  double scale = 0;                // gamma: integer units per real unit
  double wrap_probability = 1e-9;  // eta
};

class GaussianSecAgg {
 public:
  static absl::StatusOr<GaussianSecAgg> Create(const GaussianSecAggParams& params);

  const GaussianSecAggParams& params() const { return params_; }
  int modulus_bits() const { return bits_; }
  double range() const { return range_; }  // R, in integer units
  double per_client_noise_std() const;     // sigma / sqrt(n_min), real units
  double l2_sensitivity() const;           // c + sqrt(d) / gamma, real units

  // Clip, scale, round, add noise, reduce mod 2^b. Error on a dimension mismatch or a non-finite
  // entry. Coordinate order is that of x.
  absl::StatusOr<std::vector<uint64_t>> Encode(const Eigen::Ref<const Eigen::VectorXd>& x,
                                               Rng& rng) const;
  // The SecAgg sum (mod 2^b) of `clients` encodings -> estimate of the sum of clipped inputs.
  // OutOfRange if any coordinate is outside [-R, R] (possible wrap: discard the round).
  absl::StatusOr<Eigen::VectorXd> Decode(absl::Span<const uint64_t> sum, int64_t clients) const;

 private:
  GaussianSecAgg(const GaussianSecAggParams& params, int bits, double range);

  GaussianSecAggParams params_;
  int bits_;
  double range_;
};

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_GAUSSIAN_SECAGG_H_
