#include "common/algorithms/lib/fmf_sgd/privacy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <string>

#include "common/algorithms/lib/fmf_sgd/config.h"
#include "common/dp/dp_conversion.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms::fmf_sgd {
namespace {

// log E_{x ~ N(0, s^2)} [((1 - q) + q exp((2x - 1) / (2 s^2)))^alpha] by the trapezoid rule on
// [-20 s, alpha + 20 s] in steps of s / 200, in log space: the Renyi moment of the Poisson-
// subsampled Gaussian with sensitivity 1 (Mironov, Talwar, Zhang 2019, Thm. 4), computed by
// quadrature instead of the accountant's binomial expansion.
double LogMomentByQuadrature(double q, double s, int alpha) {
  const double h = s / 200;
  const double lo = -20 * s;
  const double hi = alpha + 20 * s;
  double max_term = -std::numeric_limits<double>::infinity();
  std::vector<double> terms;
  for (double x = lo; x <= hi; x += h) {
    const double t = (2 * x - 1) / (2 * s * s);
    // log((1 - q) + q e^t), stably for large t.
    const double mix =
        t > 0 ? t + std::log(q + (1 - q) * std::exp(-t)) : std::log((1 - q) + q * std::exp(t));
    const double term = alpha * mix - x * x / (2 * s * s);
    terms.push_back(term);
    max_term = std::max(max_term, term);
  }
  double sum = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    const double weight = (k == 0 || k + 1 == terms.size()) ? 0.5 : 1;
    sum += weight * std::exp(terms[k] - max_term);
  }
  return max_term + std::log(sum * h) - std::log(s * std::sqrt(2 * std::numbers::pi));
}

// The paper's setting (eta = 0.01, T T' = 1000 steps) at (1, 1e-5)-DP: the calibrated z gives
// epsilon = 1 by an independent computation (quadrature RDP at the integer orders 2..128,
// composed over the 1000 steps, converted with Balle et al.'s formula written out here).
TEST(FmfPrivacyTest, CalibratedNoiseGivesTheBudgetByQuadrature) {
  DpSgdMfConfig c;
  c.sampling_rate = 0.01;
  c.steps = 1000;
  const double z =
      *CalibrateNoiseMultiplier(c, dp::PrivacyBudget::ApproxDp(1, 1e-5, dp::PrivacyUnit::kRating));
  double epsilon = std::numeric_limits<double>::infinity();
  for (int alpha = 2; alpha <= 128; ++alpha) {
    const double rdp = 1000 * LogMomentByQuadrature(0.01, z, alpha) / (alpha - 1);
    const double a = alpha;
    epsilon =
        std::min(epsilon, rdp + std::log((a - 1) / a) - (std::log(1e-5) + std::log(a)) / (a - 1));
  }
  EXPECT_NEAR(epsilon, 1, 1e-3) << "z=" << z;
}

TEST(FmfPrivacyTest, StepEntryCarriesTheNoiseAndTheUnit) {
  DpSgdMfConfig c;
  c.unit = dp::PrivacyUnit::kUser;
  c.max_ratings_per_user = 4;
  c.noise_multiplier = 1.5;
  c.sampling_rate = 0.1;
  const dp::RdpCurve curve = *StepCurve(c);
  const dp::LedgerEntry entry = *StepEntry(c, /*update_users=*/false, 7, 12, curve);
  EXPECT_EQ(entry.mechanism, kStepMechanism);
  EXPECT_EQ(entry.round, 7);
  EXPECT_EQ(entry.participants, 12);
  EXPECT_EQ(entry.unit, dp::PrivacyUnit::kUser);
  EXPECT_EQ(entry.rdp, curve.values());
  const double g = 2 * std::pow(5.0, 1.5);  // R = 5
  const std::map<std::string, double> params(entry.params.begin(), entry.params.end());
  EXPECT_DOUBLE_EQ(params.at("sensitivity"), g * 2);  // sqrt(theta) g, V only
  EXPECT_DOUBLE_EQ(params.at("noise_stddev"), 1.5 * g * 2);
  EXPECT_DOUBLE_EQ(params.at("noise_multiplier"), 1.5);
  EXPECT_DOUBLE_EQ(params.at("sampling_rate"), 0.1);
}

TEST(FmfPrivacyTest, PaperC1AndRefusals) {
  DpSgdMfConfig c;
  c.noise_multiplier = 2;
  c.sampling_rate = 0.01;
  c.steps = 900;
  c.item_only_steps = 100;
  // z^2 eps^2 / (eta^2 T ln(1/delta)) = 4 * 4 / (1e-4 * 1000 * ln(1e5)).
  EXPECT_NEAR(PaperImpliedC1(c, 2, 1e-5), 16 / (0.1 * std::log(1e5)), 1e-9);
  EXPECT_EQ(NoisySteps(c), 1000);
  c.noise_multiplier = 0;
  EXPECT_EQ(StepCurve(c).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      CalibrateNoiseMultiplier(c, dp::PrivacyBudget::ApproxDp(1, 1e-5, dp::PrivacyUnit::kUser))
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);  // a per-user budget for a per-rating run
}

}  // namespace
}  // namespace fedmf::algorithms::fmf_sgd
