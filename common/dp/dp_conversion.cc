#include "common/dp/dp_conversion.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace fedmf::dp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

absl::Status ValidateDelta(double delta) {
  if (!(delta > 0 && delta < 1)) {
    return absl::InvalidArgumentError(absl::StrCat("delta must be in (0, 1), got ", delta));
  }
  return absl::OkStatus();
}

// Minimizes eps_at(order, rdp) over the finite entries of the curve.
template <typename F>
EpsilonAtOrder Minimize(const RdpCurve& curve, F eps_at) {
  EpsilonAtOrder best{kInf, curve.orders().front()};
  for (size_t i = 0; i < curve.orders().size(); ++i) {
    const double rdp = curve.values()[i];
    if (std::isinf(rdp)) continue;
    const double eps = eps_at(curve.orders()[i], rdp);
    if (eps < best.epsilon) best = {eps, curve.orders()[i]};
  }
  best.epsilon = std::max(best.epsilon, 0.0);
  return best;
}

}  // namespace

absl::StatusOr<EpsilonAtOrder> EpsilonImproved(const RdpCurve& curve, double delta) {
  if (absl::Status s = ValidateDelta(delta); !s.ok()) return s;
  const double log_delta = std::log(delta);
  return Minimize(curve, [log_delta](double a, double rdp) {
    return rdp + std::log1p(-1.0 / a) - (log_delta + std::log(a)) / (a - 1.0);
  });
}

absl::StatusOr<EpsilonAtOrder> EpsilonClassic(const RdpCurve& curve, double delta) {
  if (absl::Status s = ValidateDelta(delta); !s.ok()) return s;
  const double log_inv_delta = -std::log(delta);
  return Minimize(
      curve, [log_inv_delta](double a, double rdp) { return rdp + log_inv_delta / (a - 1.0); });
}

absl::StatusOr<double> DeltaImproved(const RdpCurve& curve, double epsilon) {
  if (!(epsilon >= 0) || std::isinf(epsilon)) {
    return absl::InvalidArgumentError(
        absl::StrCat("epsilon must be finite and >= 0, got ", epsilon));
  }
  double log_delta = 0;  // delta = 1 is always achievable
  for (size_t i = 0; i < curve.orders().size(); ++i) {
    const double a = curve.orders()[i];
    const double rdp = curve.values()[i];
    if (std::isinf(rdp)) continue;
    log_delta =
        std::min(log_delta, (a - 1.0) * (rdp - epsilon + std::log1p(-1.0 / a)) - std::log(a));
  }
  return std::exp(log_delta);
}

absl::Status ValidateBudget(const PrivacyBudget& budget) {
  if (!(budget.epsilon >= 0) || std::isinf(budget.epsilon)) {
    return absl::InvalidArgumentError(
        absl::StrCat("budget epsilon must be finite and >= 0, got ", budget.epsilon));
  }
  switch (budget.kind) {
    case PrivacyBudget::Kind::kRdp:
      if (!std::isfinite(budget.order) || budget.order <= 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("budget order must be finite and > 1, got ", budget.order));
      }
      return absl::OkStatus();
    case PrivacyBudget::Kind::kApproxDp:
      return ValidateDelta(budget.delta);
    case PrivacyBudget::Kind::kPureDp:
      return absl::OkStatus();
  }
  return absl::InvalidArgumentError("budget kind is not rdp, approx_dp or pure");
}

std::string FormatBudget(const PrivacyBudget& budget) {
  const absl::string_view unit = PrivacyUnitName(budget.unit);
  switch (budget.kind) {
    case PrivacyBudget::Kind::kRdp:
      return absl::StrFormat("RDP epsilon %g at alpha %g per %s", budget.epsilon, budget.order,
                             unit);
    case PrivacyBudget::Kind::kApproxDp:
      return absl::StrFormat("(%g, %g)-DP per %s", budget.epsilon, budget.delta, unit);
    case PrivacyBudget::Kind::kPureDp:
      return absl::StrFormat("pure epsilon %g per %s", budget.epsilon, unit);
  }
  return "unknown budget kind";
}

absl::StatusOr<PrivacyBudget> ParseBudgetSpec(absl::string_view spec) {
  const auto bad = [spec](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("budget '", spec, "': ", why,
                     " (expected pure:EPS, rdp:EPS@ORDER or approx:EPS,DELTA, optionally followed "
                     "by /user or /rating)"));
  };
  absl::string_view rest = spec;
  PrivacyUnit unit = PrivacyUnit::kUser;
  if (const size_t slash = rest.rfind('/'); slash != absl::string_view::npos) {
    absl::StatusOr<PrivacyUnit> parsed = ParsePrivacyUnit(rest.substr(slash + 1));
    if (!parsed.ok()) return bad(parsed.status().message());
    unit = *parsed;
    rest = rest.substr(0, slash);
  }
  const std::pair<absl::string_view, absl::string_view> kind_numbers =
      absl::StrSplit(rest, absl::MaxSplits(':', 1));
  const absl::string_view kind = kind_numbers.first;
  if (kind != "pure" && kind != "rdp" && kind != "approx") {
    return bad(absl::StrCat("kind '", kind, "' is not pure, rdp or approx"));
  }
  const std::vector<absl::string_view> fields =
      kind == "pure" ? std::vector<absl::string_view>{kind_numbers.second}
                     : absl::StrSplit(kind_numbers.second, kind == "rdp" ? '@' : ',');
  if (fields.size() != (kind == "pure" ? 1u : 2u)) {
    return bad(absl::StrCat(kind == "pure"  ? "a pure budget is one epsilon"
                            : kind == "rdp" ? "an rdp budget is EPS@ORDER"
                                            : "an approx budget is EPS,DELTA"));
  }
  std::vector<double> numbers;
  for (absl::string_view field : fields) {
    double x = 0;
    if (!absl::SimpleAtod(field, &x)) return bad(absl::StrCat("'", field, "' is not a number"));
    numbers.push_back(x);
  }
  const PrivacyBudget budget = kind == "pure" ? PrivacyBudget::PureDp(numbers[0], unit)
                               : kind == "rdp"
                                   ? PrivacyBudget::Rdp(numbers[0], numbers[1], unit)
                                   : PrivacyBudget::ApproxDp(numbers[0], numbers[1], unit);
  if (absl::Status s = ValidateBudget(budget); !s.ok()) return bad(s.message());
  return budget;
}

absl::StatusOr<double> SpentEpsilon(const RdpCurve& curve, const PrivacyBudget& budget) {
  if (absl::Status s = ValidateBudget(budget); !s.ok()) return s;
  if (budget.kind == PrivacyBudget::Kind::kPureDp) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a pure epsilon budget (epsilon ", budget.epsilon,
        ") cannot be measured on an RDP curve: RDP at finitely many orders implies no pure-DP "
        "bound"));
  }
  if (budget.kind == PrivacyBudget::Kind::kRdp) return curve.At(budget.order);
  absl::StatusOr<EpsilonAtOrder> eps = EpsilonImproved(curve, budget.delta);
  if (!eps.ok()) return eps.status();
  return eps->epsilon;
}

absl::StatusOr<bool> WithinBudget(const RdpCurve& curve, const PrivacyBudget& budget) {
  absl::StatusOr<double> spent = SpentEpsilon(curve, budget);
  if (!spent.ok()) return spent.status();
  return *spent <= budget.epsilon;
}

}  // namespace fedmf::dp
