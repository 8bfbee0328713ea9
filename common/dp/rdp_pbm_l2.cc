#include "common/dp/rdp_pbm_l2.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dp/log_space.h"

namespace fedmf::dp {
namespace {

// Outcomes whose probability is within e^-kExactNats of the most likely one are summed exactly;
// the rest are bounded by their count times that threshold times the largest summand.
constexpr double kExactNats = 40;
// The sums below add positive terms (relative rounding error ~1e-11 at most); the result is
// inflated by this much so that it stays an upper bound in floating point.
constexpr double kRoundingSafety = 1e-9;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// G(z) = ((1 + z)^alpha - 1 - alpha z) / z^2 = sum_{k >= 2} C(alpha, k) z^(k-2), z >= 0.
double SecondOrderRemainder(double alpha, double z) {
  if (alpha * z < 0.5) {  // the series: successive terms shrink by |z (alpha - k) / (k + 1)| < 1/6
    double coefficient = alpha * (alpha - 1) / 2;
    double sum = 0;
    for (int k = 2; k < 200; ++k) {
      sum += coefficient;
      coefficient *= z * (alpha - k) / (k + 1);
      if (std::abs(coefficient) <= 1e-17 * std::abs(sum)) break;
    }
    return sum;
  }
  const double log_power = alpha * std::log1p(z);
  if (log_power > 700) return kInfinity;
  return (std::expm1(log_power) - alpha * z) / (z * z);  // no cancellation: alpha z >= 1/2
}

// [first, last]: the contiguous range of k whose log weight is within kExactNats of the largest,
// for weights unimodal in k on [0, n] with the largest at `mode`.
template <typename LogWeight>
std::pair<int64_t, int64_t> Core(int64_t n, int64_t mode, const LogWeight& log_weight) {
  const double threshold = log_weight(mode) - kExactNats;
  int64_t first = mode;
  int64_t last = mode;
  while (first > 0 && log_weight(first - 1) >= threshold) --first;
  while (last < n && log_weight(last + 1) >= threshold) ++last;
  return {first, last};
}

// Weight bound of everything outside [first, last] of [0, n]: each term is below the threshold.
double OutsideWeight(int64_t n, std::pair<int64_t, int64_t> core, double log_max) {
  const auto outside = static_cast<double>(n + 1 - (core.second - core.first + 1));
  return outside * std::exp(log_max - kExactNats);
}

absl::Status ValidateShiftOrders(const std::vector<double>& orders) {
  for (double alpha : orders) {
    if (!(alpha >= 2)) {
      return absl::InvalidArgumentError(
          absl::StrCat("PBM shift curvature needs orders >= 2, got ", alpha));
    }
  }
  return ValidateOrders(orders);
}

// Psi at every order (all >= 2).
absl::StatusOr<std::vector<double>> ShiftCurvatures(const PbmPrivacyParams& params,
                                                    const std::vector<double>& orders) {
  if (absl::Status s = ValidatePbmPrivacyParams(params); !s.ok()) return s;
  if (absl::Status s = ValidateShiftOrders(orders); !s.ok()) return s;
  const double theta = params.theta;
  std::vector<double> full(orders.size());  // Lambda(theta): bounds every summand, as v^2 <= 1
  for (size_t o = 0; o < orders.size(); ++o) full[o] = PbmBernoulliCurvature(theta, orders[o]);

  // The fair trials among the other n_min - 1 clients' trials: N ~ Binom(m, 1 - 2 theta).
  const int64_t m = params.n_min - 1;
  const double log_fair = std::log1p(-2 * theta);
  const double log_unfair = std::log(2 * theta);
  auto log_w = [&](int64_t n) { return LogBinomial(m, n) + n * log_fair + (m - n) * log_unfair; };
  const auto mode = std::min<int64_t>(
      m, static_cast<int64_t>(std::floor(static_cast<double>(m + 1) * (1 - 2 * theta))));
  const std::pair<int64_t, int64_t> noise_core = Core(m, mode, log_w);
  const double noise_tail = OutsideWeight(m, noise_core, log_w(mode));

  std::vector<double> psi(orders.size(), 0.0);
  for (int64_t n = noise_core.first; n <= noise_core.second; ++n) {
    // Given N, the trial's outcome s of K = N + 1 fair coins has v = 2 s / K - 1 (derivation in
    // the docs); v(K - s) = -v(s), so s >= K/2 covers both halves.
    const int64_t k = n + 1;
    const double weight = std::exp(log_w(n));
    auto log_b = [&](int64_t s) { return LogBinomial(k, s) - k * std::numbers::ln2; };
    const std::pair<int64_t, int64_t> core = Core(k, k / 2, log_b);
    const double tail = OutsideWeight(k, core, log_b(k / 2));
    for (int64_t s = (k + 1) / 2; s <= core.second; ++s) {
      const double v = (2.0 * s - k) / k;
      const double b = std::exp(log_b(s)) * (2 * s == k ? 1 : 2);
      for (size_t o = 0; o < orders.size(); ++o) {
        psi[o] += weight * b * v * v * PbmBernoulliCurvature(theta * v, orders[o]);
      }
    }
    for (size_t o = 0; o < orders.size(); ++o) psi[o] += weight * tail * full[o];
  }
  for (size_t o = 0; o < orders.size(); ++o) {
    psi[o] = (psi[o] + noise_tail * full[o]) * (1 + kRoundingSafety);
  }
  return psi;
}

}  // namespace

double PbmBernoulliCurvature(double theta, double alpha) {
  const double lo = 0.5 - theta;
  const double hi = 0.5 + theta;
  return SecondOrderRemainder(alpha, 2 * theta / lo) / lo + alpha * (alpha - 1) / (2 * hi);
}

absl::StatusOr<double> PbmShiftCurvature(const PbmPrivacyParams& params, double alpha) {
  absl::StatusOr<std::vector<double>> psi = ShiftCurvatures(params, {alpha});
  if (!psi.ok()) return psi.status();
  return psi->front();
}

absl::StatusOr<RdpCurve> PbmL2RoundCurve(const PbmPrivacyParams& params, int64_t dimension,
                                         double l2_over_clip, std::vector<double> orders) {
  if (!(std::isfinite(l2_over_clip) && l2_over_clip > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("PBM L2 bound over clip must be finite and > 0, got ", l2_over_clip));
  }
  absl::StatusOr<RdpCurve> round = PbmRoundCurve(params, dimension, orders);
  if (!round.ok() || params.theta == 0) return round;

  // Psi at order 2 (for the orders below it) and at every order >= 2.
  std::vector<double> shift_orders = {2};
  for (double alpha : orders) {
    if (alpha > 2) shift_orders.push_back(alpha);
  }
  absl::StatusOr<std::vector<double>> psi = ShiftCurvatures(params, shift_orders);
  if (!psi.ok()) return psi.status();
  const double shift = 2 * params.theta * l2_over_clip;  // L2 distance of the trial probabilities
  const double scale = static_cast<double>(params.q) * shift * shift;
  std::vector<double> values = round->values();
  size_t next = 1;  // index into shift_orders of the first order > 2
  for (size_t o = 0; o < orders.size(); ++o) {
    const bool above_two = orders[o] > 2;
    const double alpha = above_two ? orders[o] : 2;
    const double l2 = scale * (*psi)[above_two ? next++ : 0] / (alpha - 1);
    values[o] = std::min(values[o], l2);
  }
  return RdpCurve::Create(std::move(orders), std::move(values));
}

}  // namespace fedmf::dp
