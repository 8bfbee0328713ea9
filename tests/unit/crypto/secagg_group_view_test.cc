// The scale-out wire check at the SecAgg level (docs/scale-out.md, sections 3 and 11 item 3 (ii)):
// with the cohort split into F groups (by id mod F and at random, F = 2 and 3), no front (every
// message to and from its group), no combiner (every message but the masked inputs, plus each
// group's partial sum) and no coalition of the two rebuilds a group's unmasked sum, on the
// complete graph (with and without the consistency check) and on a SecAgg+ graph, with no drops
// and with drops after AdvertiseKeys, after ShareKeys and after MaskedInput. The coalition is
// left with exactly the pairwise masks on survivor edges out of the group. The attacker is shown
// competent: from the single coordinator's view it rebuilds the whole sum exactly, so does the
// combiner from all the partials, and a front whose members are told that every survivor outside
// the group dropped (a lying server, without the consistency check) rebuilds its group's sum.
#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "crypto/bit_unpack.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/secagg_driver.h"
#include "tests/unit/crypto/transcript_attacker.h"

namespace fedmf::secagg {
namespace {

using fedmf::v1::secagg::ServerToClient;
using test_util::DriverOptions;
using test_util::DriverResult;
using test_util::DropPoint;
using test_util::GroupSumEstimate;
using test_util::PartyView;
using test_util::TranscriptAttacker;
using Groups = std::vector<std::set<uint32_t>>;

enum class Graph { kComplete, kCompleteChecked, kHarary };

// d = 8 values of 20 bits: a wrong estimate matches by chance with probability 2^-160.
SessionConfig ConfigFor(Graph graph) {
  if (graph == Graph::kHarary) {
    SessionConfig config = test_util::CompleteGraph("secagg-group-view-test", 16, 4, 20, 8);
    config.graph = GraphKind::kHarary;
    config.degree = 6;
    return config;
  }
  SessionConfig config = test_util::CompleteGraph("secagg-group-view-test", 12, 7, 20, 8);
  config.signatures = config.consistency_check = graph == Graph::kCompleteChecked;
  return config;
}

// Who drops where: none; after AdvertiseKeys (never shares keys); after ShareKeys (never sends
// its masked input); after MaskedInput (never answers the unmasking request); one of each.
const std::map<std::string, std::map<uint32_t, DropPoint>>& Drops() {
  static const auto* drops = new std::map<std::string, std::map<uint32_t, DropPoint>>{
      {"None", {}},
      {"AfterAdvertise", {{2, DropPoint::kShareKeys}, {7, DropPoint::kShareKeys}}},
      {"AfterShareKeys", {{3, DropPoint::kMaskedInput}, {10, DropPoint::kMaskedInput}}},
      {"AfterMaskedInput", {{4, DropPoint::kUnmasking}, {9, DropPoint::kUnmasking}}},
      {"Mixed",
       {{2, DropPoint::kShareKeys}, {3, DropPoint::kMaskedInput}, {4, DropPoint::kUnmasking}}},
  };
  return *drops;
}

DriverResult RunRecorded(const SessionConfig& config, const std::map<uint32_t, DropPoint>& drops) {
  DriverOptions o;
  o.config = config;
  o.input_seed = 44;
  o.drops = drops;
  o.record = true;
  return test_util::RunSession(o);
}

// The true sum of x_u over the members of `group` whose input is in the session's sum.
std::vector<uint64_t> TrueSum(const SessionConfig& config, const DriverResult& r,
                              const std::set<uint32_t>& group) {
  std::vector<uint64_t> sum(config.length, 0);
  for (uint32_t u : r.included) {
    if (!group.contains(u)) continue;
    const std::vector<uint64_t>& x = r.transcript.inputs.at(u);
    for (size_t i = 0; i < sum.size(); ++i) {
      sum[i] = (sum[i] + x[i]) & crypto::internal::LowBitsMask(config.bits);
    }
  }
  return sum;
}

std::vector<uint32_t> IncludedIn(const DriverResult& r, const std::set<uint32_t>& group) {
  std::vector<uint32_t> out;
  for (uint32_t u : r.included) {
    if (group.contains(u)) out.push_back(u);
  }
  return out;
}

// Pairs (u, v) of neighbours whose inputs both count, u in `group` and v not.
int SurvivorEdgesLeaving(const NeighborGraph& graph, const DriverResult& r,
                         const std::set<uint32_t>& group) {
  int edges = 0;
  for (uint32_t u : r.included) {
    for (uint32_t v : r.included) {
      edges += group.contains(u) && !group.contains(v) && graph.AreNeighbors(u, v);
    }
  }
  return edges;
}

// Clients 1..n dealt to `f` groups by id mod f, or at random.
Groups Partition(int n, int f, bool random) {
  std::vector<uint32_t> ids(static_cast<size_t>(n));
  std::iota(ids.begin(), ids.end(), 1u);
  if (random) std::shuffle(ids.begin(), ids.end(), std::mt19937_64(static_cast<uint64_t>(f)));
  Groups groups(static_cast<size_t>(f));
  for (size_t i = 0; i < ids.size(); ++i) {
    groups[(random ? i : ids[i]) % groups.size()].insert(ids[i]);
  }
  return groups;
}

GroupSumEstimate Attack(const SessionConfig& config, const DriverResult& r, const PartyView& view,
                        const std::set<uint32_t>& group) {
  absl::StatusOr<TranscriptAttacker> attacker =
      TranscriptAttacker::Create(config, test_util::AdvertisedIds(r.transcript), view);
  EXPECT_TRUE(attacker.ok()) << attacker.status();
  if (!attacker.ok()) return {};
  absl::StatusOr<GroupSumEstimate> estimate = attacker->GroupSum(group);
  EXPECT_TRUE(estimate.ok()) << estimate.status();
  return estimate.ok() ? *estimate : GroupSumEstimate{};
}

class GroupViewTest : public ::testing::TestWithParam<std::tuple<Graph, std::string>> {
 protected:
  void SetUp() override {
    config_ = ConfigFor(std::get<0>(GetParam()));
    r_ = RunRecorded(config_, Drops().at(std::get<1>(GetParam())));
    ASSERT_TRUE(r_.status.ok()) << r_.status;
    for (const auto& [id, input] : r_.transcript.inputs) all_.insert(id);
  }

