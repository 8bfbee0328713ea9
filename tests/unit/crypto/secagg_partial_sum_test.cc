// MaskedInputSummer and ServerSession::AcceptMaskedInputSum: a cohort's masked inputs summed by
// fronts (random partitions into 1..8 groups) give the same server messages at every stage and
// the same sum, bit for bit, as the same inputs delivered one by one, on the complete graph with
// the consistency check and on a SecAgg+ graph, with drops at every stage, rejected inputs and
// members that drop after their input was summed; a partial sum that names a client not awaiting
// its masked input, or fails any other check, is refused whole and adds nothing; the summer
// refuses exactly the inputs the session drops their senders for, with the same reason.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crypto/bit_unpack.h"
#include "crypto/ed25519.h"
#include "crypto/secagg/client_session.h"
#include "crypto/secagg/partial_sum.h"
#include "crypto/secagg/server_session.h"
#include "crypto/secagg/vector_codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/secagg_driver.h"

namespace fedmf::secagg {
namespace {

using fedmf::v1::secagg::ClientToServer;
using fedmf::v1::secagg::MaskedInput;
using fedmf::v1::secagg::ServerToClient;
using test_util::SessionHarness;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// The clients whose shares a MaskedInputRequest relays (ascending).
std::vector<uint32_t> RelayedSenders(const ServerToClient& request) {
  std::vector<uint32_t> out;
  for (const auto& entry : request.masked_input().shares()) out.push_back(entry.peer_id());
  return out;
}

std::vector<std::string> Serialized(const std::vector<ServerMessage>& messages) {
  std::vector<std::string> out;
  for (const ServerMessage& m : messages) {
    out.push_back(absl::StrCat(m.client_id, ":", m.message.SerializeAsString()));
  }
  return out;
}

// What a client does in the twin run; the roles are dealt at random to distinct clients.
enum class Role {
  kHonest,
  kDropAdvertise,    // sends nothing
  kDropShareKeys,    // advertises, never shares keys
  kDropMaskedInput,  // never sends its masked input
  kRejected,         // sends a masked input both servers must refuse
  kDropAfterInput,   // its input arrives (or is summed), then it is lost in the same stage
  kDropConsistency,  // never signs the survivor list
  kDropUnmasking,    // never answers the unmasking request
  kBadDealer,        // two of its share commitments do not match: those holders report it
};

// Two ServerSessions over one set of clients: `single_` receives every masked input alone, as the
// single coordinator does; `fronts_` receives them as partial sums, one per group, each group's
// members summed by its own MaskedInputSummer (a front). Every other message goes to both, and
// the clients answer the messages of `single_`, which must equal those of `fronts_`.
class TwinSessionsTest : public ::testing::TestWithParam<std::tuple<bool, int>> {
 protected:
  // Deals the roles and the groups from `seed` and runs both sessions to their end.
  void Run(const SessionConfig& config, int groups, uint64_t seed) {
    config_ = config;
    std::mt19937_64 rng(seed);
    std::vector<uint32_t> ids(static_cast<size_t>(config.num_clients));
    std::iota(ids.begin(), ids.end(), 1u);
    auto directory = std::make_shared<MapSigningKeyDirectory>();
    const uint64_t mask = crypto::internal::LowBitsMask(config.bits);
    for (uint32_t id : ids) {
      ClientIdentity identity{id, std::nullopt};
      if (config.signatures) {
        crypto::Ed25519PrivateKey key = crypto::Ed25519PrivateKey::Generate().value();
        directory->Add(id, key.public_key());
        identity.signing_key = std::move(key);
      }
      clients_[id] = ClientSession::Create(config, std::move(identity), directory).value();
      std::vector<uint64_t> input(config.length);
      for (uint64_t& v : input) v = rng() & mask;
      ASSERT_TRUE(clients_[id]->SetInput(input).ok());
      inputs_[id] = std::move(input);
    }
    single_ = ServerSession::Create(config, ids, directory).value();
    fronts_ = ServerSession::Create(config, ids, directory).value();

    std::vector<uint32_t> dealt = ids;
    std::shuffle(dealt.begin(), dealt.end(), rng);
    std::vector<Role> special = {
        Role::kDropAdvertise,  Role::kDropShareKeys, Role::kDropMaskedInput, Role::kDropMaskedInput,
        Role::kRejected,       Role::kRejected,      Role::kRejected,        Role::kDropAfterInput,
        Role::kDropAfterInput, Role::kDropUnmasking, Role::kBadDealer};
    if (config.consistency_check) special.push_back(Role::kDropConsistency);
    for (size_t i = 0; i < special.size(); ++i) roles_[dealt[i]] = special[i];
    // Every group gets a member; the others fall at random.
    std::shuffle(dealt.begin(), dealt.end(), rng);
    for (size_t i = 0; i < dealt.size(); ++i) {
      group_[dealt[i]] = i < static_cast<size_t>(groups)
                             ? static_cast<int>(i)
                             : static_cast<int>(rng() % static_cast<uint64_t>(groups));
    }
    group_order_.resize(static_cast<size_t>(groups));
    std::iota(group_order_.begin(), group_order_.end(), 0);
    std::shuffle(group_order_.begin(), group_order_.end(), rng);

    for (uint32_t id : ids) {
      if (RoleOf(id) == Role::kDropAdvertise) {
        DropInBoth(id);
      } else {
        ToBoth(id, clients_[id]->Start().value());
      }
    }
    while (true) {
      absl::StatusOr<std::vector<ServerMessage>> single = single_->CloseStage();
      absl::StatusOr<std::vector<ServerMessage>> fronts = fronts_->CloseStage();
      ASSERT_TRUE(single.ok()) << single.status();
      ASSERT_TRUE(fronts.ok()) << fronts.status();
      ASSERT_EQ(single_->stage(), fronts_->stage());
      ASSERT_EQ(Serialized(*single), Serialized(*fronts)) << ServerStageName(single_->stage());
      const ServerStage stage = single_->stage();
      if (stage == ServerStage::kCompleted || stage == ServerStage::kAborted) break;
      if (stage == ServerStage::kMaskedInput) {
        CollectMaskedInputs(*single);
        continue;
      }
      for (const ServerMessage& m : *single) {
        if (DropsAt(m.client_id, stage)) {
          DropInBoth(m.client_id);
          continue;
        }
        absl::StatusOr<std::optional<ClientToServer>> reply =
            clients_[m.client_id]->Handle(m.message);
        ASSERT_TRUE(reply.ok()) << reply.status();
        ASSERT_TRUE(reply->has_value());
        if (RoleOf(m.client_id) == Role::kBadDealer && (*reply)->has_share_keys()) {
          SpoilCommitments(*(*reply)->mutable_share_keys());
        }
        ToBoth(m.client_id, **reply);
      }
    }
  }

