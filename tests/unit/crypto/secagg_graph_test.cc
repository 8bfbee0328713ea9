// Neighbor graphs: the complete graph, and Harary graphs H(k, n) on a seeded random ring order
// (k-regular, symmetric, connected, reproducible from the seed).
#include <algorithm>
#include <queue>
#include <set>
#include <vector>

#include "crypto/secagg/graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::secagg {
namespace {

using ::testing::HasSubstr;

std::vector<uint32_t> Ids(int n) {
  std::vector<uint32_t> ids;
  for (int i = 0; i < n; ++i) ids.push_back(static_cast<uint32_t>(10 * i + 3));
  return ids;
}

const std::vector<uint8_t> kSeed(32, 7);

TEST(SecAggGraphTest, CompleteGraphNeighborhoodIsEveryone) {
  const NeighborGraph g = NeighborGraph::Complete({2, 5, 9}).value();
  EXPECT_TRUE(g.complete());
  EXPECT_EQ(g.closed_neighborhood_size(), 3u);
  EXPECT_EQ(g.ClosedNeighborhood(5), (std::vector<uint32_t>{2, 5, 9}));
  EXPECT_TRUE(g.AreNeighbors(2, 9));
  EXPECT_FALSE(g.AreNeighbors(2, 2));
  EXPECT_FALSE(g.AreNeighbors(2, 4));
  EXPECT_TRUE(g.ClosedNeighborhood(4).empty());
  EXPECT_EQ(g.Rank(9), 2u);
}

TEST(SecAggGraphTest, HararyGraphIsRegularSymmetricAndConnected) {
  const int n = 101, k = 6;
  const NeighborGraph g = NeighborGraph::Harary(Ids(n), k, kSeed).value();
  ASSERT_FALSE(g.complete());
  EXPECT_EQ(g.closed_neighborhood_size(), 7u);
  std::set<std::pair<uint32_t, uint32_t>> edges;
  for (uint32_t u : g.ids()) {
    const std::vector<uint32_t> nb = g.ClosedNeighborhood(u);
    ASSERT_EQ(nb.size(), static_cast<size_t>(k + 1));
    EXPECT_TRUE(std::is_sorted(nb.begin(), nb.end()));
    EXPECT_TRUE(std::binary_search(nb.begin(), nb.end(), u));
    for (uint32_t v : nb) {
      if (v == u) continue;
      EXPECT_TRUE(g.AreNeighbors(u, v));
      edges.insert({std::min(u, v), std::max(u, v)});
    }
  }
  EXPECT_EQ(edges.size(), static_cast<size_t>(n * k / 2));  // k-regular, symmetric
  for (const auto& [u, v] : edges) {
    const std::vector<uint32_t> nv = g.ClosedNeighborhood(v);
    EXPECT_TRUE(std::binary_search(nv.begin(), nv.end(), u));
  }
  // Connected: breadth-first search from the first node reaches all n.
  std::set<uint32_t> seen = {g.ids()[0]};
  std::queue<uint32_t> frontier;
  frontier.push(g.ids()[0]);
  while (!frontier.empty()) {
    for (uint32_t v : g.ClosedNeighborhood(frontier.front())) {
      if (seen.insert(v).second) frontier.push(v);
    }
    frontier.pop();
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(n));
}

TEST(SecAggGraphTest, HararyGraphDependsOnlyOnTheSeed) {
  const NeighborGraph a = NeighborGraph::Harary(Ids(50), 4, kSeed).value();
  const NeighborGraph b = NeighborGraph::Harary(Ids(50), 4, kSeed).value();
  const NeighborGraph c = NeighborGraph::Harary(Ids(50), 4, std::vector<uint8_t>(32, 8)).value();
  int differ = 0;
  for (uint32_t u : a.ids()) {
    EXPECT_EQ(a.ClosedNeighborhood(u), b.ClosedNeighborhood(u));
    differ += a.ClosedNeighborhood(u) != c.ClosedNeighborhood(u);
  }
  // A ring order unchanged by a new seed has probability about 50! ^ -1.
  EXPECT_GT(differ, 0);
}

TEST(SecAggGraphTest, RandomOrderIsNotTheIdOrder) {
  // With the identity order, client 3's neighbors would be 13 and 23 (and the wrap-around 493).
  const NeighborGraph g = NeighborGraph::Harary(Ids(50), 2, kSeed).value();
  EXPECT_NE(g.ClosedNeighborhood(3), (std::vector<uint32_t>{3, 13, 493}));
}

TEST(SecAggGraphTest, LargeDegreeGivesTheCompleteGraph) {
  const NeighborGraph g = NeighborGraph::Harary(Ids(5), 4, kSeed).value();
  EXPECT_TRUE(g.complete());
  EXPECT_EQ(g.ClosedNeighborhood(3).size(), 5u);
}

TEST(SecAggGraphTest, InvalidInputsRejected) {
  EXPECT_THAT(NeighborGraph::Complete({}).status().message(), HasSubstr("without nodes"));
  EXPECT_THAT(NeighborGraph::Complete({3, 3}).status().message(),
              HasSubstr("not strictly ascending at 1: 3 after 3"));
  EXPECT_THAT(NeighborGraph::Harary(Ids(20), 3, kSeed).status().message(),
              HasSubstr("must be even"));
  EXPECT_FALSE(NeighborGraph::Harary(Ids(20), 4, std::vector<uint8_t>(16, 0)).ok());
}

}  // namespace
}  // namespace fedmf::secagg
