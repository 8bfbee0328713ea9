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

}  // namespace
}  // namespace fedmf::server