  Role RoleOf(uint32_t id) const {
    auto it = roles_.find(id);
    return it == roles_.end() ? Role::kHonest : it->second;
  }
  bool DropsAt(uint32_t id, ServerStage stage) const {
    switch (RoleOf(id)) {
      case Role::kDropShareKeys:
        return stage == ServerStage::kShareKeys;
      case Role::kDropConsistency:
        return stage == ServerStage::kConsistencyCheck;
      case Role::kDropUnmasking:
        return stage == ServerStage::kUnmasking;
      default:
        return false;
    }
  }
  void ToBoth(uint32_t id, const ClientToServer& message) {
    absl::StatusOr<std::vector<ServerMessage>> single = single_->HandleMessage(id, message);
    absl::StatusOr<std::vector<ServerMessage>> fronts = fronts_->HandleMessage(id, message);
    ASSERT_TRUE(single.ok()) << single.status();
    ASSERT_TRUE(fronts.ok()) << fronts.status();
    EXPECT_TRUE(single->empty()) << single_->DropReason(id);
    EXPECT_TRUE(fronts->empty()) << fronts_->DropReason(id);
  }
  void DropInBoth(uint32_t id) {
    ASSERT_TRUE(single_->MarkDropped(id).ok());
    ASSERT_TRUE(fronts_->MarkDropped(id).ok());
  }
  // The bad dealer's commitments to the shares of its first two honest neighbours: those two
  // report its shares unusable with their masked inputs, and their input counts.
  void SpoilCommitments(fedmf::v1::secagg::ShareKeysResponse& response) {
    int spoilt = 0;
    for (auto& entry : *response.mutable_shares()) {
      if (spoilt < 2 && RoleOf(entry.peer_id()) == Role::kHonest) {
        (*entry.mutable_self_mask_share_commitment())[0] ^= 1;
        ++spoilt;
      }
    }
    ASSERT_EQ(spoilt, 2);
  }
  // A masked input no server may add, one kind per rejected client.
  void Spoil(uint32_t id, const std::vector<uint32_t>& relayed, MaskedInput& input) {
    switch (rejected_++ % 3) {
      case 0:
        input.mutable_packed()->pop_back();
        break;
      case 1:
        input.add_unusable_shares_from(id);
        break;
      default:
        ASSERT_GE(relayed.size(), 2u);
        input.clear_unusable_shares_from();
        input.add_unusable_shares_from(relayed[1]);
        input.add_unusable_shares_from(relayed[0]);
    }
  }

