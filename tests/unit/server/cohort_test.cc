#include "server/cohort.h"

#include <algorithm>
#include <numeric>

#include "gtest/gtest.h"

namespace fedmf::server {
namespace {

std::vector<uint32_t> Range(uint32_t n) {
  std::vector<uint32_t> v(n);
  std::iota(v.begin(), v.end(), 1);
  return v;
}

TEST(CohortTest, SamplesDistinctAvailableIdsInAscendingOrder) {
  const std::vector<uint32_t> available = {2, 5, 7, 11, 13, 17, 19};
  const std::vector<uint32_t> c = SampleCohort(available, 4, 9, 0).value();
  ASSERT_EQ(c.size(), 4u);
  EXPECT_TRUE(std::is_sorted(c.begin(), c.end()));
  EXPECT_EQ(std::adjacent_find(c.begin(), c.end()), c.end());
  for (uint32_t id : c) EXPECT_TRUE(std::binary_search(available.begin(), available.end(), id));
}

TEST(CohortTest, IsAFunctionOfSeedAndRound) {
  const auto all = Range(1000);
  EXPECT_EQ(SampleCohort(all, 100, 7, 3).value(), SampleCohort(all, 100, 7, 3).value());
  // Two uniform 100-of-1000 samples coincide with probability 1 / C(1000, 100).
  EXPECT_NE(SampleCohort(all, 100, 7, 3).value(), SampleCohort(all, 100, 7, 4).value());
  EXPECT_NE(SampleCohort(all, 100, 7, 3).value(), SampleCohort(all, 100, 8, 3).value());
  // A retried round (attempt 1) draws a fresh cohort.
  EXPECT_NE(SampleCohort(all, 100, 7, 3, 0).value(), SampleCohort(all, 100, 7, 3, 1).value());
  EXPECT_EQ(SampleCohort(all, 100, 7, 3).value(), SampleCohort(all, 100, 7, 3, 0).value());
}

TEST(CohortTest, TakingEveryoneReturnsEveryone) {
  EXPECT_EQ(SampleCohort(Range(5), 5, 1, 0).value(), Range(5));
}

// Each id is in a 10-of-100 sample with probability 1/10; over 2000 rounds a count is
// Binomial(2000, 0.1): mean 200, sd 13.4; 6 sd (200 +/- 81) bounds every one of the 100 counts
// with overall failure probability < 100 * 2e-9.
TEST(CohortTest, EveryUserIsEquallyLikely) {
  std::vector<int> count(101, 0);
  const auto all = Range(100);
  for (int64_t r = 0; r < 2000; ++r) {
    const absl::StatusOr<std::vector<uint32_t>> cohort = SampleCohort(all, 10, 42, r);
    ASSERT_TRUE(cohort.ok());
    for (uint32_t id : *cohort) ++count[id];
  }
  for (uint32_t id = 1; id <= 100; ++id) {
    EXPECT_GT(count[id], 200 - 81) << id;
    EXPECT_LT(count[id], 200 + 81) << id;
  }
}

TEST(CohortTest, RejectsSizesOutsideTheAvailableUsers) {
  EXPECT_EQ(SampleCohort(Range(3), 4, 1, 0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SampleCohort(Range(3), 0, 1, 0).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(CohortTest, ThresholdToleratesTheDeclaredDropoutsAboveNMin) {
  EXPECT_EQ(Threshold(30, 0, 0.3).value(), 21);   // 30 - floor(9.0)
  EXPECT_EQ(Threshold(94, 66, 0.3).value(), 66);  // 94 - 28 = 66 = n_min
  EXPECT_EQ(Threshold(94, 70, 0.3).value(), 70);  // n_min wins over dropout tolerance
  EXPECT_EQ(Threshold(94, 40, 0.5).value(), 47);
  EXPECT_EQ(Threshold(2, 0, 0.9).value(), 2);  // never below 2
  EXPECT_EQ(Threshold(10, 0, 0).value(), 10);
}

TEST(CohortTest, ThresholdRejectsImpossibleSettings) {
  EXPECT_EQ(Threshold(10, 11, 0.3).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Threshold(10, 0, 1.0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Threshold(10, 0, -0.1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Threshold(1, 0, 0).status().code(), absl::StatusCode::kInvalidArgument);
}

GraphRequest Graph(GraphMode mode, int64_t cohort, int64_t n_min, double dropout, bool lying_server,
                   int degree = 0) {
  GraphRequest r;
  r.mode = mode;
  r.cohort = cohort;
  r.min_contributors = n_min;
  r.dropout_fraction = dropout;
  r.corrupt_fraction = 0.05;
  r.lying_server = lying_server;
  r.degree = degree;
  return r;
}

TEST(CohortTest, ParsesGraphModes) {
  EXPECT_EQ(ParseGraphMode("auto").value(), GraphMode::kAuto);
  EXPECT_EQ(ParseGraphMode("complete").value(), GraphMode::kComplete);
  EXPECT_EQ(ParseGraphMode("harary").value(), GraphMode::kHarary);
  EXPECT_EQ(ParseGraphMode("sparse").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(CohortTest, CompleteGraphUsesTheCohortThreshold) {
  // t = max(2, 20, 66 - floor(0.3 * 66) = 47) = 47.
  const GraphChoice c = ChooseGraph(Graph(GraphMode::kComplete, 66, 20, 0.3, true)).value();
  EXPECT_EQ(c.graph, secagg::GraphKind::kComplete);
  EXPECT_EQ(c.degree, 0);
  EXPECT_EQ(c.threshold, 47);
}

TEST(CohortTest, AutoPicksTheFindersHararyGraphForALargeCohort) {
  // docs/protocol.md's table, gamma = 0.05: n = 1000, delta = 0.10, semi-honest -> k = 46, t =
  // 20; n = 10000, delta = 0.10, lying server -> k = 136, t = 87. Both neighborhoods are far
  // below half the cohort.
  GraphChoice c = ChooseGraph(Graph(GraphMode::kAuto, 1000, 20, 0.10, false)).value();
  EXPECT_EQ(c.graph, secagg::GraphKind::kHarary);
  EXPECT_EQ(c.degree, 46);
  EXPECT_EQ(c.threshold, 20);
  c = ChooseGraph(Graph(GraphMode::kAuto, 10000, 20, 0.10, true)).value();
  EXPECT_EQ(c.graph, secagg::GraphKind::kHarary);
  EXPECT_EQ(c.degree, 136);
  EXPECT_EQ(c.threshold, 87);
}

TEST(CohortTest, AutoKeepsTheCompleteGraphWhenTheNeighborhoodIsOverHalfTheCohort) {
  // Against a lying server with 30% dropouts a cohort of 300 needs k = 184 (docs/runtime.md's
  // cut-over table): 185 > 150, so the complete graph, t = 300 - floor(90) = 210.
  const GraphChoice c = ChooseGraph(Graph(GraphMode::kAuto, 300, 5, 0.3, true)).value();
  EXPECT_EQ(c.graph, secagg::GraphKind::kComplete);
  EXPECT_EQ(c.threshold, 210);
  // Forcing Harary takes the finder's graph anyway.
  const GraphChoice h = ChooseGraph(Graph(GraphMode::kHarary, 300, 5, 0.3, true)).value();
  EXPECT_EQ(h.graph, secagg::GraphKind::kHarary);
  EXPECT_GE(h.degree, 150);
}

TEST(CohortTest, ForcedHararyWithADegreeDerivesTheNeighborhoodThreshold) {
  // k = 8: 9 holders, t = 9 - floor(0.3 * 9) = 7.
  const GraphChoice c = ChooseGraph(Graph(GraphMode::kHarary, 30, 5, 0.3, true, 8)).value();
  EXPECT_EQ(c.graph, secagg::GraphKind::kHarary);
  EXPECT_EQ(c.degree, 8);
  EXPECT_EQ(c.threshold, 7);
  EXPECT_EQ(ChooseGraph(Graph(GraphMode::kHarary, 30, 5, 0.3, true, 7)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CohortTest, WhenNothingMeetsTheTargetsHararyFailsAndAutoFallsBack) {
  // Lying server, n = 30, 15 dropouts: even the complete graph's t = 15 is not above (30 + 1) / 2.
  EXPECT_EQ(ChooseGraph(Graph(GraphMode::kHarary, 30, 5, 0.5, true)).status().code(),
            absl::StatusCode::kNotFound);
  const GraphChoice c = ChooseGraph(Graph(GraphMode::kAuto, 30, 5, 0.5, true)).value();
  EXPECT_EQ(c.graph, secagg::GraphKind::kComplete);
  EXPECT_EQ(c.threshold, 15);
}

}  // namespace
}  // namespace fedmf::server
