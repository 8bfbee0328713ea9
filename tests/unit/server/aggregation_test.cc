// Aggregation alone, without a coordinator or a network: a secure sum against real SecAgg client
// sessions (tags, dropouts, the minimum-inputs rule, rejection answered by an Abort, masked inputs
// summed by a front) and a clear one (uploads, drops, too few uploads).
#include "server/aggregation.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "crypto/secagg/client_session.h"
#include "crypto/secagg/partial_sum.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::server {
namespace {

using ::testing::HasSubstr;

constexpr wire::AggregationTag kTag{.round = 4, .phase = 1};

secagg::SessionConfig Config() {
  secagg::SessionConfig c;
  c.context = "aggregation-test";
  c.num_clients = 4;
  c.threshold = 3;
  c.bits = 10;
  c.length = 3;
  return c;
}

// Four SecAgg clients with inputs {id, 2 id, 1000} talking to an Aggregation through envelopes.
class SecureAggregationTest : public ::testing::Test {
 protected:
  void Start(int64_t min_inputs) {
    aggregation_ = Aggregation::Secure(kTag, Config(), {1, 2, 3, 4}, nullptr, min_inputs).value();
    for (uint32_t id = 1; id <= 4; ++id) {
      clients_[id] =
          secagg::ClientSession::Create(Config(), secagg::ClientIdentity{id, std::nullopt}, nullptr)
              .value();
      ASSERT_TRUE(clients_[id]->SetInput({id, 2 * id, 1000}).ok());
      Deliver(id, clients_[id]->Start().value());
    }
  }
  void Deliver(uint32_t id, v1::secagg::ClientToServer message) {
    const Aggregation::Delivery d = aggregation_->DeliverSecAgg(
        id, wire::FromParticipant(kTag, id, std::move(message)).secagg());
    EXPECT_TRUE(d.rejected.empty()) << d.rejected;
  }
  // Closes the stage and lets every client except `silent` answer the next one.
  void Advance(uint32_t silent = 0) {
    absl::StatusOr<Aggregation::Envelopes> next = aggregation_->CloseStage();
    ASSERT_TRUE(next.ok()) << next.status();
    for (Aggregation::Envelope& e : *next) {
      ASSERT_EQ(wire::TagOf(e.message.secagg()), kTag);
      ASSERT_EQ(e.message.secagg().participant_id(), e.participant_id);
      if (e.participant_id == silent) continue;
      auto reply = clients_[e.participant_id]->Handle(e.message.secagg().message());
      ASSERT_TRUE(reply.ok()) << reply.status();
      if (reply->has_value()) Deliver(e.participant_id, std::move(**reply));
    }
  }

