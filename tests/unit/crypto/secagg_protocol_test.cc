// End-to-end SecAgg runs through the in-process driver: exact sums, dropouts at every stage alone
// and combined, the threshold boundary, random configurations, and privacy of one client's
// masked input in the server's view.
#include <algorithm>
#include <cstdint>
#include <map>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "crypto/secagg/mask_accumulator.h"
#include "crypto/shamir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/secagg_driver.h"

namespace fedmf::secagg {
namespace {

using test_util::DriverOptions;
using test_util::DriverResult;
using test_util::DropPoint;
using test_util::RunSession;
using ::testing::HasSubstr;

SessionConfig Harary(int n, int k, int t, int bits, size_t d) {
  SessionConfig c = test_util::CompleteGraph("secagg-protocol-test", n, t, bits, d);
  c.graph = GraphKind::kHarary;
  c.degree = k;
  return c;
}

// ids in [first, first + count)
std::map<uint32_t, DropPoint> Drop(uint32_t first, int count, DropPoint point) {
  std::map<uint32_t, DropPoint> out;
  for (int i = 0; i < count; ++i) out[first + static_cast<uint32_t>(i)] = point;
  return out;
}

void ExpectExactSum(const DriverResult& r) {
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.sum, r.expected);
  std::vector<uint32_t> sent = r.sent_masked_input;
  std::sort(sent.begin(), sent.end());
  EXPECT_EQ(r.included, sent);
  EXPECT_TRUE(r.client_aborts.empty()) << r.client_aborts.begin()->second;
}

// n, t, bits, d for the complete graph.
class CompleteGraphSumTest : public ::testing::TestWithParam<std::tuple<int, int, int, size_t>> {};

TEST_P(CompleteGraphSumTest, SumIsExact) {
  const auto [n, t, bits, d] = GetParam();
  DriverOptions o;
  o.config = test_util::CompleteGraph("secagg-protocol-test", n, t, bits, d);
  o.input_seed = static_cast<uint64_t>(n * 1000 + bits);
  o.threads = 2;
  const DriverResult r = RunSession(o);
  ExpectExactSum(r);
  EXPECT_EQ(r.included.size(), static_cast<size_t>(n));
  EXPECT_EQ(r.completed_clients, n);
}

INSTANTIATE_TEST_SUITE_P(Sizes, CompleteGraphSumTest,
                         ::testing::Values(std::make_tuple(2, 2, 16, size_t{7}),
                                           std::make_tuple(3, 2, 1, size_t{9}),
                                           std::make_tuple(3, 3, 62, size_t{4}),
                                           std::make_tuple(10, 6, 32, size_t{33}),
                                           std::make_tuple(10, 10, 33, size_t{5}),
                                           std::make_tuple(100, 51, 24, size_t{16})));

TEST(SecAggProtocolTest, HararyGraphSumIsExact) {
  DriverOptions o;
  o.config = Harary(100, 10, 6, 20, 12);
  o.threads = 2;
  const DriverResult r = RunSession(o);
  ExpectExactSum(r);
  EXPECT_FALSE(r.complete_graph);
  EXPECT_EQ(r.included.size(), 100u);
}

TEST(SecAggProtocolTest, ArbitraryClientIds) {
  DriverOptions o;
  o.config = test_util::CompleteGraph("secagg-protocol-test", 4, 3, 12, 10);
  o.ids = {4000000000u, 7, 0, 123456};
  ExpectExactSum(RunSession(o));
}

TEST(SecAggProtocolTest, SignaturesAndConsistencyCheck) {
  DriverOptions o;
  o.config = test_util::CompleteGraph("secagg-protocol-test", 10, 7, 32, 16);
  o.config.signatures = true;
  o.config.consistency_check = true;
  o.drops = {
      {3, DropPoint::kMaskedInput}, {5, DropPoint::kConsistencyCheck}, {8, DropPoint::kUnmasking}};
  const DriverResult r = RunSession(o);
  ExpectExactSum(r);
  EXPECT_EQ(r.included, (std::vector<uint32_t>{1, 2, 4, 5, 6, 7, 8, 9, 10}));
}

// Dropouts at one stage, alone: the clients lost before ShareKeys are excluded, those lost before
// their masked input are excluded after their pairwise masks are removed, those lost later count.
class SingleStageDropTest : public ::testing::TestWithParam<std::tuple<DropPoint, bool, bool>> {};

TEST_P(SingleStageDropTest, SumIsExact) {
  const auto [point, harary, report] = GetParam();
  DriverOptions o;
  o.config = harary ? Harary(30, 12, 7, 32, 20)
                    : test_util::CompleteGraph("secagg-protocol-test", 10, 6, 32, 20);
  o.drops = Drop(2, 3, point);
  o.report_drops = report;
  const DriverResult r = RunSession(o);
  ExpectExactSum(r);
  const bool counted = point == DropPoint::kUnmasking;
  EXPECT_EQ(r.included.size(), static_cast<size_t>(o.config.num_clients - (counted ? 0 : 3)));
}

INSTANTIATE_TEST_SUITE_P(
    Stages, SingleStageDropTest,
    ::testing::Combine(::testing::Values(DropPoint::kAdvertise, DropPoint::kShareKeys,
                                         DropPoint::kMaskedInput, DropPoint::kUnmasking),
                       ::testing::Bool(), ::testing::Bool()));

TEST(SecAggProtocolTest, DropoutsAtEveryStageCombined) {
  DriverOptions o;
  o.config = test_util::CompleteGraph("secagg-protocol-test", 20, 10, 40, 17);
  o.drops = {{1, DropPoint::kAdvertise},   {2, DropPoint::kAdvertise},
             {3, DropPoint::kShareKeys},   {4, DropPoint::kShareKeys},
             {5, DropPoint::kMaskedInput}, {6, DropPoint::kMaskedInput},
             {7, DropPoint::kMaskedInput}, {8, DropPoint::kUnmasking},
             {9, DropPoint::kUnmasking},   {10, DropPoint::kUnmasking}};
  const DriverResult r = RunSession(o);
  ExpectExactSum(r);
  EXPECT_EQ(r.included, (std::vector<uint32_t>{8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}));
}

// 12 of 40 clients lost before their masked input: 12 x 28 = 336 pairwise masks to remove, split
// over 1, 2 or 8 unmasking threads (8 is capped at 336 / kPairsPerWorker = 5), 32- and 40-bit
// sums: the sum is exact whatever the split.
class UnmaskingThreadsTest : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(UnmaskingThreadsTest, SumIsExact) {
  const auto [threads, bits] = GetParam();
  DriverOptions o;
  o.config = test_util::CompleteGraph("secagg-protocol-test", 40, 20, bits, 300);
  o.drops = Drop(5, 12, DropPoint::kMaskedInput);
  o.unmasking_threads = threads;
  const DriverResult r = RunSession(o);
  ExpectExactSum(r);
  EXPECT_EQ(r.included.size(), 28u);
}

INSTANTIATE_TEST_SUITE_P(Threads, UnmaskingThreadsTest,
                         ::testing::Combine(::testing::Values(1, 2, 8), ::testing::Values(32, 40)));

TEST(SecAggProtocolTest, HararyDropoutsAtEveryStageCombined) {
  DriverOptions o;
  o.config = Harary(60, 16, 9, 32, 9);
  o.drops = {{1, DropPoint::kAdvertise},    {11, DropPoint::kShareKeys},
             {21, DropPoint::kShareKeys},   {31, DropPoint::kMaskedInput},
             {41, DropPoint::kMaskedInput}, {51, DropPoint::kUnmasking},
             {52, DropPoint::kUnmasking}};
  ExpectExactSum(RunSession(o));
}

// n = 10, t = 6: up to 4 clients may be lost in total; the 5th loss aborts, at the stage where
// it happens, with the reason.
struct Boundary {
  DropPoint point;
  const char* reason;  // abort reason when one client too many is lost there
};

void PrintTo(const Boundary& boundary, std::ostream* os) { PrintTo(boundary.point, os); }

class ThresholdBoundaryTest : public ::testing::TestWithParam<Boundary> {};

TEST_P(ThresholdBoundaryTest, LargestDropoutSucceedsOneMoreAborts) {
  DriverOptions o;
  o.config = test_util::CompleteGraph("secagg-protocol-test", 10, 6, 16, 8);
  o.drops = Drop(1, 4, GetParam().point);
  ExpectExactSum(RunSession(o));

  o.drops = Drop(1, 5, GetParam().point);
  const DriverResult r = RunSession(o);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kAborted);
  EXPECT_THAT(r.status.message(), HasSubstr(GetParam().reason));
  EXPECT_TRUE(r.sum.empty());
  // Every client still in the session was told why.
  for (uint32_t id = 6; id <= 10; ++id) {
    ASSERT_TRUE(r.client_aborts.contains(id)) << id;
    EXPECT_THAT(r.client_aborts.at(id), HasSubstr(GetParam().reason));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Stages, ThresholdBoundaryTest,
    ::testing::Values(Boundary{DropPoint::kAdvertise,
                               "too few clients advertised keys: 5, threshold 6"},
                      Boundary{DropPoint::kShareKeys, "too few clients left after ShareKeys: 5"},
                      Boundary{DropPoint::kMaskedInput, "too few masked inputs: 5, threshold 6"},
                      Boundary{DropPoint::kUnmasking, "too few shares to unmask client"}));

TEST(SecAggProtocolTest, CombinedDropoutAtThresholdSucceedsBeyondAborts) {
  DriverOptions o;
  o.config = test_util::CompleteGraph("secagg-protocol-test", 10, 6, 16, 8);
  o.drops = {{1, DropPoint::kAdvertise},
             {2, DropPoint::kShareKeys},
             {3, DropPoint::kMaskedInput},
             {4, DropPoint::kUnmasking}};
  ExpectExactSum(RunSession(o));
  o.drops[5] = DropPoint::kUnmasking;
  const DriverResult r = RunSession(o);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kAborted);
  EXPECT_THAT(r.status.message(), HasSubstr("too few shares to unmask client"));
}