  // The MaskedInput stage: every input goes alone to `single_`, and into its group's summer for
  // `fronts_`, which gets each group's partial sum (groups in random order) once every member has
  // answered or dropped, and only then the drops of members whose input the front had summed.
  void CollectMaskedInputs(const std::vector<ServerMessage>& requests) {
    std::map<int, MaskedInputSummer> summers;
    std::map<int, std::vector<uint32_t>> held_drops;
    for (const ServerMessage& m : requests) {
      const uint32_t id = m.client_id;
      if (RoleOf(id) == Role::kDropMaskedInput) {
        DropInBoth(id);
        continue;
      }
      absl::StatusOr<std::optional<ClientToServer>> reply = clients_[id]->Handle(m.message);
      ASSERT_TRUE(reply.ok()) << reply.status();
      ASSERT_TRUE(reply->has_value() && (*reply)->has_masked_input());
      MaskedInput& input = *(*reply)->mutable_masked_input();
      const std::vector<uint32_t> relayed = RelayedSenders(m.message);
      if (RoleOf(id) == Role::kRejected) Spoil(id, relayed, input);

      absl::StatusOr<std::vector<ServerMessage>> alone = single_->HandleMessage(id, **reply);
      ASSERT_TRUE(alone.ok()) << alone.status();
      auto summer = summers.find(group_[id]);
      if (summer == summers.end()) {
        summer = summers
                     .emplace(group_[id],
                              MaskedInputSummer::Create(config_.bits, config_.length).value())
                     .first;
      }
      const absl::Status summed = summer->second.Add(id, input, relayed);
      EXPECT_EQ(summed.ok(), RoleOf(id) != Role::kRejected) << id << ": " << summed;
      EXPECT_EQ(summed.ok(), alone->empty()) << id << ": " << summed;
      if (!summed.ok()) {
        // The front answers the member with an Abort and tells the combiner it rejected it.
        EXPECT_EQ(single_->DropReason(id), absl::StrCat("client ", id, ": ", summed.message()));
        ASSERT_TRUE(fronts_->MarkDropped(id).ok());
        continue;
      }
      if (RoleOf(id) == Role::kDropAfterInput) {
        ASSERT_TRUE(single_->MarkDropped(id).ok());
        held_drops[group_[id]].push_back(id);
      }
    }
    for (int g : group_order_) {
      auto summer = summers.find(g);
      if (summer == summers.end()) continue;  // its members all dropped before this stage
      absl::StatusOr<PartialSum> partial = summer->second.Partial();
      if (!partial.ok()) {  // every member's input was rejected: no partial
        EXPECT_EQ(partial.status().code(), absl::StatusCode::kFailedPrecondition);
        continue;
      }
      for (const PartialSum::Member& member : partial->members) {
        reports_in_partials_ += member.unusable_shares_from.empty() ? 0 : 1;
      }
      const ServerSession::PartialSumAnswer answer = fronts_->AcceptMaskedInputSum(*partial);
      EXPECT_EQ(answer.refused, "");
      EXPECT_THAT(answer.aborts, IsEmpty());
      for (uint32_t id : held_drops[g]) ASSERT_TRUE(fronts_->MarkDropped(id).ok());
    }
    EXPECT_TRUE(single_->ReadyToClose());
    EXPECT_TRUE(fronts_->ReadyToClose());
    EXPECT_EQ(single_->IncludedClients(), fronts_->IncludedClients());
  }

