#include "common/dp/rdp_pbm_l2.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/common/exact_sum_divergence.h"

namespace fedmf::dp {
namespace {

using test_util::RenyiDivergence;
using test_util::SumPmf;
using ::testing::HasSubstr;

// E_Q[(P/Q)^alpha] - 1 for P = Bern(p), Q = Bern(r), straight from the definition.
long double BernoulliMoment(long double p, long double r, long double alpha) {
  return std::pow(p, alpha) * std::pow(r, 1 - alpha) +
         std::pow(1 - p, alpha) * std::pow(1 - r, 1 - alpha) - 1;
}

double Psi(const PbmPrivacyParams& params, double alpha) {
  absl::StatusOr<double> psi = PbmShiftCurvature(params, alpha);
  EXPECT_TRUE(psi.ok()) << psi.status();
  return psi.ok() ? *psi : 0;
}

// The lemma of docs/privacy-accounting.md section 4.6 on a grid of pairs, up to theta near 1/2.
TEST(RdpPbmL2Test, BernoulliCurvatureBoundsTheExactMoment) {
  for (double alpha : {2.0, 2.25, 2.5, 3.0, 4.5, 7.5, 16.0, 64.0, 256.0}) {
    for (double theta : {1e-3, 0.01, 0.1, 0.25, 0.4}) {
      const double lambda = PbmBernoulliCurvature(theta, alpha);
      const int steps = 24;
      for (int i = 0; i <= steps; ++i) {
        for (int j = 0; j <= steps; ++j) {
          const long double p = 0.5L - theta + 2.0L * theta * i / steps;
          const long double r = 0.5L - theta + 2.0L * theta * j / steps;
          const long double exact = BernoulliMoment(p, r, alpha);
          EXPECT_LE(exact, (p - r) * (p - r) * lambda * (1 + 1e-12L) + 1e-18L)
              << "alpha=" << alpha << " theta=" << theta << " p=" << p << " p'=" << r;
        }
      }
    }
  }
}

// At alpha = 2 the moment is the chi-square divergence (p - p')^2 / (p'(1 - p')), largest at the
// ends of the range: Lambda_2 = 1 / (lo hi) exactly.
TEST(RdpPbmL2Test, BernoulliCurvatureAtOrderTwoIsTheChiSquareBound) {
  for (double theta : {0.0, 1e-4, 0.1, 0.25, 0.45}) {
    EXPECT_NEAR(PbmBernoulliCurvature(theta, 2) * (0.25 - theta * theta), 1.0, 1e-14) << theta;
  }
}

// The tails of the noise are bounded with Lambda(theta) >= Lambda(theta |v|): it must grow with
// theta.
TEST(RdpPbmL2Test, BernoulliCurvatureGrowsWithTheta) {
  for (double alpha : {2.0, 2.5, 5.0, 40.0, 1024.0}) {
    double previous = 0;
    for (int i = 0; i <= 400; ++i) {
      const double lambda = PbmBernoulliCurvature(0.4 * i / 400, alpha);
      EXPECT_GE(lambda, previous) << "alpha=" << alpha << " theta=" << 0.4 * i / 400;
      previous = lambda;
    }
  }
}

// Without secure aggregation the trial is alone: K = 1, |v| = 1, so Psi = Lambda(theta).
TEST(RdpPbmL2Test, NoSecAggShiftCurvatureIsTheBernoulliCurvature) {
  for (double alpha : {2.0, 3.5, 20.0}) {
    EXPECT_NEAR(Psi({0.1, 1, 1}, alpha) / PbmBernoulliCurvature(0.1, alpha), 1.0, 2e-9) << alpha;
  }
}

// One coordinate: for any pair (p, p') of the target, and any probabilities of the other clients'
// trials, the exact Renyi divergence of the actual sum the server sees is at most
// q log(1 + (p - p')^2 Psi) / (alpha - 1).
TEST(RdpPbmL2Test, BoundsTheBruteForceDivergenceOfTheActualSum) {
  const std::vector<double> orders = {2, 2.5, 4, 10, 40};
  std::mt19937_64 rng(19);
  for (int n_min : {1, 2, 4, 7}) {
    for (int q : {1, 2, 3}) {
      for (double theta : {0.02, 0.1, 0.25}) {
        const long double lo = 0.5L - theta;
        const long double hi = 0.5L + theta;
        std::map<double, double> psi;
        for (double alpha : orders) psi[alpha] = Psi({theta, q, n_min}, alpha);
        std::uniform_real_distribution<double> uniform(0.5 - theta, 0.5 + theta);
        // The others' trials: all high, all low, half and half, and at random.
        std::vector<std::vector<std::pair<long double, int>>> others = {
            {{hi, (n_min - 1) * q}},
            {{lo, (n_min - 1) * q}},
            {{hi, (n_min - 1) * q / 2}, {lo, (n_min - 1) * q - (n_min - 1) * q / 2}}};
        std::vector<std::pair<long double, int>> random;
        for (int t = 0; t < (n_min - 1) * q; ++t) random.push_back({uniform(rng), 1});
        others.push_back(random);
        const int steps = 5;
        for (const auto& rest : others) {
          for (int i = 0; i <= steps; ++i) {
            for (int j = 0; j <= steps; ++j) {
              const long double p = lo + (hi - lo) * i / steps;
              const long double r = lo + (hi - lo) * j / steps;
              auto with_target = [&](long double target) {
                std::vector<std::pair<long double, int>> trials = rest;
                trials.push_back({target, q});
                return SumPmf(trials);
              };
              const std::vector<long double> sum_p = with_target(p);
              const std::vector<long double> sum_r = with_target(r);
              for (double alpha : orders) {
                const long double exact = RenyiDivergence(sum_p, sum_r, alpha);
                const long double bound =
                    q * std::log1p((p - r) * (p - r) * psi[alpha]) / (alpha - 1);
                EXPECT_LE(exact, bound * (1 + 1e-9L) + 1e-15L)
                    << "n_min=" << n_min << " q=" << q << " theta=" << theta << " p=" << p
                    << " p'=" << r << " alpha=" << alpha;
              }
            }
          }
        }
      }
    }
  }
}

// A whole round: vectors y, y' in [-c, c]^3 with L2 norm at most 1.3 c (here c = 1), the other
// clients' probabilities at random; the exact divergence sums over the independent coordinates.
// Up to order 3 the L2 bound is below the coordinate-wise one, so the test exercises it (at
// order 8 the coordinate-wise bound is the smaller).
TEST(RdpPbmL2Test, RoundBoundsBruteForceVectorPairs) {
  const PbmPrivacyParams params = {0.1, 1, 4};
  const std::vector<double> orders = {1.5, 2, 3, 8};
  const double radius = 1.3;
  absl::StatusOr<RdpCurve> bound = PbmL2RoundCurve(params, 3, radius, orders);
  ASSERT_TRUE(bound.ok()) << bound.status();
  absl::StatusOr<RdpCurve> coordinate = PbmRoundCurve(params, 3, orders);
  ASSERT_TRUE(coordinate.ok());
  for (size_t o = 0; o < 3; ++o) {
    EXPECT_LT(bound->values()[o], 0.8 * coordinate->values()[o]) << orders[o];
  }
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform(0.4, 0.6);
  int pairs = 0;
  while (pairs < 40) {
    std::vector<double> y(3);
    double norm = 0;
    for (double& v : y) {
      v = normal(rng);
      norm += v * v;
    }
    for (double& v : y) v *= radius / std::sqrt(norm);
    if (std::any_of(y.begin(), y.end(), [](double v) { return std::abs(v) > 1; })) continue;
    ++pairs;
    // y' = -y: the largest shift two vectors of norm 1.3 can have.
    std::vector<long double> exact(orders.size(), 0);
    for (int i = 0; i < 3; ++i) {
      std::vector<std::pair<long double, int>> rest;
      for (int t = 0; t < params.n_min - 1; ++t) rest.push_back({uniform(rng), 1});
      auto sum_for = [&](double x) {
        std::vector<std::pair<long double, int>> trials = rest;
        trials.push_back({0.5L + params.theta * x, 1});
        return SumPmf(trials);
      };
      for (size_t o = 0; o < orders.size(); ++o) {
        exact[o] += RenyiDivergence(sum_for(y[i]), sum_for(-y[i]), orders[o]);
      }
    }
    for (size_t o = 0; o < orders.size(); ++o) {
      EXPECT_LE(exact[o], bound->values()[o] * (1 + 1e-9L)) << "order=" << orders[o];
    }
  }
}

// With 943 clients (DPMF-RP's cohort), one coordinate's whole range [lo, hi] is a shift of
// 2 theta; the bound there must cover the exact divergence of rdp_pbm.h (an independent
// computation). It is within 0.1% times the order of it (equal at order 2, where Lambda is the
// chi-square bound, exact at the ends of the range).
TEST(RdpPbmL2Test, FullRangeCoversTheExactCoordinateDivergence) {
  const std::vector<double> orders = {2, 3, 5, 8, 16, 64};
  for (double theta : {0.002, 0.01, 0.03}) {
    const PbmPrivacyParams params = {theta, 1, 943};
    absl::StatusOr<RdpCurve> exact = PbmCoordinateCurve(params, orders);
    ASSERT_TRUE(exact.ok());
    for (size_t o = 0; o < orders.size(); ++o) {
      const double alpha = orders[o];
      const double bound = std::log1p(4 * theta * theta * Psi(params, alpha)) / (alpha - 1);
      EXPECT_GE(bound, exact->values()[o]) << "theta=" << theta << " alpha=" << alpha;
      EXPECT_LE(bound, (1 + 1e-3 * alpha) * exact->values()[o])
          << "theta=" << theta << " alpha=" << alpha;
    }
  }
}

// Orders below 2 take order 2's L2 value; every order keeps the smaller of the two bounds.
TEST(RdpPbmL2Test, RoundCurveIsTheSmallerBound) {
  const PbmPrivacyParams params = {0.01, 2, 50};
  const std::vector<double> orders = {1.5, 2, 4, 1000};
  const RdpCurve coordinate = PbmRoundCurve(params, 64, orders).value();
  const RdpCurve l2 = PbmL2RoundCurve(params, 64, 2.0, orders).value();
  const double at_two = 2 * 4 * 0.01 * 0.01 * 4 * Psi(params, 2);  // q (2 theta r)^2 Psi / 1
  EXPECT_NEAR(l2.values()[1], at_two, 1e-15);
  EXPECT_NEAR(l2.values()[0], std::min(at_two, coordinate.values()[0]), 1e-15);
  EXPECT_NEAR(l2.values()[2], 2 * 4 * 0.01 * 0.01 * 4 * Psi(params, 4) / 3, 1e-15);
  for (size_t o = 0; o < orders.size(); ++o) EXPECT_LE(l2.values()[o], coordinate.values()[o]);
  // A bound r^2 >= dimension never beats the coordinate-wise one at orders >= 2.
  const RdpCurve loose = PbmL2RoundCurve(params, 4, 2.0, {2, 4}).value();
  EXPECT_EQ(loose, PbmRoundCurve(params, 4, {2, 4}).value());
}

TEST(RdpPbmL2Test, ZeroThetaIsFreeAndBadInputsAreErrors) {
  EXPECT_THAT(PbmL2RoundCurve({0, 1, 10}, 8, 1, {2, 5})->values(), ::testing::ElementsAre(0, 0));
  EXPECT_THAT(PbmL2RoundCurve({0.1, 1, 10}, 8, 0, {2}).status().message(), HasSubstr("L2 bound"));
  EXPECT_FALSE(PbmL2RoundCurve({0.1, 1, 10}, 8, std::nan(""), {2}).ok());
  EXPECT_FALSE(PbmL2RoundCurve({0.1, 1, 10}, 0, 1, {2}).ok());
  EXPECT_FALSE(PbmL2RoundCurve({0.5, 1, 10}, 8, 1, {2}).ok());
  EXPECT_THAT(PbmShiftCurvature({0.1, 1, 10}, 1.5).status().message(), HasSubstr("orders >= 2"));
}

}  // namespace
}  // namespace fedmf::dp
