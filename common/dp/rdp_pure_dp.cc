#include "common/dp/rdp_pure_dp.h"

#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dp/log_space.h"

namespace fedmf::dp {
absl::StatusOr<double> BernoulliRenyiDivergence(double a, double b, double order) {
  if (absl::Status s = ValidateOrder(order); !s.ok()) return s;
  if (!(a >= 0 && a <= 1 && b >= 0 && b <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Bernoulli parameters must be in [0, 1], got ", a, " and ", b));
  }
  // sum over x in {0, 1} of P(x)^alpha Q(x)^(1-alpha); a term with P(x) = 0 contributes nothing.
  std::array<double, 2> log_terms = {kLogZero, kLogZero};
  const std::array<std::pair<double, double>, 2> pq = {{{a, b}, {1 - a, 1 - b}}};
  for (int x = 0; x < 2; ++x) {
    const auto [p, q] = pq[x];
    if (p == 0) continue;
    if (q == 0) return std::numeric_limits<double>::infinity();
    log_terms[x] = order * std::log(p) + (1 - order) * std::log(q);
  }
  return std::max(0.0, LogSumExp(log_terms) / (order - 1));
}

absl::StatusOr<double> LaplaceRdp(double scale_over_sensitivity, double order) {
  if (absl::Status s = ValidateOrder(order); !s.ok()) return s;
  if (!(scale_over_sensitivity > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Laplace scale / sensitivity must be > 0, got ", scale_over_sensitivity));
  }
  const double inv = 1.0 / scale_over_sensitivity;
  const std::array<double, 2> log_terms = {std::log(order / (2 * order - 1)) + (order - 1) * inv,
                                           std::log((order - 1) / (2 * order - 1)) - order * inv};
  return std::max(0.0, LogSumExp(log_terms) / (order - 1));
}

absl::StatusOr<RdpCurve> LaplaceCurve(double scale_over_sensitivity, std::vector<double> orders) {
  return RdpCurve::FromFunction(
      std::move(orders), [&](double order) { return LaplaceRdp(scale_over_sensitivity, order); });
}

absl::StatusOr<double> PureDpRdp(double epsilon, double order) {
  if (absl::Status s = ValidateOrder(order); !s.ok()) return s;
  if (!(epsilon >= 0)) {
    return absl::InvalidArgumentError(absl::StrCat("epsilon must be >= 0, got ", epsilon));
  }
  if (std::isinf(epsilon)) return std::numeric_limits<double>::infinity();
  // p = e^eps / (1 + e^eps) and 1 - p in log space, so a huge epsilon neither rounds p to 1 nor
  // underflows 1 - p.
  const double log_p = -Log1pExp(-epsilon);
  const double log_1mp = -Log1pExp(epsilon);
  const std::array<double, 2> log_terms = {order * log_p + (1 - order) * log_1mp,
                                           order * log_1mp + (1 - order) * log_p};
  return std::max(0.0, LogSumExp(log_terms) / (order - 1));
}

absl::StatusOr<RdpCurve> PureDpCurve(double epsilon, std::vector<double> orders) {
  return RdpCurve::FromFunction(std::move(orders),
                                [&](double order) { return PureDpRdp(epsilon, order); });
}

}  // namespace fedmf::dp