  SessionConfig config_;
  std::map<uint32_t, std::unique_ptr<ClientSession>> clients_;
  std::map<uint32_t, std::vector<uint64_t>> inputs_;
  std::map<uint32_t, Role> roles_;
  std::map<uint32_t, int> group_;
  std::vector<int> group_order_;
  int rejected_ = 0;             // rejected inputs spoilt so far
  int reports_in_partials_ = 0;  // members of partial sums with a non-empty unusable list
  std::unique_ptr<ServerSession> single_, fronts_;
};

// (SecAgg+ graph, groups)
TEST_P(TwinSessionsTest, PartialSumsGiveTheSameMessagesAndSum) {
  const auto [harary, groups] = GetParam();
  SessionConfig config;
  if (harary) {
    // Every neighbourhood of 17 keeps t = 5 usable holders whatever the graph: 9 clients of the
    // graph are lost in all, and the bad dealer's 2 reporters.
    config = test_util::CompleteGraph("partial-sum-test", 40, 5, 40, 9);
    config.graph = GraphKind::kHarary;
    config.degree = 16;
  } else {
    // 10 clients lost in all leave 9 to unmask, 7 of them usable holders of the bad dealer.
    config = test_util::CompleteGraph("partial-sum-test", 20, 6, 20, 17);
    config.signatures = true;
    config.consistency_check = true;
  }
  const uint64_t seed = 1000 * static_cast<uint64_t>(groups) + (harary ? 1 : 0);
  ASSERT_NO_FATAL_FAILURE(Run(config, groups, seed));

  ASSERT_EQ(single_->stage(), ServerStage::kCompleted) << single_->status();
  ASSERT_EQ(fronts_->stage(), ServerStage::kCompleted) << fronts_->status();
  EXPECT_EQ(single_->graph()->complete(), !harary);
  const std::vector<uint64_t> sum = single_->result().value();
  EXPECT_EQ(fronts_->result().value(), sum);
  // And it is the sum of the inputs of the clients whose input arrived, whose roles say so.
  std::vector<uint32_t> included;
  std::vector<uint64_t> expected(config.length, 0);
  for (const auto& [id, input] : inputs_) {
    const Role role = RoleOf(id);
    if (role == Role::kDropAdvertise || role == Role::kDropShareKeys ||
        role == Role::kDropMaskedInput || role == Role::kRejected) {
      continue;
    }
    included.push_back(id);
    for (size_t i = 0; i < input.size(); ++i) {
      expected[i] = (expected[i] + input[i]) & crypto::internal::LowBitsMask(config.bits);
    }
  }
  EXPECT_EQ(single_->IncludedClients(), included);
  EXPECT_EQ(fronts_->IncludedClients(), included);
  EXPECT_EQ(sum, expected);
  // The bad dealer's reports travelled in the partial sums: the same (tolerated) finding.
  EXPECT_EQ(reports_in_partials_, 2);
  ASSERT_EQ(single_->misbehaviour().size(), 1u);
  ASSERT_EQ(fronts_->misbehaviour().size(), 1u);
  EXPECT_EQ(fronts_->misbehaviour()[0].client_id, single_->misbehaviour()[0].client_id);
  EXPECT_EQ(fronts_->misbehaviour()[0].evidence, single_->misbehaviour()[0].evidence);
  EXPECT_FALSE(fronts_->misbehaviour()[0].culprit);
}

INSTANTIATE_TEST_SUITE_P(GraphsAndGroups, TwinSessionsTest,
                         ::testing::Combine(::testing::Bool(), ::testing::Range(1, 9)),
                         [](const ::testing::TestParamInfo<std::tuple<bool, int>>& info) {
                           return absl::StrCat(std::get<0>(info.param) ? "Harary" : "Complete",
                                               std::get<1>(info.param), "Groups");
                         });

SessionConfig FiveClients() { return test_util::CompleteGraph("partial-sum-test", 5, 3, 12, 6); }

// A 5-client session (t = 3; client i's input is the constant i) in its MaskedInput stage, with
// every client's masked input computed and not yet delivered.
class RefusedPartialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    harness_ = std::make_unique<SessionHarness>(FiveClients());
    ASSERT_TRUE(harness_->status().ok()) << harness_->status();
    requests_ = harness_->AdvanceTo(ServerStage::kMaskedInput);
    ASSERT_TRUE(harness_->status().ok()) << harness_->status();
    for (const auto& [id, request] : requests_) {
      absl::StatusOr<std::optional<ClientToServer>> reply = harness_->client(id).Handle(request);
      ASSERT_TRUE(reply.ok() && reply->has_value());
      inputs_[id] = (*reply)->masked_input();
    }
  }
  ServerSession& server() { return harness_->server(); }
  // The partial sum of the genuine masked inputs of `ids`.
  PartialSum PartialOf(const std::vector<uint32_t>& ids) {
    MaskedInputSummer summer = MaskedInputSummer::Create(12, 6).value();
    for (uint32_t id : ids) {
      EXPECT_TRUE(summer.Add(id, inputs_.at(id), RelayedSenders(requests_.at(id))).ok());
    }
    return summer.Partial().value();
  }
  // Delivers the masked inputs of `ids` one by one.
  void Send(const std::vector<uint32_t>& ids) {
    for (uint32_t id : ids) {
      ClientToServer m;
      *m.mutable_masked_input() = inputs_.at(id);
      EXPECT_THAT(server().HandleMessage(id, m).value(), IsEmpty()) << server().DropReason(id);
    }
  }
  std::vector<uint32_t> AbortedIds(const ServerSession::PartialSumAnswer& answer) {
    std::vector<uint32_t> ids;
    for (const ServerMessage& m : answer.aborts) {
      EXPECT_EQ(m.message.abort().reason(), ServerSession::kPartialSumRefused);
      ids.push_back(m.client_id);
    }
    return ids;
  }
  // Runs the session to its end (every client still in answers) and expects the sum of the
  // inputs of `included`, no more and no less.
  void ExpectSumOf(const std::vector<uint32_t>& included) {
    harness_->AdvanceTo(ServerStage::kCompleted);
    ASSERT_EQ(server().stage(), ServerStage::kCompleted) << server().status();
    EXPECT_EQ(server().IncludedClients(), included);
    const uint64_t total = std::accumulate(included.begin(), included.end(), uint64_t{0});
    EXPECT_EQ(server().result().value(), std::vector<uint64_t>(6, total));
  }

