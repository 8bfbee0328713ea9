// RDP of one PBM round when the vector a client privatizes has a bounded L2 norm: a sound bound
// that charges each coordinate by the square of its shift instead of its whole range [-c, c].
// Proved for orders >= 2 (docs/privacy-accounting.md, section 4.6); orders below 2 take the
// value at order 2 (Renyi divergence grows with the order), and every order keeps the smaller
// of this bound and the coordinate-wise one of rdp_pbm.h (dimension times PbmCoordinateCurve).
#ifndef FEDMF_COMMON_DP_RDP_PBM_L2_H_
#define FEDMF_COMMON_DP_RDP_PBM_L2_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "common/dp/rdp_curve.h"
#include "common/dp/rdp_pbm.h"

namespace fedmf::dp {

// Lambda_alpha(theta), for alpha >= 2 and 0 <= theta < 1/2: for all p, p' in
// [1/2 - theta, 1/2 + theta], E_Q[(P/Q)^alpha] - 1 <= (p - p')^2 Lambda_alpha(theta) with
// P = Bern(p), Q = Bern(p'). Lambda = G(2 theta / lo) / lo + alpha (alpha - 1) / (2 hi), with
// G(z) = ((1 + z)^alpha - 1 - alpha z) / z^2, lo = 1/2 - theta, hi = 1/2 + theta; +infinity
// where (1 + z)^alpha overflows.
double PbmBernoulliCurvature(double theta, double alpha);

// Psi_alpha: E[v^2 Lambda_alpha(theta |v|)] with v = 2 s / K - 1, s ~ Binom(K, 1/2),
// K = 1 + Binom(n_min - 1, 1 - 2 theta): one trial's E_Q[(P/Q)^alpha] - 1 is at most
// (p - p')^2 Psi_alpha under the secure sum (section 4.6). An upper bound: the noise counts and
// outcomes too unlikely to matter are bounded, never dropped. alpha >= 2.
absl::StatusOr<double> PbmShiftCurvature(const PbmPrivacyParams& params, double alpha);

// One round over `dimension` coordinates in [-c, c] whose vector has L2 norm at most
// `l2_over_clip` times c (e.g. sqrt(D) / gamma for DPMF-RP's rotated_l2): for orders >= 2,
// min(dimension eps_coord, q (2 theta l2_over_clip)^2 Psi_alpha / (alpha - 1)), since a
// neighbour's vector differs by at most 2 l2_over_clip c in L2.
absl::StatusOr<RdpCurve> PbmL2RoundCurve(const PbmPrivacyParams& params, int64_t dimension,
                                         double l2_over_clip, std::vector<double> orders);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_RDP_PBM_L2_H_
