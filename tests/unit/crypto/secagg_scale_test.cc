// SecAgg at scale (label "slow"): a complete graph with a threshold in the hundreds (n = 200,
// t = 140) and n = 10000 on a Harary graph whose degree and threshold come from the parameter
// finder, with dropouts at every stage; the sum must be exact. The complete graph's cost grows as
// n^2 (every pair agrees on keys), so n = 1000 on it is a benchmark, not a test:
// BM_WholeProtocolComplete/n:1000 in tests/bench/secagg_bench.cc (10% dropouts over the four
// stages, t = 0.7 n, the sum checked), with its figures in docs/results/secagg-bench.md.
#include <map>

#include "crypto/secagg/parameter_finder.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/secagg_driver.h"

namespace fedmf::secagg {
namespace {

using test_util::DriverOptions;
using test_util::DriverResult;
using test_util::DropPoint;
using test_util::RunSession;

// Drops `per_stage` clients at each of the four drop points, spread over the ids.
std::map<uint32_t, DropPoint> SpreadDrops(int n, int per_stage) {
  std::map<uint32_t, DropPoint> out;
  const DropPoint points[] = {DropPoint::kAdvertise, DropPoint::kShareKeys, DropPoint::kMaskedInput,
                              DropPoint::kUnmasking};
  int next = 1;
  for (DropPoint p : points) {
    for (int i = 0; i < per_stage; ++i) {
      out[static_cast<uint32_t>(next)] = p;
      next += n / (4 * per_stage);
    }
  }
  return out;
}

// Shamir sharing and reconstruction at a threshold in the hundreds (the keys of the clients lost
// before MaskedInput, the self masks of those silent at Unmasking), on 2 client threads.
TEST(SecAggScaleTest, CompleteGraphTwoHundredClients) {
  DriverOptions o;
  o.config.context = "scale-complete";
  o.config.num_clients = 200;
  o.config.threshold = 140;
  o.config.bits = 32;
  o.config.length = 64;
  o.drops = SpreadDrops(200, 5);  // 10% in total, 2.5% per stage
  o.threads = 2;
  const DriverResult r = RunSession(o);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.sum, r.expected);
  EXPECT_EQ(r.included.size(), 185u);  // drops at kUnmasking still count
}

TEST(SecAggScaleTest, HararyGraphTenThousandClients) {
  // The finder's (k, t) for 5% dropout and no corruption (semi-honest server); 2^-40 each.
  ParameterRequirements req;
  req.num_clients = 10000;
  req.dropout_fraction = 0.05;
  const GraphParameters params = FindGraphParameters(req).value();
  ASSERT_EQ(params.graph, GraphKind::kHarary);
  DriverOptions o;
  o.config.context = "scale-harary";
  o.config.num_clients = 10000;
  o.config.graph = GraphKind::kHarary;
  o.config.degree = params.degree;
  o.config.threshold = params.threshold;
  o.config.bits = 32;
  o.config.length = 16;
  o.drops = SpreadDrops(10000, 100);  // 4% in total, 1% per stage
  o.threads = 2;
  const DriverResult r = RunSession(o);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_FALSE(r.complete_graph);
  EXPECT_EQ(r.sum, r.expected);
  EXPECT_EQ(r.included.size(), 9700u);  // drops at kUnmasking still count
}

}  // namespace
}  // namespace fedmf::secagg
