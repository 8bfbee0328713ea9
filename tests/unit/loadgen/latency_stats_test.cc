#include "tools/loadgen/latency_stats.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace fedmf::loadgen {
namespace {

TEST(LatencyStatsTest, NearestRankOnOneToHundred) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  // rank ceil(q * 100): 50, 95, 99; q = 0 is rank 1, q = 1 rank 100.
  EXPECT_EQ(NearestRank(v, 0.5), 50);
  EXPECT_EQ(NearestRank(v, 0.95), 95);
  EXPECT_EQ(NearestRank(v, 0.99), 99);
  EXPECT_EQ(NearestRank(v, 0), 1);
  EXPECT_EQ(NearestRank(v, 1), 100);
}

TEST(LatencyStatsTest, SummarizeSortsAndRoundsRanksUp) {
  // Sorted: 1 2 3 4 10. p50: rank ceil(2.5) = 3 -> 3; p95: ceil(4.75) = 5 -> 10; mean 20 / 5.
  const Percentiles p = Summarize({10, 3, 1, 4, 2});
  EXPECT_EQ(p.count, 5u);
  EXPECT_EQ(p.p50, 3);
  EXPECT_EQ(p.p95, 10);
  EXPECT_EQ(p.p99, 10);
  EXPECT_EQ(p.max, 10);
  EXPECT_DOUBLE_EQ(p.mean, 4);
}

TEST(LatencyStatsTest, EmptySampleIsAllZero) {
  const Percentiles p = Summarize({});
  EXPECT_EQ(p.count, 0u);
  EXPECT_EQ(p.p50, 0);
  EXPECT_EQ(p.max, 0);
}

TEST(LatencyStatsTest, SingleValueIsEveryPercentile) {
  const Percentiles p = Summarize({0.25});
  EXPECT_EQ(p.p50, 0.25);
  EXPECT_EQ(p.p99, 0.25);
}

TEST(LatencyStatsTest, RecorderKeepsSeriesApartAcrossThreads) {
  LatencyRecorder r;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&r] {
      for (int i = 0; i < 1000; ++i) {
        r.Add("round", 2.0);
        r.Add("advertise", 1.0);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const auto s = r.Summaries();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.at("round").count, 4000u);
  EXPECT_EQ(s.at("round").p50, 2.0);
  EXPECT_EQ(s.at("advertise").count, 4000u);
  EXPECT_EQ(s.at("advertise").max, 1.0);
}

}  // namespace
}  // namespace fedmf::loadgen