  std::unique_ptr<SessionHarness> harness_;
  std::map<uint32_t, ServerToClient> requests_;
  std::map<uint32_t, MaskedInput> inputs_;
};

TEST_F(RefusedPartialTest, AcceptedOnceThenRefusedAsAlreadySent) {
  const PartialSum partial = PartialOf({1, 2});
  const ServerSession::PartialSumAnswer first = server().AcceptMaskedInputSum(partial);
  EXPECT_EQ(first.refused, "");
  EXPECT_THAT(first.aborts, IsEmpty());
  const ServerSession::PartialSumAnswer again = server().AcceptMaskedInputSum(partial);
  EXPECT_THAT(again.refused,
              HasSubstr("partial sum of 2 client(s) refused: client 1 already sent its masked "
                        "input"));
  EXPECT_THAT(again.aborts, IsEmpty());  // nobody it names was still awaiting
  EXPECT_EQ(server().DropReason(1), "");
  Send({3, 4, 5});
  ExpectSumOf({1, 2, 3, 4, 5});
}

TEST_F(RefusedPartialTest, AMemberThatAlreadySentRefusesTheWholePartial) {
  Send({1});
  const ServerSession::PartialSumAnswer answer = server().AcceptMaskedInputSum(PartialOf({1, 2}));
  EXPECT_THAT(answer.refused, HasSubstr("client 1 already sent its masked input"));
  EXPECT_THAT(AbortedIds(answer), ElementsAre(2));  // 2 gave its input to it: out, in U2 \ U3
  EXPECT_THAT(server().DropReason(2), HasSubstr("client 1 already sent"));
  EXPECT_EQ(server().DropReason(1), "");
  Send({3, 4, 5});
  ExpectSumOf({1, 3, 4, 5});
}

