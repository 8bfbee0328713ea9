#include "common/dp/log_space.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace fedmf::dp {

double LogAdd(double log_x, double log_y) {
  const double hi = std::max(log_x, log_y);
  const double lo = std::min(log_x, log_y);
  if (lo == kLogZero || hi == std::numeric_limits<double>::infinity()) return hi;
  return hi + std::log1p(std::exp(lo - hi));
}

double LogSumExp(absl::Span<const double> log_terms) {
  double max = kLogZero;
  for (double t : log_terms) max = std::max(max, t);
  if (max == kLogZero || std::isinf(max)) return max;
  double sum = 0;
  for (double t : log_terms) sum += std::exp(t - max);
  return max + std::log(sum);
}

double LogErfc(double x) {
  // Below this point std::erfc is a normal number computed to ~1 ulp, so its log is accurate.
  constexpr double kSwitch = 25.0;
  if (x < kSwitch) return std::log(std::erfc(x));
  // Asymptotic expansion erfc(x) = exp(-x^2) / (x sqrt(pi)) * sum_k (-1)^k (2k-1)!! / (2x^2)^k;
  // at x >= 25 the first omitted term is below 1e-15 relative.
  const double inv2x2 = 1.0 / (2.0 * x * x);
  double term = 1.0;
  double series = 1.0;
  for (int k = 1; k <= 6; ++k) {
    term *= -(2.0 * k - 1.0) * inv2x2;
    series += term;
  }
  return -x * x - std::log(x) - 0.5 * std::log(std::numbers::pi) + std::log(series);
}

double LogBinomial(int64_t n, int64_t k) {
  if (k < 0 || k > n) return kLogZero;
  if (k == 0 || k == n) return 0.0;
  return std::lgamma(static_cast<double>(n) + 1.0) - std::lgamma(static_cast<double>(k) + 1.0) -
         std::lgamma(static_cast<double>(n - k) + 1.0);
}

double Log1pExp(double x) {
  return x > 30.0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

}  // namespace fedmf::dp