  std::unique_ptr<Aggregation> aggregation_;
  std::map<uint32_t, std::unique_ptr<secagg::ClientSession>> clients_;
};

TEST_F(SecureAggregationTest, SumsTheSurvivorsInputs) {
  Start(/*min_inputs=*/3);
  EXPECT_EQ(aggregation_->StageName(), "AdvertiseKeys");
  EXPECT_STREQ(aggregation_->StageKey(), "advertise_s");
  EXPECT_TRUE(aggregation_->ReadyToClose());
  Advance();              // -> ShareKeys
  Advance(/*silent=*/4);  // -> MaskedInput; 4's shares went out, it stops answering
  EXPECT_TRUE(aggregation_->Drop(4));
  EXPECT_FALSE(aggregation_->Drop(4));  // only once
  while (!aggregation_->Finished()) Advance();
  // 1 + 2 + 3 = 6, 12, 3000 mod 1024 = 952.
  EXPECT_EQ(aggregation_->sum().value(), (std::vector<uint64_t>{6, 12, 952}));
  EXPECT_EQ(aggregation_->contributors(), (std::vector<uint32_t>{1, 2, 3}));
}

TEST_F(SecureAggregationTest, FewerInputsThanMinimumGiveNoSum) {
  Start(/*min_inputs=*/4);
  Advance();
  Advance(/*silent=*/4);
  aggregation_->Drop(4);
  while (!aggregation_->Finished()) Advance();
  EXPECT_THAT(aggregation_->sum().status().message(), HasSubstr("fewer than n_min 4"));
}

TEST_F(SecureAggregationTest, MessagesOfAnotherAggregationChangeNothing) {
  Start(/*min_inputs=*/3);
  const wire::AggregationTag late{.round = 3, .phase = 1};
  const wire::AggregationTag other_phase{.round = 4, .phase = 0};
  const wire::AggregationTag evaluation{.round = 4, .phase = wire::kEvaluationPhase};
  for (const wire::AggregationTag& tag : {late, other_phase, evaluation}) {
    v1::secagg::ClientToServer garbage;
    garbage.mutable_masked_input()->set_packed("x");
    const Aggregation::Delivery d =
        aggregation_->DeliverSecAgg(1, wire::FromParticipant(tag, 1, garbage).secagg());
    EXPECT_TRUE(d.rejected.empty());
    EXPECT_TRUE(d.replies.empty());
  }
  Advance();
  EXPECT_EQ(aggregation_->StageName(), "ShareKeys");
}

TEST_F(SecureAggregationTest, RejectedMessageIsAnsweredByATaggedAbort) {
  Start(/*min_inputs=*/3);
  v1::secagg::ClientToServer wrong_stage;
  wrong_stage.mutable_masked_input()->set_packed("x");
  const Aggregation::Delivery d =
      aggregation_->DeliverSecAgg(2, wire::FromParticipant(kTag, 2, wrong_stage).secagg());
  EXPECT_THAT(d.rejected, HasSubstr("client 2"));
  ASSERT_EQ(d.replies.size(), 1u);
  EXPECT_EQ(d.replies[0].participant_id, 2u);
  EXPECT_EQ(wire::TagOf(d.replies[0].message.secagg()), kTag);
  EXPECT_TRUE(d.replies[0].message.secagg().message().has_abort());
  EXPECT_FALSE(aggregation_->Drop(2));  // already out
}

// Closes ShareKeys and sums the masked inputs of `front` as a front would; the others answer alone.
secagg::PartialSum SumAtFront(
    Aggregation& aggregation, std::map<uint32_t, std::unique_ptr<secagg::ClientSession>>& clients,
    const std::vector<uint32_t>& front,
    const std::function<void(uint32_t, v1::secagg::ClientToServer)>& alone) {
  absl::StatusOr<Aggregation::Envelopes> requests = aggregation.CloseStage();
  EXPECT_TRUE(requests.ok()) << requests.status();
  secagg::MaskedInputSummer summer = secagg::MaskedInputSummer::Create(10, 3).value();
  for (Aggregation::Envelope& e : *requests) {
    const v1::secagg::ServerToClient& request = e.message.secagg().message();
    auto reply = clients[e.participant_id]->Handle(request);
    EXPECT_TRUE(reply.ok() && reply->has_value() && (*reply)->has_masked_input());
    if (std::find(front.begin(), front.end(), e.participant_id) == front.end()) {
      alone(e.participant_id, std::move(**reply));
      continue;
    }
    std::vector<uint32_t> relayed;
    for (const auto& entry : request.masked_input().shares()) relayed.push_back(entry.peer_id());
    EXPECT_TRUE(summer.Add(e.participant_id, (*reply)->masked_input(), relayed).ok());
  }
  return summer.Partial().value();
}

// A front's partial sum stands for its members' masked inputs: the same sum. One of another
// aggregation changes nothing.
TEST_F(SecureAggregationTest, APartialSumStandsForItsMembersInputs) {
  Start(/*min_inputs=*/3);
  Advance();  // -> ShareKeys
  const secagg::PartialSum partial =
      SumAtFront(*aggregation_, clients_, {1, 2, 3},
                 [this](uint32_t id, v1::secagg::ClientToServer m) { Deliver(id, std::move(m)); });
  const Aggregation::Delivery late =
      aggregation_->DeliverPartialSum({.round = 3, .phase = 1}, partial);
  EXPECT_TRUE(late.rejected.empty());
  EXPECT_TRUE(late.replies.empty());
  EXPECT_FALSE(aggregation_->ReadyToClose());
  const Aggregation::Delivery d = aggregation_->DeliverPartialSum(kTag, partial);
  EXPECT_EQ(d.rejected, "");
  EXPECT_TRUE(d.replies.empty());
  EXPECT_TRUE(aggregation_->ReadyToClose());
  while (!aggregation_->Finished()) Advance();
  // 1 + 2 + 3 + 4 = 10, 20, 4000 mod 1024 = 928.
  EXPECT_EQ(aggregation_->sum().value(), (std::vector<uint64_t>{10, 20, 928}));
  EXPECT_EQ(aggregation_->contributors(), (std::vector<uint32_t>{1, 2, 3, 4}));
}

// A refused partial sum drops the members that gave it their input, each told by a tagged Abort.
TEST_F(SecureAggregationTest, ARefusedPartialSumDropsItsMembers) {
  Start(/*min_inputs=*/3);
  Advance();
  secagg::PartialSum partial =
      SumAtFront(*aggregation_, clients_, {1},
                 [this](uint32_t id, v1::secagg::ClientToServer m) { Deliver(id, std::move(m)); });
  partial.packed.push_back('\0');
  const Aggregation::Delivery d = aggregation_->DeliverPartialSum(kTag, partial);
  EXPECT_THAT(d.rejected, HasSubstr("masked input sum: packed vector is 5 bytes"));
  ASSERT_EQ(d.replies.size(), 1u);
  EXPECT_EQ(d.replies[0].participant_id, 1u);
  EXPECT_EQ(wire::TagOf(d.replies[0].message.secagg()), kTag);
  EXPECT_EQ(d.replies[0].message.secagg().message().abort().reason(),
            secagg::ServerSession::kPartialSumRefused);
  while (!aggregation_->Finished()) Advance();
  EXPECT_EQ(aggregation_->sum().value(), (std::vector<uint64_t>{9, 18, 952}));
  EXPECT_EQ(aggregation_->Lost(), (std::vector<uint32_t>{1}));
}

TEST_F(SecureAggregationTest, AbortEndsItForTheRemainingParticipants) {
  Start(/*min_inputs=*/3);
  Advance();
  const Aggregation::Envelopes aborts = aggregation_->Abort("shutting down");
  EXPECT_EQ(aborts.size(), 4u);
  EXPECT_TRUE(aggregation_->Finished());
  EXPECT_THAT(aggregation_->sum().status().message(), HasSubstr("shutting down"));
}

v1::RoundPlan ClearPlan() {
  v1::RoundPlan p;
  p.set_round(kTag.round);
  p.set_length(2);
  p.set_bits(4);
  p.set_client_bits(3);
  p.set_combination(v1::COMBINATION_CLEAR);
  return p;
}

v1::ClearUpload Upload(int64_t round, uint32_t id, std::vector<uint64_t> values) {
  v1::ClearUpload u;
  u.set_participant_id(id);
  u.set_round(round);
  u.set_phase(kTag.phase);
  u.mutable_values()->Add(values.begin(), values.end());
  return u;
}

TEST(ClearAggregationRoundTest, SumsUploadsUntilEveryoneAnsweredOrDropped) {
  std::unique_ptr<Aggregation> a = Aggregation::Clear(kTag, ClearPlan(), {1, 2, 3}, 2);
  EXPECT_EQ(a->secagg_config(), nullptr);
  EXPECT_EQ(a->DeliverClear(Upload(4, 1, {7, 1})), "");
  EXPECT_EQ(a->DeliverClear(Upload(3, 2, {7, 7})), "");  // late: ignored
  v1::ClearUpload other_phase = Upload(4, 2, {7, 7});
  other_phase.set_phase(0);
  EXPECT_EQ(a->DeliverClear(other_phase), "");  // another phase's: ignored
  EXPECT_FALSE(a->ReadyToClose());
  EXPECT_EQ(a->DeliverClear(Upload(4, 3, {7, 2})), "");
  EXPECT_FALSE(a->ReadyToClose());
  EXPECT_TRUE(a->Drop(2));
  EXPECT_TRUE(a->ReadyToClose());
  EXPECT_EQ(a->StageName(), "ClearUpload");
  EXPECT_FALSE(a->sum().ok());  // still open
  ASSERT_TRUE(a->CloseStage().ok());
  EXPECT_TRUE(a->Finished());
  EXPECT_EQ(a->sum().value(), (std::vector<uint64_t>{14, 3}));
  EXPECT_EQ(a->contributors(), (std::vector<uint32_t>{1, 3}));
}

// A malformed upload, or one the algorithm's check refuses, drops its participant at once (no
// one waits for it) and leaves the sum to the others.
TEST(ClearAggregationRoundTest, RefusedUploadsDropTheirParticipant) {
  const auto at_most_one_value = [](const algorithms::ContributionVector& v) {
    return v.values().size() == 1 ? absl::OkStatus()
                                  : absl::InvalidArgumentError("one value, please");
  };
  v1::RoundPlan plan = ClearPlan();
  std::unique_ptr<Aggregation> a = Aggregation::Clear(kTag, plan, {1, 2, 3}, 1, at_most_one_value);
  v1::ClearUpload sparse = Upload(4, 1, {5});
  sparse.set_sparse(true);
  sparse.add_indices(1);
  EXPECT_EQ(a->DeliverClear(sparse), "");
  EXPECT_THAT(a->DeliverClear(Upload(4, 2, {8, 0})), HasSubstr("2^3"));
  EXPECT_THAT(a->DeliverClear(Upload(4, 3, {1, 1})), HasSubstr("one value, please"));
  EXPECT_THAT(a->DeliverClear(Upload(4, 3, {1, 1})), HasSubstr("already uploaded or was dropped"));
  EXPECT_TRUE(a->ReadyToClose());
  EXPECT_FALSE(a->Drop(3));
  ASSERT_TRUE(a->CloseStage().ok());
  EXPECT_EQ(a->sum().value(), (std::vector<uint64_t>{0, 5}));
  EXPECT_EQ(a->contributors(), (std::vector<uint32_t>{1}));
  EXPECT_EQ(a->Lost(), (std::vector<uint32_t>{2, 3}));
}

TEST(ClearAggregationRoundTest, APartialSumIsRefused) {
  std::unique_ptr<Aggregation> a = Aggregation::Clear(kTag, ClearPlan(), {1, 2, 3}, 2);
  const Aggregation::Delivery d =
      a->DeliverPartialSum(kTag, secagg::PartialSum{.members = {{1, {}}}, .packed = "x"});
  EXPECT_THAT(d.rejected, HasSubstr("for a clear aggregation"));
  EXPECT_TRUE(d.replies.empty());
  EXPECT_TRUE(a->Drop(1));  // still in
}

TEST(ClearAggregationRoundTest, TooFewUploadsGiveNoSum) {
  std::unique_ptr<Aggregation> a = Aggregation::Clear(kTag, ClearPlan(), {1, 2, 3}, 2);
  EXPECT_EQ(a->DeliverClear(Upload(4, 1, {1, 1})), "");
  ASSERT_TRUE(a->CloseStage().ok());
  EXPECT_THAT(a->sum().status().message(), HasSubstr("1 uploads, fewer than 2"));
}

}  // namespace
}  // namespace fedmf::server
