// RDP of mechanisms with a pure-DP analysis: the Laplace mechanism (Mironov 2017) and
// randomized response, which is the worst case for any epsilon-DP mechanism (so its curve is a
// valid RDP curve for every epsilon-DP mechanism, e.g. the local-DP binary gradient).
#ifndef FEDMF_COMMON_DP_RDP_PURE_DP_H_
#define FEDMF_COMMON_DP_RDP_PURE_DP_H_

#include <vector>

#include "absl/status/statusor.h"
#include "common/dp/rdp_curve.h"

namespace fedmf::dp {

// D_alpha(Bern(a) || Bern(b)) for a, b in [0, 1]; +inf when the support of Bern(a) is not
// contained in that of Bern(b).
absl::StatusOr<double> BernoulliRenyiDivergence(double a, double b, double order);

// Laplace noise of scale b on a function with L1 sensitivity Delta, `scale_over_sensitivity`
// = b / Delta > 0: (1/(alpha-1)) log(alpha/(2alpha-1) e^((alpha-1)/l) + (alpha-1)/(2alpha-1)
// e^(-alpha/l)) with l = b / Delta. For vector outputs this is the worst case over all splits of
// the L1 sensitivity among coordinates (the per-coordinate RDP is convex in the shift and 0 at 0,
// hence superadditive).
absl::StatusOr<double> LaplaceRdp(double scale_over_sensitivity, double order);
absl::StatusOr<RdpCurve> LaplaceCurve(double scale_over_sensitivity, std::vector<double> orders);

// Randomized response with parameter epsilon: D_alpha(Bern(e^eps/(1+e^eps)) || Bern(1/(1+e^eps))).
absl::StatusOr<double> PureDpRdp(double epsilon, double order);
absl::StatusOr<RdpCurve> PureDpCurve(double epsilon, std::vector<double> orders);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_RDP_PURE_DP_H_
