// RDP of the Gaussian mechanism: plain (alpha / 2z^2), Poisson-subsampled (Mironov, Talwar, Zhang
// 2019; integer orders by the binomial expansion, fractional orders by the two-series formula, in
// log space), and the SecAgg-distributed variant whose noise is split among >= n_min clients.
// z (the noise multiplier) is the noise standard deviation divided by the L2 sensitivity.
#ifndef FEDMF_COMMON_DP_RDP_GAUSSIAN_H_
#define FEDMF_COMMON_DP_RDP_GAUSSIAN_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/rdp_curve.h"

namespace fedmf::dp {

// alpha / (2 z^2); +inf for z == 0. Requires z >= 0 and a finite order > 1.
absl::StatusOr<double> GaussianRdp(double noise_multiplier, double order);

// One step of the Poisson-subsampled Gaussian mechanism (add/remove-one adjacency), rate in [0, 1].
absl::StatusOr<double> SubsampledGaussianRdp(double sampling_rate, double noise_multiplier,
                                             double order);

// `steps` composed steps of the subsampled Gaussian mechanism on `orders`.
absl::StatusOr<RdpCurve> SubsampledGaussianCurve(double sampling_rate, double noise_multiplier,
                                                 int64_t steps, std::vector<double> orders);

// Gaussian noise added through secure aggregation: every client adds N(0, s^2) with
// s = noise_stddev / sqrt(n_min), so the decoded sum of any >= n_min surviving clients carries
// noise of standard deviation >= noise_stddev. n_min must not count clients that may collude with
// the server: their noise is known to it.
struct SecAggGaussianParams {
  double l2_sensitivity = 0;  // of one client's contribution, after clipping and quantization
  double noise_stddev = 0;    // target standard deviation of the noise in the decoded sum
  int64_t n_min = 0;          // fewest honest clients whose noise the decoded sum contains
};

absl::Status ValidateSecAggGaussian(const SecAggGaussianParams& params);

// The standard deviation each client samples.
absl::StatusOr<double> PerClientNoiseStddev(const SecAggGaussianParams& params);

// RDP of one aggregation round (a Gaussian with z = noise_stddev / l2_sensitivity).
absl::StatusOr<RdpCurve> SecAggGaussianCurve(const SecAggGaussianParams& params,
                                             std::vector<double> orders);

// LFL-SGDMF (fmf paper, Sec. 6) releases two secure sums per round: S1 = G + A (the gradients G
// plus every round-1 survivor's noise, total variance `round1_variance`) and S2 = -A2 + B (round-2
// survivors replace their noise: A2 is their part of A, variance `replaced_variance`, and B the
// fresh noise, variance `fresh_variance`). The server sees both, so the privacy is that of the
// pair, not of S1 + S2 alone: a Gaussian release of G with effective noise variance
// (s^T Sigma^-1 s)^-1 = (v1 (r + f) - r^2) / (r + f), with no round 2 (r + f = 0) just v1.
// With no dropout (r = v1) it is v1 f / (v1 + f): half the paper's claim when f = v1.
// Returns that standard deviation per coordinate; requires v1 >= r >= 0 and f >= 0.
absl::StatusOr<double> TwoRoundReplacementNoiseStddev(double round1_variance,
                                                      double replaced_variance,
                                                      double fresh_variance);

// The smallest noise multiplier z (to relative precision 1e-9) such that `steps` steps of the
// subsampled Gaussian with `sampling_rate` stay within `budget`.
absl::StatusOr<double> CalibrateGaussianNoiseMultiplier(const PrivacyBudget& budget,
                                                        double sampling_rate, int64_t steps,
                                                        std::vector<double> orders);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_RDP_GAUSSIAN_H_
