#include "common/dp/prefix_sum_noise.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "Eigen/Dense"
#include "common/dp/dp_conversion.h"
#include "common/dp/rdp_curve.h"
#include "common/dp/rdp_gaussian.h"
#include "common/dp/rng.h"
#include "common/dp/samplers.h"
#include "gtest/gtest.h"

namespace fedmf::dp {
namespace {

std::vector<double> Factors(int64_t rounds) {
  std::vector<double> f;
  for (int64_t t = 0; t < rounds; ++t) f.push_back(PrefixSumNoiseFactor(rounds, t).value());
  return f;
}

// Expected total squared error of the T prefix sums at noise std f_t in round t (sigma = 1):
// round t's noise enters the T - t prefix sums from t on.
double PrefixSumError(const std::vector<double>& f) {
  const int64_t rounds = static_cast<int64_t>(f.size());
  double error = 0;
  for (int64_t t = 0; t < rounds; ++t) error += static_cast<double>(rounds - t) * f[t] * f[t];
  return error;
}

// loss(C) = sens(C)^2 ||A C^-1||_F^2 of the factorization C (T x T) for the prefix sums A, with
// sens(C)^2 the largest ||C s||^2 over the 2^T sign patterns s: a user who takes part in every
// round and changes each round's scalar sum by +-1. A user with a vector contribution can do at
// least this, so this is a lower bound on C's true loss.
double SignPatternLoss(const Eigen::MatrixXd& c) {
  const int64_t rounds = c.rows();
  double sens2 = 0;
  for (uint64_t pattern = 0; pattern < (uint64_t{1} << rounds); ++pattern) {
    Eigen::VectorXd s(rounds);
    for (int64_t t = 0; t < rounds; ++t) s(t) = (pattern >> t) & 1 ? 1.0 : -1.0;
    sens2 = std::max(sens2, (c * s).squaredNorm());
  }
  const Eigen::MatrixXd a = Eigen::MatrixXd::Ones(rounds, rounds).triangularView<Eigen::Lower>();
  return sens2 * (a * c.inverse()).squaredNorm();
}

TEST(PrefixSumNoiseTest, RoundsComposeToTheConstantSchedulesCost) {
  for (int64_t rounds : {1, 7, 100}) {
    const std::vector<double> f = Factors(rounds);
    double inverse_variances = 0;
    for (double x : f) inverse_variances += 1 / (x * x);
    EXPECT_NEAR(inverse_variances, static_cast<double>(rounds), 1e-12 * rounds) << rounds;
    // Through the accountant: T Gaussian rounds at std 3 f_t against T rounds at std 3.
    const std::vector<double> orders = DefaultOrders();
    RdpCurve scheduled = RdpCurve::Zero(orders).value();
    for (double x : f) {
      ASSERT_TRUE(scheduled
                      .Compose(SecAggGaussianCurve(
                                   {.l2_sensitivity = 1, .noise_stddev = 3 * x, .n_min = 1}, orders)
                                   .value())
                      .ok());
    }
    RdpCurve constant = RdpCurve::Zero(orders).value();
    ASSERT_TRUE(constant
                    .Compose(SecAggGaussianCurve(
                                 {.l2_sensitivity = 1, .noise_stddev = 3, .n_min = 1}, orders)
                                 .value(),
                             rounds)
                    .ok());
    EXPECT_NEAR(EpsilonImproved(scheduled, 1e-5)->epsilon, EpsilonImproved(constant, 1e-5)->epsilon,
                1e-9);
  }
}

TEST(PrefixSumNoiseTest, LaterRoundsGetMoreNoise) {
  const std::vector<double> f = Factors(100);
  for (size_t t = 1; t < f.size(); ++t) EXPECT_GT(f[t], f[t - 1]);
  // (T - t)^(-1/4): the last round's std over the first's is T^(1/4).
  EXPECT_NEAR(f.back() / f.front(), std::pow(100.0, 0.25), 1e-12);
  EXPECT_DOUBLE_EQ(Factors(1)[0], 1.0);
}

TEST(PrefixSumNoiseTest, ReproducesTheStudysErrorRatio) {
  // tools/experiments/mf-noise-study.py (numpy, an independent program) prints the best diagonal
  // factorization's loss over independent noise's: 0.9054 (T = 20), 0.8963 (50), 0.8928 (100).
  for (const auto& [rounds, ratio] :
       std::vector<std::pair<int64_t, double>>{{20, 0.9054}, {50, 0.8963}, {100, 0.8928}}) {
    const double constant = static_cast<double>(rounds * (rounds + 1)) / 2;
    EXPECT_NEAR(PrefixSumError(Factors(rounds)) / constant, ratio, 5e-5) << rounds;
  }
}

TEST(PrefixSumNoiseTest, NoScheduleOfEqualCostHasLessPrefixSumError) {
  constexpr int64_t kRounds = 6;
  const double best = PrefixSumError(Factors(kRounds));
  Rng rng(20261128);
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<double> g(kRounds);
    double inverse_variances = 0;
    for (double& x : g) {
      x = std::exp(StandardNormal(rng) * (trial % 2 == 0 ? 1.0 : 0.01));
      inverse_variances += 1 / (x * x);
    }
    // Rescale to sum_t g_t^-2 = T: the same privacy cost as the schedule.
    for (double& x : g) x *= std::sqrt(inverse_variances / kRounds);
    ASSERT_GE(PrefixSumError(g), best * (1 - 1e-12)) << "trial " << trial;
  }
}

TEST(PrefixSumNoiseTest, NoCorrelatedFactorizationBeatsItOnASmallCase) {
  // The schedule as a factorization: release t is x_t / f_t + z_t, C = diag(1 / f_t); its loss
  // is T * PrefixSumError (sens^2 = sum_t f_t^-2 = T). Random lower-triangular C around it and
  // far from it (mixed signs; their loss lower-bounded by the sign patterns) never do better.
  constexpr int64_t kRounds = 4;
  const std::vector<double> f = Factors(kRounds);
  Eigen::MatrixXd schedule = Eigen::MatrixXd::Zero(kRounds, kRounds);
  for (int64_t t = 0; t < kRounds; ++t) schedule(t, t) = 1 / f[t];
  const double best = SignPatternLoss(schedule);
  EXPECT_NEAR(best, kRounds * PrefixSumError(f), 1e-9 * best);
  Rng rng(50);
  for (double spread : {1.0, 0.1, 0.01, 0.001}) {
    for (int trial = 0; trial < 5000; ++trial) {
      Eigen::MatrixXd c = schedule;
      for (int64_t i = 0; i < kRounds; ++i) {
        for (int64_t j = 0; j <= i; ++j) c(i, j) += spread * StandardNormal(rng);
      }
      if (std::abs(c.determinant()) < 1e-6) continue;
      ASSERT_GE(SignPatternLoss(c), best * (1 - 1e-12))
          << "spread " << spread << " trial " << trial;
    }
  }
}

TEST(PrefixSumNoiseTest, RejectsRoundsOutsideTheRun) {
  EXPECT_FALSE(PrefixSumNoiseFactor(10, 10).ok());
  EXPECT_FALSE(PrefixSumNoiseFactor(10, -1).ok());
  EXPECT_FALSE(PrefixSumNoiseFactor(0, 0).ok());
}

}  // namespace
}  // namespace fedmf::dp
