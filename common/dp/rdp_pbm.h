// RDP of the Poisson Binomial Mechanism (Chen, Ozgur, Kairouz 2022) as used by DPMF-RP, computed
// numerically with no unspecified constant. Each client sends Binom(q, p) per coordinate with
// p in [1/2 - theta, 1/2 + theta]; the server sees only the secure sum over >= n_min clients.
// The bound: every trial of another client is, with probability 1 - 2 theta, a fair coin, else a
// coin independent of the target; revealing which trials are fair (N of them) and the others'
// outcomes only helps the adversary, leaving Binom(j, 1/2 +- theta) + Binom(N, 1/2) with
// N ~ Binom((n_min - 1) q, 1 - 2 theta) revealed, maximized over the j = 1..q trials in which the
// target's two extreme configurations differ. See docs/privacy-accounting.md for the derivation.
#ifndef FEDMF_COMMON_DP_RDP_PBM_H_
#define FEDMF_COMMON_DP_RDP_PBM_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "common/dp/rdp_curve.h"

namespace fedmf::dp {

struct PbmPrivacyParams {
  double theta = 0;   // trial probabilities lie in [1/2 - theta, 1/2 + theta]; 0 <= theta < 1/2
  int64_t q = 1;      // Bernoulli trials per coordinate per client, >= 1
  int64_t n_min = 1;  // fewest honest clients in every secure sum; 1 = no secure aggregation
};

absl::Status ValidatePbmPrivacyParams(const PbmPrivacyParams& params);

// RDP of one coordinate in one round, exact up to floating point (log space throughout; the
// noise-count tails are bounded rigorously, never dropped). Returns ResourceExhaustedError when
// the computation would exceed ~2e9 elementary terms (minutes); a smaller n_min gives a valid,
// looser bound.
absl::StatusOr<RdpCurve> PbmCoordinateCurve(const PbmPrivacyParams& params, std::vector<double> orders);

// One round over `dimension` coordinates, composed as in the paper's eq. (20): dimension times
// the coordinate curve (each coordinate may move over its whole range).
absl::StatusOr<RdpCurve> PbmRoundCurve(const PbmPrivacyParams& params, int64_t dimension,
                                       std::vector<double> orders);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_RDP_PBM_H_
