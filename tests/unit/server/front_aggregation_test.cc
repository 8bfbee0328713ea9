#include "server/front_aggregation.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::server {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using Verdict = FrontAggregation::Verdict;

constexpr int kBits = 8;
constexpr size_t kLength = 2;  // a packed input is 2 bytes

class FrontAggregationTest : public ::testing::Test {
 protected:
  FrontAggregationTest() : aggregation_(Make()) {}

  static FrontAggregation Make() {
    v1::SecAggParams params;
    params.set_bits(kBits);
    params.set_length(kLength);
    absl::StatusOr<FrontAggregation> made =
        FrontAggregation::Create(wire::AggregationTag{.round = 3, .phase = 1}, params);
    EXPECT_TRUE(made.ok()) << made.status();
    return *std::move(made);
  }
  // Member `id` was asked for its input, with the shares of `senders` relayed to it.
  void Ask(uint32_t id, std::vector<uint32_t> senders) {
    v1::secagg::MaskedInputRequest request;
    for (uint32_t sender : senders) request.add_shares()->set_peer_id(sender);
    aggregation_.Requested(id, request);
  }
  static v1::ParticipantToServer Input(uint32_t id, std::string packed,
                                       std::vector<uint32_t> unusable = {}) {
    v1::ParticipantToServer message;
    message.set_participant_id(id);
    message.set_round(3);
    message.set_phase(1);
    v1::secagg::MaskedInput& input = *message.mutable_message()->mutable_masked_input();
    input.set_packed(std::move(packed));
    for (uint32_t sender : unusable) input.add_unusable_shares_from(sender);
    return message;
  }
  static v1::ParticipantToServer AbortFrom(uint32_t id) {
    v1::ParticipantToServer message;
    message.set_participant_id(id);
    message.mutable_message()->mutable_abort()->set_reason("bye");
    return message;
  }

  FrontAggregation aggregation_;
};

TEST_F(FrontAggregationTest, SumsTheInputsOfTheMembersAskedAndIsDueWhenAllAnswered) {
  Ask(1, {2, 3});
  Ask(2, {1, 3});
  EXPECT_EQ(aggregation_.Accept(Input(2, "\x05\x07", {3})).verdict, Verdict::kSummed);
  EXPECT_FALSE(aggregation_.Due());
  EXPECT_EQ(aggregation_.Accept(Input(1, "\xff\x01")).verdict, Verdict::kSummed);
  EXPECT_TRUE(aggregation_.Due());

  absl::StatusOr<secagg::MaskedInputSummer> reference =
      secagg::MaskedInputSummer::Create(kBits, kLength);
  ASSERT_TRUE(reference.ok());
  const std::vector<uint32_t> to_1 = {2, 3}, to_2 = {1, 3};
  ASSERT_TRUE(reference->Add(1, Input(1, "\xff\x01").message().masked_input(), to_1).ok());
  ASSERT_TRUE(reference->Add(2, Input(2, "\x05\x07", {3}).message().masked_input(), to_2).ok());

  const FrontAggregation::Sealed sealed = aggregation_.Seal();
  EXPECT_EQ(sealed.partial.round(), 3);
  EXPECT_EQ(sealed.partial.phase(), 1);
  ASSERT_THAT(sealed.partial.members(), SizeIs(2));
  EXPECT_EQ(sealed.partial.members(0).id(), 1);
  EXPECT_THAT(sealed.partial.members(0).unusable_shares_from(), IsEmpty());
  EXPECT_EQ(sealed.partial.members(1).id(), 2);
  EXPECT_THAT(sealed.partial.members(1).unusable_shares_from(), ElementsAre(3));
  EXPECT_EQ(sealed.partial.packed(), reference->Partial()->packed);
  EXPECT_THAT(sealed.held, IsEmpty());
  EXPECT_FALSE(aggregation_.Due());
}

// The session's own check: a sender whose shares were not relayed to it cannot be unusable.
TEST_F(FrontAggregationTest, ARejectedInputIsNotSummedAndCarriesTheReason) {
  Ask(1, {2, 3});
  const FrontAggregation::Outcome outcome = aggregation_.Accept(Input(1, "\x01\x01", {9}));
  EXPECT_EQ(outcome.verdict, Verdict::kRejected);
  EXPECT_THAT(outcome.reason, Not(IsEmpty()));
  EXPECT_TRUE(aggregation_.Due());
  EXPECT_THAT(aggregation_.Seal().partial.members(), IsEmpty());
}

TEST_F(FrontAggregationTest, LaterMessagesAndTheDropOfASummedMemberWaitForThePartial) {
  Ask(1, {2});
  Ask(2, {1});
  ASSERT_EQ(aggregation_.Accept(Input(1, "\x01\x02")).verdict, Verdict::kSummed);
  EXPECT_EQ(aggregation_.Accept(AbortFrom(1)).verdict, Verdict::kHeld);
  EXPECT_EQ(aggregation_.Drop(1), Verdict::kHeld);
  EXPECT_FALSE(aggregation_.Due());  // 2 still owes its input

  const FrontAggregation::Sealed sealed = aggregation_.Seal();
  EXPECT_THAT(sealed.partial.members(), SizeIs(1));
  ASSERT_THAT(sealed.held, SizeIs(2));
  EXPECT_TRUE(sealed.held[0].secagg().message().has_abort());
  EXPECT_EQ(sealed.held[1].dropped(), 1);
  // After the partial nothing waits.
  EXPECT_EQ(aggregation_.Accept(AbortFrom(1)).verdict, Verdict::kRelay);
  EXPECT_EQ(aggregation_.Drop(1), Verdict::kRelay);
}

TEST_F(FrontAggregationTest, TheDropOfAMemberThatOwesItsInputIsRelayedAndSettlesIt) {
  Ask(1, {2});
  Ask(2, {1});
  ASSERT_EQ(aggregation_.Accept(Input(1, "\x01\x02")).verdict, Verdict::kSummed);
  EXPECT_EQ(aggregation_.Drop(2), Verdict::kRelay);
  EXPECT_TRUE(aggregation_.Due());
}

TEST_F(FrontAggregationTest, AfterThePartialAMaskedInputIsLate) {
  Ask(1, {2});
  EXPECT_THAT(aggregation_.Seal().partial.members(), IsEmpty());
  EXPECT_TRUE(aggregation_.sealed());
  EXPECT_EQ(aggregation_.Accept(Input(1, "\x01\x02")).verdict, Verdict::kLate);
}

// What is not a masked input of a member asked for one is the session's to judge.
TEST_F(FrontAggregationTest, OtherMessagesAreRelayed) {
  v1::ParticipantToServer advertise;
  advertise.set_participant_id(5);
  advertise.mutable_message()->mutable_advertise_keys();
  EXPECT_EQ(aggregation_.Accept(advertise).verdict, Verdict::kRelay);
  EXPECT_EQ(aggregation_.Accept(Input(6, "\x01\x02")).verdict, Verdict::kRelay);
  EXPECT_EQ(aggregation_.Drop(6), Verdict::kRelay);
}

}  // namespace
}  // namespace fedmf::server
