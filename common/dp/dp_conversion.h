// Conversions from a Renyi-DP curve to (epsilon, delta)-DP, the paper's own alpha = 2 convention,
// and privacy budgets expressed either way. Every conversion minimizes over the curve's orders.
#ifndef FEDMF_COMMON_DP_DP_CONVERSION_H_
#define FEDMF_COMMON_DP_DP_CONVERSION_H_

#include "absl/status/statusor.h"
#include "common/dp/rdp_curve.h"

namespace fedmf::dp {

struct EpsilonAtOrder {
  double epsilon = 0;
  double order = 0;  // the order attaining the minimum
};

// Balle et al. 2020 (Thm. 21) / Canonne, Kamath, Steinke 2020 (Prop. 12):
// eps = min_alpha rdp(alpha) + log((alpha-1)/alpha) - (log delta + log alpha) / (alpha-1),
// clamped at 0. Requires 0 < delta < 1. +infinity if every order has infinite RDP.
absl::StatusOr<EpsilonAtOrder> EpsilonImproved(const RdpCurve& curve, double delta);

// Mironov 2017 (Prop. 3): eps = min_alpha rdp(alpha) + log(1/delta) / (alpha-1).
absl::StatusOr<EpsilonAtOrder> EpsilonClassic(const RdpCurve& curve, double delta);

// Inverse of EpsilonImproved: the smallest delta (capped at 1) at which the curve gives epsilon.
absl::StatusOr<double> DeltaImproved(const RdpCurve& curve, double epsilon);

// Everything reported for a spent curve.
struct PrivacyReport {
  double delta = 0;
  double rdp_order2 = 0;    // the DPMF-RP convention: RDP epsilon at alpha = 2, summed over rounds
  EpsilonAtOrder improved;  // (improved.epsilon, delta)-DP
  EpsilonAtOrder classic;   // (classic.epsilon, delta)-DP
};
// Requires order 2 on the curve's grid.
absl::StatusOr<PrivacyReport> Report(const RdpCurve& curve, double delta);

// A privacy budget for a whole training run, either an RDP epsilon at one order (the paper's
// "epsilon at alpha = 2") or (epsilon, delta)-DP measured with EpsilonImproved.
struct PrivacyBudget {
  enum class Kind { kRdp, kApproxDp };
  Kind kind = Kind::kRdp;
  double epsilon = 0;
  double order = 2;  // kRdp: the order (must be on the grid of the curves it is checked against)
  double delta = 0;  // kApproxDp

  static PrivacyBudget Rdp(double epsilon, double order = 2) {
    return {Kind::kRdp, epsilon, order, 0};
  }
  static PrivacyBudget ApproxDp(double epsilon, double delta) {
    return {Kind::kApproxDp, epsilon, 0, delta};
  }
};

absl::Status ValidateBudget(const PrivacyBudget& budget);

// The epsilon `curve` spends, measured the way `budget` is expressed.
absl::StatusOr<double> SpentEpsilon(const RdpCurve& curve, const PrivacyBudget& budget);

// SpentEpsilon(curve, budget) <= budget.epsilon.
absl::StatusOr<bool> WithinBudget(const RdpCurve& curve, const PrivacyBudget& budget);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_DP_CONVERSION_H_
