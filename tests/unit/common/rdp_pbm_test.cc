#include "common/dp/rdp_pbm.h"

#include <algorithm>
#include <cmath>
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

// What the server actually sees: the sum of the target's q trials and the other n_min - 1
// clients' q trials each, every trial at an extreme probability 1/2 +- theta. Maximum over the
// target's two configurations (k vs k' high trials) and the others' configuration (h high
// trials). A lower bound on the true worst case, which the accountant must not undercut.
double BruteForceActualSum(int n_min, int q, double theta, double alpha) {
  const long double hi = 0.5L + theta;
  const long double lo = 0.5L - theta;
  const int m = (n_min - 1) * q;
  long double best = 0;
  for (int k = 0; k <= q; ++k) {
    for (int k2 = 0; k2 <= q; ++k2) {
      for (int h = 0; h <= m; ++h) {
        const auto p = SumPmf({{hi, k}, {lo, q - k}, {hi, h}, {lo, m - h}});
        const auto r = SumPmf({{hi, k2}, {lo, q - k2}, {hi, h}, {lo, m - h}});
        best = std::max(best, RenyiDivergence(p, r, alpha));
      }
    }
  }
  return static_cast<double>(best);
}

// The accountant's quantity computed naively: max over j of
// (1/(alpha-1)) log sum_N w_N exp((alpha-1) D_alpha(Bin(j,hi)+Bin(N,1/2) || Bin(j,lo)+Bin(N,1/2))).
double NaiveRevealedBound(int n_min, int q, double theta, double alpha) {
  const int m = (n_min - 1) * q;
  const long double rho = 1 - 2.0L * theta;
  long double best = 0;
  for (int j = 1; j <= q; ++j) {
    long double sum = 0;
    for (int n = 0; n <= m; ++n) {
      const long double log_w = std::lgamma(m + 1.0L) - std::lgamma(n + 1.0L) -
                                std::lgamma(m - n + 1.0L) + n * std::log(rho) +
                                (m - n) * std::log(1 - rho);
      const auto p = SumPmf({{0.5L + theta, j}, {0.5L, n}});
      const auto r = SumPmf({{0.5L - theta, j}, {0.5L, n}});
      sum += std::exp(log_w + (alpha - 1) * RenyiDivergence(p, r, alpha));
    }
    best = std::max(best, std::log(sum) / (alpha - 1));
  }
  return static_cast<double>(best);
}

RdpCurve Coordinate(double theta, int64_t q, int64_t n_min, std::vector<double> orders) {
  absl::StatusOr<RdpCurve> c = PbmCoordinateCurve({theta, q, n_min}, std::move(orders));
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : *RdpCurve::Zero({2});
}

TEST(RdpPbmTest, ZeroThetaIsFree) {
  const RdpCurve c = Coordinate(0.0, 4, 10, {2, 8});
  EXPECT_THAT(c.values(), ::testing::ElementsAre(0.0, 0.0));
}

// Without secure aggregation the server sees Binom(q, p): the worst case is q times
// D_alpha(Bern(1/2+theta) || Bern(1/2-theta)); at theta = 1/4, alpha = 2 that is q log(7/3).
TEST(RdpPbmTest, NoSecAggIsQTimesTheBernoulliDivergence) {
  EXPECT_NEAR(*Coordinate(0.25, 1, 1, {2}).At(2), std::log(7.0 / 3), 1e-13);
  EXPECT_NEAR(*Coordinate(0.25, 3, 1, {2}).At(2), 3 * std::log(7.0 / 3), 1e-12);
  // theta = 0.1, alpha = 3: log(0.6^3/0.4^2 + 0.4^3/0.6^2) / 2.
  EXPECT_NEAR(*Coordinate(0.1, 2, 1, {3}).At(3), 2 * std::log(0.216 / 0.16 + 0.064 / 0.36) / 2,
              1e-13);
}

struct SmallCase {
  int n_min;
  int q;
  double theta;
};

// The bound is sound (>= the exact divergence of the actual sum at every extreme configuration)
// and tight within a factor 1.5 on these cases (the slack comes from revealing which trials are
// fair; it shrinks as theta -> 0).
TEST(RdpPbmTest, BoundsTheBruteForceDivergenceOfTheActualSum) {
  const std::vector<double> orders = {1.5, 2, 5, 20};
  for (const SmallCase& c : std::vector<SmallCase>{{2, 1, 0.25},
                                                   {3, 2, 0.25},
                                                   {3, 2, 0.1},
                                                   {4, 1, 0.05},
                                                   {3, 3, 0.2},
                                                   {5, 2, 0.25},
                                                   {8, 1, 0.25}}) {
    const RdpCurve curve = Coordinate(c.theta, c.q, c.n_min, orders);
    for (size_t i = 0; i < orders.size(); ++i) {
      const double brute = BruteForceActualSum(c.n_min, c.q, c.theta, orders[i]);
      const double ours = curve.values()[i];
      EXPECT_GE(ours, brute * (1 - 1e-12))
          << "n_min=" << c.n_min << " q=" << c.q << " theta=" << c.theta << " order=" << orders[i];
      EXPECT_LE(ours, 1.5 * brute)
          << "n_min=" << c.n_min << " q=" << c.q << " theta=" << c.theta << " order=" << orders[i];
    }
  }
}