  SessionConfig config_;
  DriverResult r_;
  std::set<uint32_t> all_;
};

TEST_P(GroupViewTest, TheSingleCoordinatorsViewGivesTheWholeSum) {
  const GroupSumEstimate whole =
      Attack(config_, r_, test_util::FrontView(r_.transcript, all_), all_);
  EXPECT_EQ(whole.members, r_.included);
  EXPECT_EQ(whole.self_masks_left, 0);
  EXPECT_EQ(whole.pairwise_masks_left, 0);
  EXPECT_EQ(whole.sum, r_.expected);
  EXPECT_EQ(whole.sum, TrueSum(config_, r_, all_));
}

TEST_P(GroupViewTest, TheCombinerWithEveryPartialGetsTheWholeSum) {
  for (int f : {2, 3}) {
    SCOPED_TRACE(f);
    absl::StatusOr<PartyView> combiner =
        test_util::CombinerView(config_, r_.transcript, Partition(config_.num_clients, f, true));
    ASSERT_TRUE(combiner.ok()) << combiner.status();
    EXPECT_EQ(Attack(config_, r_, *combiner, all_).sum, r_.expected);
  }
}

TEST_P(GroupViewTest, NoFrontCombinerOrCoalitionGetsAGroupSum) {
  for (int f : {2, 3}) {
    for (bool random : {false, true}) {
      const Groups groups = Partition(config_.num_clients, f, random);
      absl::StatusOr<PartyView> combiner = test_util::CombinerView(config_, r_.transcript, groups);
      ASSERT_TRUE(combiner.ok()) << combiner.status();
      const NeighborGraph graph =
          TranscriptAttacker::Create(config_, test_util::AdvertisedIds(r_.transcript), *combiner)
              .value()
              .graph();
      for (const std::set<uint32_t>& group : groups) {
        SCOPED_TRACE(testing::Message() << f << " groups" << (random ? " at random" : "")
                                        << ", group of " << *group.begin());
        const std::vector<uint64_t> truth = TrueSum(config_, r_, group);
        const int leaving = SurvivorEdgesLeaving(graph, r_, group);
        ASSERT_GT(leaving, 0);  // else the group's sum is exposed by design
        const PartyView front = test_util::FrontView(r_.transcript, group);
        std::map<std::string, GroupSumEstimate> estimates;
        for (const auto& [party, view] :
             {std::pair<std::string, PartyView>{"front", front},
              {"combiner", *combiner},
              {"front and combiner", test_util::Coalition(front, *combiner)}}) {
          SCOPED_TRACE(party);
          estimates[party] = Attack(config_, r_, view, group);
          EXPECT_EQ(estimates[party].members, IncludedIn(r_, group));
          EXPECT_NE(estimates[party].sum, truth);
        }
        // Together they rebuild what the single coordinator does: only the survivor edges out
        // of the group stay masked.
        EXPECT_EQ(estimates["front and combiner"].self_masks_left, 0);
        EXPECT_EQ(estimates["front and combiner"].pairwise_masks_left, leaving);
      }
    }
  }
}

std::string GraphAndDrops(const ::testing::TestParamInfo<std::tuple<Graph, std::string>>& info) {
  constexpr const char* kGraphs[] = {"Complete", "CompleteChecked", "Harary"};
  return kGraphs[static_cast<int>(std::get<0>(info.param))] + std::get<1>(info.param);
}

INSTANTIATE_TEST_SUITE_P(
    GraphsAndDrops, GroupViewTest,
    ::testing::Combine(::testing::Values(Graph::kComplete, Graph::kCompleteChecked, Graph::kHarary),
                       ::testing::Values("None", "AfterAdvertise", "AfterShareKeys",
                                         "AfterMaskedInput", "Mixed")),
    GraphAndDrops);

// The planted leak: a server without the consistency check tells every client that each
// survivor outside the even group (but itself) dropped, so the holders reveal those survivors'
// masking keys. The even group's front alone then rebuilds every mask on its members' inputs and
// their sum: the negative check above fails when survivors' keys leak.
TEST(GroupViewLeakTest, AFrontWhoseMembersAreToldOutsideSurvivorsDroppedGetsTheGroupSum) {
  const SessionConfig config = test_util::CompleteGraph("secagg-group-view-test", 12, 5, 20, 8);
  const std::set<uint32_t> group = Partition(config.num_clients, 2, false)[0];
  DriverOptions o;
  o.config = config;
  o.input_seed = 44;
  o.record = true;
  o.tamper_server = [&group](uint32_t to, ServerToClient& m) {
    if (!m.has_unmasking()) return;
    for (uint32_t v = 1; v <= 12; ++v) {
      if (!group.contains(v) && v != to) m.mutable_unmasking()->add_dropped_ids(v);
    }
  };
  const DriverResult r = test_util::RunSession(o);
  const GroupSumEstimate estimate =
      Attack(config, r, test_util::FrontView(r.transcript, group), group);
  EXPECT_EQ(estimate.members, std::vector<uint32_t>(group.begin(), group.end()));
  EXPECT_EQ(estimate.self_masks_left, 0);
  EXPECT_EQ(estimate.pairwise_masks_left, 0);
  EXPECT_EQ(estimate.sum, TrueSum(config, r, group));
}

}  // namespace
}  // namespace fedmf::secagg
