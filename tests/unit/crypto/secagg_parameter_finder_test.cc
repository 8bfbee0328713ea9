// The SecAgg parameter finder: its probability helpers against hand-computed values, and the
// (k, t) it returns against its own stated conditions (each bound met, k minimal).
#include <cmath>

#include "crypto/secagg/parameter_finder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::secagg {
namespace {

using ::testing::HasSubstr;

TEST(SecAggParameterFinderTest, HypergeometricTailHandComputed) {
  // N = 10, K = 3, 2 draws: P[X = 0] = C(7,2)/C(10,2) = 21/45, P[X = 2] = C(3,2)/C(10,2) = 3/45.
  EXPECT_NEAR(std::exp(LogHypergeometricTail(10, 3, 2, 0)), 24.0 / 45, 1e-12);
  EXPECT_NEAR(std::exp(LogHypergeometricTail(10, 3, 2, 1)), 3.0 / 45, 1e-12);
  EXPECT_EQ(LogHypergeometricTail(10, 3, 2, 2), -INFINITY);
  EXPECT_NEAR(LogHypergeometricTail(10, 3, 2, -1), 0.0, 1e-12);
}

TEST(SecAggParameterFinderTest, HypergeometricTailFarBelowDoublePrecisionOfOneMinusCdf) {
  // P[X > 99] with N = 1000, K = 100, 100 draws is P[X = 100] = 1 / C(1000, 100), about 10^-140:
  // a value 1 - CDF could never represent.
  const double log_c = std::lgamma(1001.0) - std::lgamma(101.0) - std::lgamma(901.0);
  EXPECT_NEAR(LogHypergeometricTail(1000, 100, 100, 99), -log_c, 1e-6);
}

TEST(SecAggParameterFinderTest, DisconnectionBoundHandComputed) {
  // n = 10, k = 2, 3 removed: 10 * 7 / 2 = 35 pairs of runs, each removed w.p. [3]_2/[10]_2 =
  // 6/90.
  EXPECT_NEAR(std::exp(LogHararyDisconnectionBound(10, 2, 3)), 35.0 * 6 / 90, 1e-12);
  EXPECT_EQ(LogHararyDisconnectionBound(10, 4, 3), -INFINITY);  // fewer removed than k
}

class FinderTest : public ::testing::TestWithParam<std::tuple<int, double, double, ThreatModel>> {};

TEST_P(FinderTest, ChoiceMeetsEveryBoundAndIsMinimal) {
  const auto [n, gamma, delta, threat] = GetParam();
  ParameterRequirements r;
  r.num_clients = n;
  r.corrupt_fraction = gamma;
  r.dropout_fraction = delta;
  r.threat = threat;
  const absl::StatusOr<GraphParameters> p = FindGraphParameters(r);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->graph, GraphKind::kHarary);
  const int k = p->degree, t = p->threshold;
  const int corrupt = static_cast<int>(std::floor(gamma * n + 1e-9));
  const int dropped = static_cast<int>(std::floor(delta * n + 1e-9));
  const double budget = -41 * std::log(2.0);
  const double log_n = std::log(static_cast<double>(n));
  const bool semi_honest = threat == ThreatModel::kSemiHonest;  // lambdas cannot capture bindings
  auto a_max = [semi_honest](int kk, int tt) {
    return semi_honest ? tt - 1 : std::min(tt - 1, 2 * tt - kk - 2);
  };
  EXPECT_EQ(k % 2, 0);
  EXPECT_LE(LogHararyDisconnectionBound(n, k, corrupt + dropped), budget);
  EXPECT_LE(log_n + LogHypergeometricTail(n - 1, corrupt, k, a_max(k, t)), budget);
  EXPECT_LE(log_n + LogHypergeometricTail(n - 1, dropped, k, k - t), -40 * std::log(2.0));
  EXPECT_LE(p->log2_privacy_failure, -40);
  EXPECT_LE(p->log2_correctness_failure, -40);
  // No smaller degree admits any threshold.
  const int kk = k - 2;
  if (kk >= 2 && LogHararyDisconnectionBound(n, kk, corrupt + dropped) <= budget) {
    for (int tt = 2; tt <= kk + 1; ++tt) {
      const bool private_enough =
          log_n + LogHypergeometricTail(n - 1, corrupt, kk, a_max(kk, tt)) <= budget;
      const bool correct_enough =
          log_n + LogHypergeometricTail(n - 1, dropped, kk, kk - tt) <= -40 * std::log(2.0);
      EXPECT_FALSE(private_enough && correct_enough) << "k=" << kk << " t=" << tt;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Settings, FinderTest,
    ::testing::Values(std::make_tuple(1000, 0.0, 0.05, ThreatModel::kSemiHonest),
                      std::make_tuple(1000, 0.05, 0.1, ThreatModel::kSemiHonest),
                      std::make_tuple(10000, 0.05, 0.1, ThreatModel::kSemiHonest),
                      std::make_tuple(10000, 0.05, 0.1, ThreatModel::kMaliciousServer),
                      std::make_tuple(100000, 0.05, 0.05, ThreatModel::kMaliciousServer)));

TEST(SecAggParameterFinderTest, SmallCohortFallsBackToTheCompleteGraph) {
  // n = 4, one dropout: the only Harary degree is k = 2 (a ring), where a client's 2 neighbors
  // include the dropped one with probability 2/3, far above 2^-40 for t = 2 or 3. The complete
  // graph with t = n - D = 3 tolerates it.
  ParameterRequirements r;
  r.num_clients = 4;
  r.dropout_fraction = 0.25;
  const GraphParameters p = FindGraphParameters(r).value();
  EXPECT_EQ(p.graph, GraphKind::kComplete);
  EXPECT_EQ(p.threshold, 3);
}

TEST(SecAggParameterFinderTest, DeterministicCasesNeedNoSlack) {
  // n = 20, 2 corrupt, 6 dropped, k = 10: fewer removed clients (8) than k, so the ring cannot be
  // cut; at most 2 corrupt neighbors (t = 3 hides); at most 6 dropped neighbors (4 >= t remain).
  ParameterRequirements r;
  r.num_clients = 20;
  r.corrupt_fraction = 0.1;
  r.dropout_fraction = 0.3;
  const GraphParameters p = FindGraphParameters(r).value();
  EXPECT_EQ(p.graph, GraphKind::kHarary);
  EXPECT_EQ(p.degree, 10);
  EXPECT_EQ(p.threshold, 3);
}

TEST(SecAggParameterFinderTest, LyingServerNeedsMajorityThresholdOnTheCompleteGraph) {
  ParameterRequirements r;
  r.num_clients = 20;
  r.corrupt_fraction = 0.3;   // 6 corrupt
  r.dropout_fraction = 0.35;  // 7 dropped: t = 13, and 2 * 13 = 26 <= 20 + 6
  r.threat = ThreatModel::kMaliciousServer;
  EXPECT_THAT(FindGraphParameters(r).status().message(), HasSubstr("not above (n + corrupt) / 2"));
  r.dropout_fraction = 0.3;  // t = 14: 28 > 26
  EXPECT_EQ(FindGraphParameters(r).value().threshold, 14);
}

TEST(SecAggParameterFinderTest, InvalidRequirementsRejected) {
  ParameterRequirements r;
  r.num_clients = 1;
  EXPECT_EQ(FindGraphParameters(r).status().code(), absl::StatusCode::kInvalidArgument);
  r.num_clients = 100;
  r.corrupt_fraction = 0.6;
  r.dropout_fraction = 0.5;
  EXPECT_EQ(FindGraphParameters(r).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::secagg