TEST_F(RefusedPartialTest, AnUnknownMemberRefusesTheWholePartial) {
  PartialSum partial = PartialOf({3});
  partial.members.push_back({42, {}});
  const ServerSession::PartialSumAnswer answer = server().AcceptMaskedInputSum(partial);
  EXPECT_THAT(answer.refused, HasSubstr("client 42 is not in the cohort"));
  EXPECT_THAT(AbortedIds(answer), ElementsAre(3));
  Send({1, 2, 4, 5});
  ExpectSumOf({1, 2, 4, 5});
}

TEST_F(RefusedPartialTest, ADroppedMemberRefusesTheWholePartial) {
  ASSERT_TRUE(server().MarkDropped(2).ok());
  const ServerSession::PartialSumAnswer answer = server().AcceptMaskedInputSum(PartialOf({2, 3}));
  EXPECT_THAT(answer.refused, HasSubstr("client 2 was dropped (dropped in stage MaskedInput)"));
  EXPECT_THAT(AbortedIds(answer), ElementsAre(3));
  Send({1, 4, 5});
  ExpectSumOf({1, 4, 5});
}

TEST_F(RefusedPartialTest, MembersOutOfOrderRefuseIt) {
  PartialSum swapped = PartialOf({1, 2});
  std::swap(swapped.members[0], swapped.members[1]);
  const ServerSession::PartialSumAnswer answer = server().AcceptMaskedInputSum(swapped);
  EXPECT_THAT(answer.refused, HasSubstr("partial sum members not strictly ascending at 1"));
  EXPECT_THAT(AbortedIds(answer), ElementsAre(2, 1));
  Send({3, 4, 5});
  ExpectSumOf({3, 4, 5});
}

TEST_F(RefusedPartialTest, AMemberListedTwiceRefusesIt) {
  PartialSum twice = PartialOf({3});
  twice.members.push_back(twice.members[0]);
  const ServerSession::PartialSumAnswer answer = server().AcceptMaskedInputSum(twice);
  EXPECT_THAT(answer.refused, HasSubstr("partial sum members not strictly ascending at 1"));
  EXPECT_THAT(AbortedIds(answer), ElementsAre(3));  // one Abort per member
  Send({1, 2, 4, 5});
  ExpectSumOf({1, 2, 4, 5});
}

TEST_F(RefusedPartialTest, AMemberWithAnInvalidUnusableListRefusesIt) {
  PartialSum partial = PartialOf({1, 2});
  partial.members[1].unusable_shares_from = {2};
  const ServerSession::PartialSumAnswer answer = server().AcceptMaskedInputSum(partial);
  EXPECT_THAT(answer.refused,
              HasSubstr("client 2: unusable_shares_from names client 2, which sent it no shares"));
  EXPECT_THAT(AbortedIds(answer), ElementsAre(1, 2));
  Send({3, 4, 5});
  ExpectSumOf({3, 4, 5});
}

TEST_F(RefusedPartialTest, AMalformedSumRefusesIt) {
  PartialSum partial = PartialOf({1, 2});
  partial.packed.push_back('\0');
  const ServerSession::PartialSumAnswer answer = server().AcceptMaskedInputSum(partial);
  EXPECT_THAT(answer.refused,
              HasSubstr("masked input sum: packed vector is 10 bytes, need ceil(6 * 12 / 8) = 9"));
  EXPECT_THAT(AbortedIds(answer), ElementsAre(1, 2));
  Send({3, 4, 5});
  ExpectSumOf({3, 4, 5});
}

