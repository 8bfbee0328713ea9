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
//
// Simulation shortcut (fedmf-sim --plain_sum --summed_noise): EncodeWithoutNoise uploads the
// rounded data only and AddSummedNoise adds to a sum of n such uploads R(gamma xi),
// xi ~ N(0, n sigma^2/n_min), per coordinate: the Gaussian part of the noise is exactly that of n
// independent shares (a sum of independent Gaussians is Gaussian with the summed variance); the
// n per-share rounding errors (each mean 0, variance <= 1/4 grid unit) become one, so the sum's
// variance is lower by at most (n - 1) / (4 gamma^2) in real units. It must be given the number of
// users whose uploads are in the sum (after dropouts), as Decode is.
//
// Summed uploads (fedmf-sim --summed_uploads, on top of summed noise): a client process adds its
// users' clipped real inputs (AddClipped, AddClippedRankOne) and uploads one encoding of their sum
// (EncodeClippedSum), rounded once instead of once per user: the same unbiased sum, with the same
// bound on each user's clipped input, and n - 1 fewer rounding errors (variance <= 1/4 grid unit
// each) in it, as for summed noise above.
#ifndef FEDMF_COMMON_DP_GAUSSIAN_SECAGG_H_
#define FEDMF_COMMON_DP_GAUSSIAN_SECAGG_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
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
  // Encode without the noise: exact zeros stay zero without a draw (their rounding is exact).
  absl::StatusOr<std::vector<uint64_t>> EncodeWithoutNoise(
      const Eigen::Ref<const Eigen::VectorXd>& x, Rng& rng) const;
  // Adds x clipped as Encode clips it (L2 clip to c, then each coordinate clamped to [-L, L]) to
  // `sum`, in real units. InvalidArgument on a dimension mismatch or a non-finite entry.
  absl::Status AddClipped(const Eigen::Ref<const Eigen::VectorXd>& x,
                          Eigen::Ref<Eigen::VectorXd> sum) const;
  // The same for x = a b^T (a.size() x b.size(), column-major, = d entries) with `sum` that
  // matrix: O(d) work and no copy of x when no coordinate reaches the clamp (its L2 norm is
  // ||a|| ||b||; the clip factor is taken a relative 1e-12 smaller so rounding cannot make the
  // clipped norm exceed c).
  absl::Status AddClippedRankOne(const Eigen::Ref<const Eigen::VectorXd>& a,
                                 const Eigen::Ref<const Eigen::VectorXd>& b,
                                 Eigen::Ref<Eigen::MatrixXd> sum) const;
  // A sum of clipped inputs (real units, from AddClipped*) scaled, rounded and reduced mod 2^b,
  // without noise: the clear upload standing for every input in it. InvalidArgument on a
  // dimension mismatch or a non-finite entry.
  absl::StatusOr<std::vector<uint64_t>> EncodeClippedSum(
      const Eigen::Ref<const Eigen::VectorXd>& sum, Rng& rng) const;
  // Adds the noise of `clients` shares, drawn at once, to `sum` (mod 2^b). InvalidArgument on a
  // dimension mismatch or clients outside [n_min, n_max].
  absl::Status AddSummedNoise(absl::Span<uint64_t> sum, int64_t clients, Rng& rng) const;
  // The SecAgg sum (mod 2^b) of `clients` encodings -> estimate of the sum of clipped inputs.
  // OutOfRange if any coordinate is outside [-R, R] (possible wrap: discard the round).
  absl::StatusOr<Eigen::VectorXd> Decode(absl::Span<const uint64_t> sum, int64_t clients) const;

 private:
  GaussianSecAgg(const GaussianSecAggParams& params, int bits, double range);
  absl::StatusOr<std::vector<uint64_t>> Encode(const Eigen::Ref<const Eigen::VectorXd>& x,
                                               bool noise, Rng& rng) const;
  absl::Status CheckSum(size_t size, int64_t clients, absl::string_view what) const;
  // R(gamma v) mod 2^b, with R(0) = 0 without a draw (its rounding is exact).
  uint64_t RoundWithoutNoise(double value, Rng& rng) const;

  GaussianSecAggParams params_;
  int bits_;
  double range_;
};

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_GAUSSIAN_SECAGG_H_
