#include "common/dp/rdp_ddg.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dp/monotone_search.h"

namespace fedmf::dp {
namespace {

absl::Status Bad(absl::string_view field, double value, absl::string_view requirement) {
  return absl::InvalidArgumentError(absl::StrCat("ddg rdp: ", field, "=", value, " ", requirement));
}

}  // namespace

absl::Status ValidateDdgRdp(const DdgRdpParams& p) {
  if (!std::isfinite(p.l2_sensitivity) || p.l2_sensitivity < 0) {
    return Bad("l2_sensitivity", p.l2_sensitivity, "must be >= 0");
  }
  if (!std::isfinite(p.l1_sensitivity) || p.l1_sensitivity < 0) {
    return Bad("l1_sensitivity", p.l1_sensitivity, "must be >= 0");
  }
  // KLS Proposition 14 assumes sigma >= 1/2 per client. The calibrations floor the total std at
  // sqrt(n) / 2, whose square over n rounds an ulp below 1/4 for many n (3, 6, 12, ...): a few
  // ulps of slack keep that floor valid without admitting any smaller variance.
  constexpr double kQuarterWithRounding = 0.25 * (1 - 8 * std::numeric_limits<double>::epsilon());
  if (!std::isfinite(p.per_client_variance) || p.per_client_variance < kQuarterWithRounding) {
    return Bad("per_client_variance", p.per_client_variance, "must be >= 1/4");
  }
  if (p.n_min < 1) return Bad("n_min", static_cast<double>(p.n_min), "must be >= 1");
  if (p.dim < 1) return Bad("dim", static_cast<double>(p.dim), "must be >= 1");
  return absl::OkStatus();
}

double DdgTau(double per_client_variance, int64_t n_min) {
  const double c = 2 * std::numbers::pi * std::numbers::pi * per_client_variance;
  double sum = 0;
  for (int64_t k = 1; k < n_min; ++k) {
    const double kd = static_cast<double>(k);
    sum += std::exp(-c * kd / (kd + 1));
  }
  return 10 * sum;
}

absl::StatusOr<double> DdgRdp(const DdgRdpParams& p, double order) {
  if (absl::Status s = ValidateDdgRdp(p); !s.ok()) return s;
  if (!std::isfinite(order) || order <= 1) {
    return absl::InvalidArgumentError(absl::StrCat("ddg rdp: order ", order, " must be > 1"));
  }
  const double scale = std::sqrt(static_cast<double>(p.n_min) * p.per_client_variance);
  const double l2 = p.l2_sensitivity / scale;
  const double l1 = p.l1_sensitivity / scale;
  const double tau = DdgTau(p.per_client_variance, p.n_min);
  const double d = static_cast<double>(p.dim);
  const double half = order / 2;
  return std::min({half * l2 * l2 + tau * d, half * (l2 * l2 + 2 * l1 * tau + tau * tau * d),
                   half * (l2 + std::sqrt(d) * tau) * (l2 + std::sqrt(d) * tau)});
}

absl::StatusOr<RdpCurve> DdgCurve(const DdgRdpParams& params, int64_t steps,
                                  std::vector<double> orders) {
  if (steps < 0) return Bad("steps", static_cast<double>(steps), "must be >= 0");
  return RdpCurve::FromFunction(std::move(orders), [&](double order) -> absl::StatusOr<double> {
    absl::StatusOr<double> one = DdgRdp(params, order);
    if (!one.ok()) return one.status();
    return *one * static_cast<double>(steps);
  });
}

double IntegerL1Bound(double l2, int64_t dim) {
  return l2 * std::min(std::sqrt(static_cast<double>(dim)), l2);
}

DdgRdpParams ReplaceOneDdgRelease(double rounded_l2, int64_t dim, int64_t n_min,
                                  double total_std_grid) {
  return {.l2_sensitivity = 2 * rounded_l2,
          .l1_sensitivity = 2 * IntegerL1Bound(rounded_l2, dim),
          .per_client_variance = total_std_grid * total_std_grid / static_cast<double>(n_min),
          .n_min = n_min,
          .dim = dim};
}

absl::StatusOr<double> CalibrateDdgNoise(const PrivacyBudget& budget, double l2_sensitivity,
                                         double l1_sensitivity, int64_t n_min, int64_t dim,
                                         int64_t steps, std::vector<double> orders) {
  if (absl::Status s = ValidateBudget(budget); !s.ok()) return s;
  if (!(budget.epsilon > 0)) {
    return absl::InvalidArgumentError("a zero budget needs infinite discrete Gaussian noise");
  }
  const double n = static_cast<double>(n_min);
  const double floor = std::sqrt(n) / 2;  // v >= 1/4
  // Searched as a multiple m >= 1 of the floor: spending decreases in m (l2, l1 and tau all do).
  absl::StatusOr<double> multiple = SmallestFitting(
      [&](double m) -> absl::StatusOr<bool> {
        const double s = floor * std::max(m, 1.0);
        absl::StatusOr<RdpCurve> curve = DdgCurve({.l2_sensitivity = l2_sensitivity,
                                                   .l1_sensitivity = l1_sensitivity,
                                                   .per_client_variance = s * s / n,
                                                   .n_min = n_min,
                                                   .dim = dim},
                                                  steps, orders);
        if (!curve.ok()) return curve.status();
        return WithinBudget(*curve, budget);
      },
      "a discrete Gaussian noise");
  if (!multiple.ok()) return multiple.status();
  return floor * std::max(*multiple, 1.0);
}

}  // namespace fedmf::dp
