#include "common/dp/rdp_gaussian.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dp/log_space.h"
#include "common/dp/monotone_search.h"

namespace fedmf::dp {
namespace {

// log A_alpha for integer alpha (MTZ 2019, Sec. 3.3):
// A = sum_i C(alpha, i) (1-q)^(alpha-i) q^i exp((i^2 - i) / (2 z^2)).
double LogAInteger(double q, double z, int64_t alpha) {
  const double log_q = std::log(q);
  const double log_1mq = std::log1p(-q);
  double log_a = kLogZero;
  for (int64_t i = 0; i <= alpha; ++i) {
    const double di = static_cast<double>(i);
    log_a = LogAdd(log_a, LogBinomial(alpha, i) + di * log_q + (alpha - di) * log_1mq +
                              (di * di - di) / (2 * z * z));
  }
  return log_a;
}

// log A_alpha for fractional alpha (MTZ 2019, Sec. 3.3): A = A0 + A1, the integrals of the
// binomially expanded likelihood ratio over (-inf, z0] and [z0, inf); term i involves
// C(alpha, i) and an erfc. As in Google's dp_accounting, every term is added with |C(alpha, i)|:
// the integrals are positive, so this is an upper bound on A that never needs a log-space
// subtraction. Stops once both term sequences decrease and are below e^-30 of the total; an order
// whose series does not settle within kMaxTerms gets +inf (no claim at that order).
double LogAFractional(double q, double z, double alpha) {
  const double log_q = std::log(q);
  const double log_1mq = std::log1p(-q);
  const double z0 = z * z * std::log(1.0 / q - 1.0) + 0.5;
  const double sqrt2_z = std::numbers::sqrt2 * z;
  double log_a0 = kLogZero;
  double log_a1 = kLogZero;
  double last_s0 = kLogZero;
  double last_s1 = kLogZero;
  double log_abs_coef = 0;  // log |C(alpha, i)|, generalized binomial coefficient
  constexpr int kMaxTerms = 10'000;
  for (int i = 0; i < kMaxTerms; ++i) {
    const double j = alpha - i;
    const double log_s0 = log_abs_coef + i * log_q + j * log_1mq +
                          (static_cast<double>(i) * i - i) / (2 * z * z) + std::log(0.5) +
                          LogErfc((i - z0) / sqrt2_z);
    const double log_s1 = log_abs_coef + j * log_q + i * log_1mq + (j * j - j) / (2 * z * z) +
                          std::log(0.5) + LogErfc((z0 - j) / sqrt2_z);
    log_a0 = LogAdd(log_a0, log_s0);
    log_a1 = LogAdd(log_a1, log_s1);
    const double total = LogAdd(log_a0, log_a1);
    if (log_s0 < last_s0 && log_s1 < last_s1 && std::max(log_s0, log_s1) < total - 30) {
      return total;
    }
    last_s0 = log_s0;
    last_s1 = log_s1;
    // |C(alpha, i+1)| = |C(alpha, i)| * |alpha - i| / (i + 1).
    log_abs_coef += std::log(std::abs(alpha - i)) - std::log(i + 1.0);
  }
  return std::numeric_limits<double>::infinity();
}

}  // namespace

absl::StatusOr<double> GaussianRdp(double noise_multiplier, double order) {
  if (absl::Status s = ValidateOrder(order); !s.ok()) return s;
  if (!(noise_multiplier >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("noise multiplier must be >= 0, got ", noise_multiplier));
  }
  if (noise_multiplier == 0) return std::numeric_limits<double>::infinity();
  return order / (2 * noise_multiplier * noise_multiplier);
}

absl::StatusOr<double> SubsampledGaussianRdp(double sampling_rate, double noise_multiplier,
                                             double order) {
  if (!(sampling_rate >= 0 && sampling_rate <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("sampling rate must be in [0, 1], got ", sampling_rate));
  }
  absl::StatusOr<double> full = GaussianRdp(noise_multiplier, order);
  if (!full.ok()) return full.status();
  if (sampling_rate == 0) return 0.0;
  if (sampling_rate == 1 || std::isinf(*full)) return *full;
  const bool integer = order == std::floor(order);
  const double log_a =
      integer ? LogAInteger(sampling_rate, noise_multiplier, static_cast<int64_t>(order))
              : LogAFractional(sampling_rate, noise_multiplier, order);
  return std::max(0.0, log_a) / (order - 1);
}

absl::StatusOr<RdpCurve> SubsampledGaussianCurve(double sampling_rate, double noise_multiplier,
                                                 int64_t steps, std::vector<double> orders) {
  if (steps < 0) return absl::InvalidArgumentError(absl::StrCat("steps must be >= 0, got ", steps));
  return RdpCurve::FromFunction(std::move(orders), [&](double order) -> absl::StatusOr<double> {
    absl::StatusOr<double> one = SubsampledGaussianRdp(sampling_rate, noise_multiplier, order);
    if (!one.ok()) return one.status();
    return steps == 0 ? 0.0 : *one * static_cast<double>(steps);
  });
}

absl::Status ValidateSecAggGaussian(const SecAggGaussianParams& params) {
  if (!(params.l2_sensitivity > 0) || std::isinf(params.l2_sensitivity)) {
    return absl::InvalidArgumentError(
        absl::StrCat("L2 sensitivity must be finite and > 0, got ", params.l2_sensitivity));
  }
  if (!(params.noise_stddev >= 0) || std::isinf(params.noise_stddev)) {
    return absl::InvalidArgumentError(
        absl::StrCat("noise stddev must be finite and >= 0, got ", params.noise_stddev));
  }
  if (params.n_min < 1) {
    return absl::InvalidArgumentError(absl::StrCat("n_min must be >= 1, got ", params.n_min));
  }
  return absl::OkStatus();
}

absl::StatusOr<double> PerClientNoiseStddev(const SecAggGaussianParams& params) {
  if (absl::Status s = ValidateSecAggGaussian(params); !s.ok()) return s;
  return params.noise_stddev / std::sqrt(static_cast<double>(params.n_min));
}

absl::StatusOr<RdpCurve> SecAggGaussianCurve(const SecAggGaussianParams& params,
                                             std::vector<double> orders) {
  if (absl::Status s = ValidateSecAggGaussian(params); !s.ok()) return s;
  // The sum of >= n_min independent N(0, s^2) is Gaussian with variance >= noise_stddev^2; more
  // survivors only add noise (post-processing), so n_min is the worst case.
  const double z = params.noise_stddev / params.l2_sensitivity;
  return SubsampledGaussianCurve(1.0, z, 1, std::move(orders));
}

absl::StatusOr<double> TwoRoundReplacementNoiseStddev(double round1_variance,
                                                      double replaced_variance,
                                                      double fresh_variance) {
  if (!(replaced_variance >= 0 && round1_variance >= replaced_variance && fresh_variance >= 0) ||
      std::isinf(round1_variance) || std::isinf(fresh_variance)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "need finite round1_variance >= replaced_variance >= 0 and fresh_variance >= 0, got ",
        round1_variance, ", ", replaced_variance, ", ", fresh_variance));
  }
  const double r_plus_f = replaced_variance + fresh_variance;
  if (r_plus_f == 0) return std::sqrt(round1_variance);
  // Sigma = [[v1, -r], [-r, r + f]], signal s = (1, 0): s^T Sigma^-1 s = (r + f) / det.
  const double det = round1_variance * r_plus_f - replaced_variance * replaced_variance;
  return std::sqrt(det / r_plus_f);
}

absl::StatusOr<double> CalibrateGaussianNoiseMultiplier(const PrivacyBudget& budget,
                                                        double sampling_rate, int64_t steps,
                                                        std::vector<double> orders) {
  if (absl::Status s = ValidateBudget(budget); !s.ok()) return s;
  if (!(budget.epsilon > 0)) {
    return absl::InvalidArgumentError("a zero budget needs infinite Gaussian noise");
  }
  return SmallestFitting(
      [&](double z) -> absl::StatusOr<bool> {
        absl::StatusOr<RdpCurve> curve = SubsampledGaussianCurve(sampling_rate, z, steps, orders);
        if (!curve.ok()) return curve.status();
        return WithinBudget(*curve, budget);
      },
      "a noise multiplier");
}

}  // namespace fedmf::dp
