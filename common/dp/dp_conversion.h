// Conversions from a Renyi-DP curve to (epsilon, delta)-DP, and privacy budgets: RDP at an order
// (the paper's alpha = 2 convention), (epsilon, delta)-DP, or pure epsilon-DP. Every conversion
// minimizes over the curve's orders. Measuring a whole privacy cost (RDP and pure epsilon) against
// a budget: privacy_cost.h.
#ifndef FEDMF_COMMON_DP_DP_CONVERSION_H_
#define FEDMF_COMMON_DP_DP_CONVERSION_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/dp/privacy_unit.h"
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

// A privacy budget for a whole training run or a participant's lifetime, for one privacy unit:
// an RDP epsilon at one order (the paper's "epsilon at alpha = 2"), (epsilon, delta)-DP measured
// with EpsilonImproved, or pure epsilon-DP under basic composition (the sum of the releases'
// epsilons).
struct PrivacyBudget {
  enum class Kind { kRdp, kApproxDp, kPureDp };
  Kind kind = Kind::kRdp;
  double epsilon = 0;
  double order = 2;  // kRdp: the order (must be on the grid of the curves it is checked against)
  double delta = 0;  // kApproxDp
  // What the budget protects; releases that protect a smaller unit do not fit it (privacy_unit.h).
  PrivacyUnit unit = PrivacyUnit::kUser;

  static PrivacyBudget Rdp(double epsilon, double order = 2,
                           PrivacyUnit unit = PrivacyUnit::kUser) {
    return {Kind::kRdp, epsilon, order, 0, unit};
  }
  static PrivacyBudget ApproxDp(double epsilon, double delta,
                                PrivacyUnit unit = PrivacyUnit::kUser) {
    return {Kind::kApproxDp, epsilon, 0, delta, unit};
  }
  static PrivacyBudget PureDp(double epsilon, PrivacyUnit unit = PrivacyUnit::kUser) {
    return {Kind::kPureDp, epsilon, 0, 0, unit};
  }
  // An algorithm's --epsilon/--delta: (epsilon, delta)-DP, or with delta = 0 RDP epsilon at
  // `rdp_order` (the papers' convention, kept for comparison).
  static PrivacyBudget FromEpsilonDelta(double epsilon, double delta, double rdp_order = 2) {
    return delta > 0 ? ApproxDp(epsilon, delta) : Rdp(epsilon, rdp_order);
  }
};

absl::Status ValidateBudget(const PrivacyBudget& budget);

// For people: "RDP epsilon 1 at alpha 2 per user", "(1, 1e-05)-DP per user" or "pure epsilon 0.5
// per rating".
std::string FormatBudget(const PrivacyBudget& budget);

// A budget written on a command line or in a config: "pure:EPS", "rdp:EPS@ORDER" or
// "approx:EPS,DELTA", optionally followed by "/user" (the default) or "/rating", e.g.
// "approx:1,1e-6/rating". InvalidArgument quoting `spec` and naming what is wrong, for a malformed
// spec or a budget ValidateBudget refuses.
absl::StatusOr<PrivacyBudget> ParseBudgetSpec(absl::string_view spec);

// The epsilon `curve` spends, measured the way `budget` is expressed. InvalidArgument for a pure
// budget: RDP at finitely many orders implies no pure-DP bound.
absl::StatusOr<double> SpentEpsilon(const RdpCurve& curve, const PrivacyBudget& budget);

// SpentEpsilon(curve, budget) <= budget.epsilon.
absl::StatusOr<bool> WithinBudget(const RdpCurve& curve, const PrivacyBudget& budget);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_DP_CONVERSION_H_