// The log-space evaluation with bounded tails equals the naive mixture formula. In the last two
// cases most noise counts lie outside the exactly evaluated core (weight below e^-40); in the
// last one their bound matters at high orders and must be refined.
TEST(RdpPbmTest, MatchesTheNaiveRevealedNoiseFormula) {
  const std::vector<double> orders = {1.25, 2, 7.5, 64, 256};
  for (const SmallCase& c :
       std::vector<SmallCase>{{5, 2, 0.2}, {12, 3, 0.25}, {60, 1, 0.01}, {200, 1, 0.25}}) {
    const RdpCurve curve = Coordinate(c.theta, c.q, c.n_min, orders);
    for (size_t i = 0; i < orders.size(); ++i) {
      const double naive = NaiveRevealedBound(c.n_min, c.q, c.theta, orders[i]);
      EXPECT_NEAR(curve.values()[i] / naive, 1.0, 1e-9)
          << "n_min=" << c.n_min << " q=" << c.q << " theta=" << c.theta << " order=" << orders[i];
    }
  }
}

TEST(RdpPbmTest, MoreClientsSpendLess) {
  double previous = std::numeric_limits<double>::infinity();
  for (int64_t n_min : {1, 2, 5, 20, 94, 300}) {
    const double rdp = *Coordinate(0.05, 1, n_min, {2}).At(2);
    EXPECT_LT(rdp, previous) << n_min;
    previous = rdp;
  }
}

TEST(RdpPbmTest, LargerThetaAndMoreTrialsSpendMore) {
  double previous = 0;
  for (double theta : {0.001, 0.01, 0.05, 0.1, 0.2, 0.25}) {
    const double rdp = *Coordinate(theta, 1, 94, {2}).At(2);
    EXPECT_GT(rdp, previous) << theta;
    previous = rdp;
  }
  previous = 0;
  for (int64_t q : {1, 2, 3, 4}) {
    const double rdp = *Coordinate(0.25, q, 20, {2}).At(2);
    EXPECT_GT(rdp, previous) << q;
    previous = rdp;
  }
}

// Renyi divergences are nondecreasing in the order.
TEST(RdpPbmTest, NondecreasingInTheOrder) {
  const RdpCurve c = Coordinate(0.1, 2, 30, DefaultOrders());
  for (size_t i = 1; i < c.values().size(); ++i) {
    EXPECT_GE(c.values()[i], c.values()[i - 1] * (1 - 1e-12)) << c.orders()[i];
  }
}

TEST(RdpPbmTest, RoundComposesTheCoordinates) {
  const RdpCurve coordinate = Coordinate(0.01, 1, 10, {2, 4});
  absl::StatusOr<RdpCurve> round = PbmRoundCurve({0.01, 1, 10}, 1000, {2, 4});
  ASSERT_TRUE(round.ok());
  EXPECT_NEAR(round->values()[0], 1000 * coordinate.values()[0], 1e-15);
  EXPECT_NEAR(round->values()[1], 1000 * coordinate.values()[1], 1e-15);
  EXPECT_THAT(PbmRoundCurve({0.01, 1, 10}, 0, {2}).status().message(), HasSubstr("dimension"));
}

TEST(RdpPbmTest, RejectsBadParameters) {
  EXPECT_THAT(ValidatePbmPrivacyParams({0.5, 1, 1}).message(), HasSubstr("theta"));
  EXPECT_FALSE(ValidatePbmPrivacyParams({-0.1, 1, 1}).ok());
  EXPECT_THAT(ValidatePbmPrivacyParams({0.1, 0, 1}).message(), HasSubstr("q"));
  EXPECT_THAT(ValidatePbmPrivacyParams({0.1, 1, 0}).message(), HasSubstr("n_min"));
  EXPECT_FALSE(ValidatePbmPrivacyParams({0.1, 1000, 100000}).ok());
  EXPECT_FALSE(PbmCoordinateCurve({0.1, 1, 2}, {0.5}).ok());
  absl::StatusOr<RdpCurve> huge = PbmCoordinateCurve({0.25, 64, 100000}, {2});
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace fedmf::dp
