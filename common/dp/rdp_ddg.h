// RDP of the distributed discrete Gaussian (Kairouz, Liu, Steinke, ICML 2021, Proposition 14, the
// RDP form of their Theorem 1): n honest clients each add N_Z(0, v) (grid units) to an integer
// vector of dimension d, and the sum's change under one client's data is at most Delta_2 in L2 and
// Delta_1 in L1 (grid units). With s = sqrt(n v), l2 = Delta_2 / s, l1 = Delta_1 / s and
//   tau = 10 sum_{k=1}^{n-1} exp(-2 pi^2 v k / (k + 1)),
// the release is (alpha, eps(alpha))-RDP for every alpha > 1 with
//   eps(alpha) = min{ alpha l2^2 / 2 + tau d,
//                     alpha (l2^2 + 2 l1 tau + tau^2 d) / 2,
//                     alpha (l2 + sqrt(d) tau)^2 / 2 }.
// It needs v >= 1/4 (their sigma >= 1/2). With n = 1, tau = 0 and it is the discrete Gaussian's
// alpha Delta_2^2 / (2 v) (Canonne, Kamath, Steinke 2020). More than n clients in a sum only add
// independent noise (post-processing), so n is the SecAgg's n_min.
#ifndef FEDMF_COMMON_DP_RDP_DDG_H_
#define FEDMF_COMMON_DP_RDP_DDG_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/rdp_curve.h"

namespace fedmf::dp {

struct DdgRdpParams {
  double l2_sensitivity = 0;       // Delta_2, grid units
  double l1_sensitivity = 0;       // Delta_1, grid units
  double per_client_variance = 0;  // v, grid units, >= 1/4
  int64_t n_min = 0;               // n
  int64_t dim = 0;                 // d
};

// InvalidArgument naming the first field out of range.
absl::Status ValidateDdgRdp(const DdgRdpParams& params);

// tau of KLS Theorem 1 for n clients of variance v.
double DdgTau(double per_client_variance, int64_t n_min);

// eps(alpha) above, for one release.
absl::StatusOr<double> DdgRdp(const DdgRdpParams& params, double order);

// `steps` composed releases on `orders`.
absl::StatusOr<RdpCurve> DdgCurve(const DdgRdpParams& params, int64_t steps,
                                  std::vector<double> orders);

// The L1 bound KLS use for an integer vector of L2 norm at most l2 in dimension d:
// l2 min(sqrt(d), l2) (|x_j| >= 1 on its support, so ||x||_1 <= ||x||_2^2).
double IntegerL1Bound(double l2, int64_t dim);

// The release of a sum of integer vectors, each of L2 norm <= rounded_l2 (grid units), under the
// replace-one change of one client's vector: 2 rounded_l2 in L2 and 2 IntegerL1Bound in L1, with
// per-client variance total_std^2 / n_min (total_std in grid units).
DdgRdpParams ReplaceOneDdgRelease(double rounded_l2, int64_t dim, int64_t n_min,
                                  double total_std_grid);

// The smallest total noise standard deviation s = sqrt(n_min v) (grid units, to relative
// precision 1e-9) such that `steps` releases with the given sensitivities stay within `budget`;
// s is at least sqrt(n_min) / 2 (v >= 1/4).
absl::StatusOr<double> CalibrateDdgNoise(const PrivacyBudget& budget, double l2_sensitivity,
                                         double l1_sensitivity, int64_t n_min, int64_t dim,
                                         int64_t steps, std::vector<double> orders);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_RDP_DDG_H_
