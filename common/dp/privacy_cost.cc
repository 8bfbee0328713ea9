#include "common/dp/privacy_cost.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/dp/rdp_pure_dp.h"

namespace fedmf::dp {

absl::StatusOr<PrivacyCost> PrivacyCost::Zero(std::vector<double> orders) {
  absl::StatusOr<RdpCurve> zero = RdpCurve::Zero(std::move(orders));
  if (!zero.ok()) return zero.status();
  return PrivacyCost(*std::move(zero), 0.0, PrivacyUnit::kUser, /*heterogeneous=*/false);
}

PrivacyCost PrivacyCost::FromRdp(RdpCurve curve, PrivacyUnit unit, bool heterogeneous) {
  return PrivacyCost(std::move(curve), std::numeric_limits<double>::infinity(), unit,
                     heterogeneous);
}

absl::StatusOr<PrivacyCost> PrivacyCost::FromPureDp(double epsilon, std::vector<double> orders,
                                                    PrivacyUnit unit, bool heterogeneous) {
  absl::StatusOr<RdpCurve> curve = PureDpCurve(epsilon, std::move(orders));
  if (!curve.ok()) return curve.status();
  return PrivacyCost(*std::move(curve), epsilon, unit, heterogeneous);
}

absl::Status PrivacyCost::Compose(const PrivacyCost& other, double times) {
  if (absl::Status s = rdp_.Compose(other.rdp_, times); !s.ok()) return s;
  // 0 * inf would be NaN: composing a release zero times adds nothing.
  if (times > 0) pure_epsilon_ += times * other.pure_epsilon_;
  unit_ = ComposedUnit(unit_, other.unit_);
  heterogeneous_ = heterogeneous_ || other.heterogeneous_;
  return absl::OkStatus();
}

absl::StatusOr<PrivacyReport> Report(const PrivacyCost& cost, double delta) {
  PrivacyReport report;
  report.unit = cost.unit();
  report.heterogeneous = cost.heterogeneous();
  report.delta = delta;
  report.pure_epsilon = cost.pure_epsilon();
  absl::StatusOr<double> rdp2 = cost.rdp().At(2.0);
  if (!rdp2.ok()) return rdp2.status();
  report.rdp_order2 = *rdp2;
  absl::StatusOr<EpsilonAtOrder> improved = EpsilonImproved(cost.rdp(), delta);
  if (!improved.ok()) return improved.status();
  report.improved = *improved;
  absl::StatusOr<EpsilonAtOrder> classic = EpsilonClassic(cost.rdp(), delta);
  if (!classic.ok()) return classic.status();
  report.classic = *classic;
  return report;
}

absl::string_view PrivacyBoundName(const PrivacyReport& report) {
  return report.heterogeneous ? "worst_case_heterogeneous" : "worst_case";
}

std::string FormatReport(const PrivacyReport& report) {
  std::string out;
  if (std::isfinite(report.pure_epsilon)) {
    absl::StrAppend(&out, absl::StrFormat("pure epsilon %g, ", report.pure_epsilon));
  }
  absl::StrAppend(
      &out,
      absl::StrFormat("RDP epsilon %g at alpha 2, (%g, %g)-DP per %s (worst case",
                      report.rdp_order2, report.improved.epsilon, report.delta,
                      PrivacyUnitName(report.unit)),
      report.heterogeneous ? "; heterogeneous: a participant's own cost may be lower)" : ")");
  return out;
}

absl::StatusOr<double> SpentEpsilon(const PrivacyCost& cost, const PrivacyBudget& budget) {
  if (absl::Status s = ValidateBudget(budget); !s.ok()) return s;
  if (!Covers(cost.unit(), budget.unit)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the spending protects one ", PrivacyUnitName(cost.unit()), " but the budget is per ",
        PrivacyUnitName(budget.unit), ": a per-", PrivacyUnitName(cost.unit()),
        " guarantee does not bound the loss of a whole ", PrivacyUnitName(budget.unit)));
  }
  switch (budget.kind) {
    case PrivacyBudget::Kind::kPureDp:
      return cost.pure_epsilon();
    case PrivacyBudget::Kind::kApproxDp: {
      absl::StatusOr<double> converted = SpentEpsilon(cost.rdp(), budget);
      if (!converted.ok()) return converted.status();
      return std::min(*converted, cost.pure_epsilon());
    }
    case PrivacyBudget::Kind::kRdp:
      return SpentEpsilon(cost.rdp(), budget);
  }
  return absl::InvalidArgumentError("budget kind is not rdp, approx_dp or pure");
}

absl::StatusOr<bool> WithinBudget(const PrivacyCost& cost, const PrivacyBudget& budget) {
  absl::StatusOr<double> spent = SpentEpsilon(cost, budget);
  if (!spent.ok()) return spent.status();
  return *spent <= budget.epsilon;
}

double SplitPureEpsilon(double total, int64_t parts) {
  double share = total / static_cast<double>(parts);
  while (true) {
    double sum = 0;
    for (int64_t t = 0; t < parts; ++t) sum += share;
    if (sum <= total) return share;
    share = std::nextafter(share, 0.0);
  }
}

}  // namespace fedmf::dp