TEST_F(RefusedPartialTest, APartialWithoutMembersIsRefused) {
  PartialSum empty;
  empty.packed = std::string(9, '\0');
  const ServerSession::PartialSumAnswer answer = server().AcceptMaskedInputSum(empty);
  EXPECT_THAT(answer.refused, HasSubstr("a partial sum without members"));
  EXPECT_THAT(answer.aborts, IsEmpty());
  Send({1, 2, 3, 4, 5});
  ExpectSumOf({1, 2, 3, 4, 5});
}

TEST_F(RefusedPartialTest, APartialAfterTheStageClosedChangesNothing) {
  const PartialSum late = PartialOf({4, 5});
  Send({1, 2, 3, 4, 5});
  std::map<uint32_t, ServerToClient> unmasking = harness_->AdvanceTo(ServerStage::kUnmasking);
  ServerSession::PartialSumAnswer answer = server().AcceptMaskedInputSum(late);
  EXPECT_THAT(answer.refused, HasSubstr("a partial sum in stage Unmasking"));
  EXPECT_THAT(answer.aborts, IsEmpty());
  harness_->Deliver(unmasking);
  ExpectSumOf({1, 2, 3, 4, 5});
  answer = server().AcceptMaskedInputSum(late);
  EXPECT_THAT(answer.refused, HasSubstr("a partial sum in stage Completed"));
  EXPECT_EQ(server().result().value(), std::vector<uint64_t>(6, 15));
}

TEST(PartialSumStageTest, APartialBeforeTheStageChangesNothing) {
  SessionHarness harness(FiveClients());
  std::map<uint32_t, ServerToClient> share_keys = harness.AdvanceTo(ServerStage::kShareKeys);
  PartialSum early;
  early.members = {{1, {}}, {2, {}}};
  early.packed = std::string(9, '\0');
  const ServerSession::PartialSumAnswer answer = harness.server().AcceptMaskedInputSum(early);
  EXPECT_THAT(answer.refused, HasSubstr("a partial sum in stage ShareKeys"));
  EXPECT_THAT(answer.aborts, IsEmpty());
  EXPECT_EQ(harness.server().DropReason(1), "");
  harness.Deliver(share_keys);
  harness.AdvanceTo(ServerStage::kCompleted);
  EXPECT_EQ(harness.server().result().value(), std::vector<uint64_t>(6, 15));
}