TEST(SecAggProtocolTest, HararyNeighborhoodBelowThresholdAborts) {
  // Closed neighborhoods have k + 1 = 5 members and t = 5: losing any client after ShareKeys
  // leaves its neighbors unable to rebuild its key.
  DriverOptions o;
  o.config = Harary(12, 4, 5, 8, 4);
  o.drops = {{7, DropPoint::kMaskedInput}};
  const DriverResult r = RunSession(o);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kAborted);
  EXPECT_THAT(r.status.message(), HasSubstr("in the neighborhood of client"));
}

// Random n, graph, t, b, d, dropout pattern: either the exact sum or a clean abort with a reason.
TEST(SecAggProtocolTest, RandomSessionsSumExactlyOrAbortWithReason) {
  std::mt19937_64 rng(20240611);
  int completed = 0, aborted = 0;
  for (int run = 0; run < 60; ++run) {
    auto uniform = [&rng](int lo, int hi) {  // [lo, hi]
      return lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1));
    };
    const int n = uniform(2, 24);
    const bool harary = n >= 6 && uniform(0, 1) == 1;
    const int k = harary ? 2 * uniform(1, (n - 2) / 2) : 0;
    const int t = uniform(2, harary ? k + 1 : n);
    SessionConfig c = harary
                          ? Harary(n, k, t, uniform(1, 62), static_cast<size_t>(uniform(1, 40)))
                          : test_util::CompleteGraph("secagg-protocol-test", n, t, uniform(1, 62),
                                                     static_cast<size_t>(uniform(1, 40)));
    c.signatures = uniform(0, 3) == 0;
    c.consistency_check = c.signatures && !harary && uniform(0, 1) == 1;
    DriverOptions o;
    o.config = c;
    o.input_seed = rng();
    o.report_drops = uniform(0, 1) == 1;
    const int drop_percent = uniform(0, 40);
    for (int id = 1; id <= n; ++id) {
      if (uniform(1, 100) <= drop_percent) {
        o.drops[static_cast<uint32_t>(id)] = static_cast<DropPoint>(uniform(1, 5));
      }
    }
    SCOPED_TRACE(::testing::Message()
                 << "run " << run << ": n=" << n << " k=" << k << " t=" << t << " b=" << c.bits
                 << " d=" << c.length << " cc=" << c.consistency_check);
    const DriverResult r = RunSession(o);
    if (r.status.ok()) {
      ++completed;
      ExpectExactSum(r);
    } else {
      ++aborted;
      EXPECT_EQ(r.status.code(), absl::StatusCode::kAborted) << r.status;
      EXPECT_THAT(r.status.message(), HasSubstr("too few"));
    }
  }
  // Both outcomes occur, so both branches were exercised.
  EXPECT_GT(completed, 10);
  EXPECT_GT(aborted, 3);
}

}  // namespace
}  // namespace fedmf::secagg
