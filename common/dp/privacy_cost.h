// PrivacyCost: what one release, or a composition of releases, costs one privacy unit, in the two
// currencies fedmf composes: an RDP curve, which every release has (a pure epsilon-DP release
// counts as randomized response, the worst epsilon-DP mechanism), and a pure epsilon, the sum of
// the releases' pure epsilons (+infinity once a release without a pure-DP bound is in). It also
// carries the unit protected and whether the figures are the worst case of costs that differ per
// participant (heterogeneous DP). Reports and budget checks on a cost. Conversions and their
// references: docs/privacy-accounting.md, section 2.
#ifndef FEDMF_COMMON_DP_PRIVACY_COST_H_
#define FEDMF_COMMON_DP_PRIVACY_COST_H_

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/privacy_unit.h"
#include "common/dp/rdp_curve.h"

namespace fedmf::dp {

class PrivacyCost {
 public:
  // Nothing spent: RDP 0 at every order, pure epsilon 0, per user (composition's neutral unit).
  static absl::StatusOr<PrivacyCost> Zero(std::vector<double> orders);
  // A release with an RDP analysis only: no pure epsilon.
  static PrivacyCost FromRdp(RdpCurve curve, PrivacyUnit unit, bool heterogeneous = false);
  // A pure epsilon-DP release (epsilon >= 0 or +inf). Its RDP is PureDpRdp(epsilon, alpha) on
  // `orders` (rdp_pure_dp.h): at most min(epsilon, alpha epsilon^2 / 2).
  static absl::StatusOr<PrivacyCost> FromPureDp(double epsilon, std::vector<double> orders,
                                                PrivacyUnit unit, bool heterogeneous = false);

  const RdpCurve& rdp() const { return rdp_; }
  double pure_epsilon() const { return pure_epsilon_; }
  PrivacyUnit unit() const { return unit_; }
  bool heterogeneous() const { return heterogeneous_; }

  // Adds `times` >= 0 copies of `other` (same grid of orders): RDP order by order (Mironov 2017,
  // Prop. 1), pure epsilons summed (basic composition), the smaller unit, heterogeneous if either
  // is. On error nothing changes.
  absl::Status Compose(const PrivacyCost& other, double times = 1.0);

  friend bool operator==(const PrivacyCost&, const PrivacyCost&) = default;

 private:
  PrivacyCost(RdpCurve rdp, double pure_epsilon, PrivacyUnit unit, bool heterogeneous)
      : rdp_(std::move(rdp)),
        pure_epsilon_(pure_epsilon),
        unit_(unit),
        heterogeneous_(heterogeneous) {}

  RdpCurve rdp_;
  double pure_epsilon_;
  PrivacyUnit unit_;
  bool heterogeneous_;
};

// Everything reported for a cost.
struct PrivacyReport {
  PrivacyUnit unit = PrivacyUnit::kUser;
  bool heterogeneous = false;  // figures are the largest cost any participant may have incurred
  double delta = 0;
  double rdp_order2 = 0;    // the DPMF-RP convention: RDP epsilon at alpha = 2, summed over rounds
  EpsilonAtOrder improved;  // (improved.epsilon, delta)-DP by conversion of the RDP curve
  EpsilonAtOrder classic;   // (classic.epsilon, delta)-DP, likewise
  double pure_epsilon = std::numeric_limits<double>::infinity();  // +inf: no pure-DP bound
};
// Requires order 2 on the cost's grid.
absl::StatusOr<PrivacyReport> Report(const PrivacyCost& cost, double delta);

// What the report's figures bound, for machine-read reports (event lines, Status):
// "worst_case", or "worst_case_heterogeneous" when a participant's own cost may be lower.
absl::string_view PrivacyBoundName(const PrivacyReport& report);

// One line for people, e.g. "pure epsilon 2.5, RDP epsilon 0.9 at alpha 2, (2.4, 1e-05)-DP per
// rating (worst case; heterogeneous: a participant's own cost may be lower)". Every figure is a
// worst case over neighbouring datasets, i.e. over the units.
std::string FormatReport(const PrivacyReport& report);

// The epsilon `cost` spends, measured the way `budget` is expressed: kRdp the RDP at its order;
// kPureDp the pure epsilon; kApproxDp the smaller of the improved conversion and the pure epsilon
// (pure epsilon-DP is (epsilon, delta)-DP for every delta). FailedPrecondition when the cost
// protects a smaller unit than the budget (a per-rating guarantee does not bound a user's loss).
absl::StatusOr<double> SpentEpsilon(const PrivacyCost& cost, const PrivacyBudget& budget);

// SpentEpsilon(cost, budget) <= budget.epsilon (compared as doubles, without tolerance).
absl::StatusOr<bool> WithinBudget(const PrivacyCost& cost, const PrivacyBudget& budget);

// A pure-epsilon budget `total` split over `parts` releases by basic composition: total / parts,
// stepped down by ulps until `parts` of them add up to at most `total` as doubles (e.g. 7 x (0.1/7)
// > 0.1), so the last release still fits a ledger that forgives no rounding. total > 0 and finite,
// 1 <= parts <= 1e6 (the check adds `parts` values).
double SplitPureEpsilon(double total, int64_t parts);

}  // namespace fedmf::dp

#endif  // FEDMF_COMMON_DP_PRIVACY_COST_H_