// The check is one: for each kind of malformed masked input, the summer refuses it for the reason
// the session drops its sender for (the reasons ServerSession gave before the check was shared),
// and both take a well-formed one.
TEST(SharedMaskedInputCheckTest, SummerRefusesWhatTheSessionDropsForTheSameReason) {
  SessionConfig config = test_util::CompleteGraph("partial-sum-test", 9, 3, 12, 5);  // 4 pad bits
  SessionHarness harness(config);
  std::map<uint32_t, ServerToClient> share_keys = harness.AdvanceTo(ServerStage::kShareKeys);
  share_keys.erase(9);  // advertised, never shared: a neighbour whose shares nobody got
  harness.Deliver(share_keys);
  ASSERT_TRUE(harness.server().MarkDropped(9).ok());
  std::map<uint32_t, ServerToClient> requests = harness.AdvanceTo(ServerStage::kMaskedInput);
  ASSERT_EQ(requests.size(), 8u);

  struct Case {
    uint32_t client;
    void (*spoil)(MaskedInput&);
    const char* reason;  // empty: accepted
  };
  const Case cases[] = {
      {1, [](MaskedInput&) {}, ""},
      {2, [](MaskedInput& m) { m.add_unusable_shares_from(3); }, ""},  // a real report
      {3, [](MaskedInput& m) { m.mutable_packed()->push_back('\0'); },
       "masked input: packed vector is 9 bytes, need ceil(5 * 12 / 8) = 8"},
      {4, [](MaskedInput& m) { m.mutable_packed()->back() |= static_cast<char>(0x80); },
       "masked input: packed vector: padding bits of the last byte are not zero"},
      {5, [](MaskedInput& m) { m.add_unusable_shares_from(9); },
       "unusable_shares_from names client 9, which sent it no shares"},
      {6, [](MaskedInput& m) { m.add_unusable_shares_from(6); },
       "unusable_shares_from names client 6, which sent it no shares"},
      {7, [](MaskedInput& m) { m.add_unusable_shares_from(42); },
       "unusable_shares_from names client 42, which sent it no shares"},
      {8,
       [](MaskedInput& m) {
         m.add_unusable_shares_from(3);
         m.add_unusable_shares_from(3);
       },
       "unusable_shares_from not strictly ascending at 1"},
  };
  MaskedInputSummer summer = MaskedInputSummer::Create(config.bits, config.length).value();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.client);
    absl::StatusOr<std::optional<ClientToServer>> reply =
        harness.client(c.client).Handle(requests.at(c.client));
    ASSERT_TRUE(reply.ok() && reply->has_value());
    ClientToServer message = **reply;
    c.spoil(*message.mutable_masked_input());
    const absl::Status summed =
        summer.Add(c.client, message.masked_input(), RelayedSenders(requests.at(c.client)));
    const std::vector<ServerMessage> answer =
        harness.server().HandleMessage(c.client, message).value();
    if (*c.reason == '\0') {
      EXPECT_TRUE(summed.ok()) << summed;
      EXPECT_THAT(answer, IsEmpty()) << harness.server().DropReason(c.client);
      continue;
    }
    EXPECT_EQ(summed.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(summed.message()), HasSubstr(c.reason));
    EXPECT_EQ(harness.server().DropReason(c.client),
              absl::StrCat("client ", c.client, ": ", summed.message()));
  }
  // The two accepted inputs are the partial; the refused ones left no trace in it.
  const PartialSum partial = summer.Partial().value();
  ASSERT_EQ(partial.members.size(), 2u);
  EXPECT_EQ(partial.members[0].id, 1u);
  EXPECT_EQ(partial.members[1].id, 2u);
  EXPECT_THAT(partial.members[1].unusable_shares_from, ElementsAre(3));
}

TEST(MaskedInputSummerTest, SumsInAnyOrderAndRefusesARepeat) {
  MaskedInputSummer summer = MaskedInputSummer::Create(4, 3).value();
  EXPECT_EQ(summer.Partial().status().code(), absl::StatusCode::kFailedPrecondition);
  auto input = [](std::vector<uint64_t> values, std::vector<uint32_t> unusable) {
    MaskedInput m;
    m.set_packed(PackVector<uint64_t>(values, 4).value());
    m.mutable_unusable_shares_from()->Add(unusable.begin(), unusable.end());
    return m;
  };
  const std::vector<uint32_t> relayed = {1, 5, 6};
  ASSERT_TRUE(summer.Add(7, input({15, 1, 0}, {}), relayed).ok());
  ASSERT_TRUE(summer.Add(2, input({3, 2, 9}, {1, 5}), relayed).ok());
  EXPECT_EQ(summer.Add(7, input({1, 1, 1}, {}), relayed).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(summer.Add(4, input({1, 1, 1}, {3}), relayed).code(),
            absl::StatusCode::kInvalidArgument);  // 3 was not relayed to it
  const PartialSum partial = summer.Partial().value();
  ASSERT_EQ(partial.members.size(), 2u);
  EXPECT_EQ(partial.members[0].id, 2u);
  EXPECT_THAT(partial.members[0].unusable_shares_from, ElementsAre(1, 5));
  EXPECT_EQ(partial.members[1].id, 7u);
  EXPECT_THAT(partial.members[1].unusable_shares_from, IsEmpty());
  EXPECT_THAT(UnpackVector(AsBytes(partial.packed), 3, 4).value(), ElementsAre(2, 3, 9));
}

}  // namespace
}  // namespace fedmf::secagg
