// A front alone (front.h), with in-process device streams and a recording link to the combiner:
// its streams go up as they bind and end, and it ends those the combiner refuses; a task reaches
// its members and the unreachable come back as drops; masked inputs are summed into one partial sum
// (never relayed), a rejected one is answered with an Abort, a summed member's drop waits for the
// partial; Seal; results reach every stream.
#include "server/front.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "crypto/secagg/partial_sum.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/server/fake_clock.h"
#include "tests/unit/server/published_models.h"
#include "tests/unit/server/test_stream.h"

namespace fedmf::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr int kBits = 8;
constexpr int kLength = 2;  // a packed input is 2 bytes
constexpr int64_t kRound = 4;
constexpr int32_t kPhase = 0;

using testing::TestStream;

// The combiner's first message on a link.
v1::CombinerMessage WelcomeOf(int64_t num_users) {
  v1::CombinerMessage welcome;
  welcome.mutable_welcome()->set_num_users(num_users);
  return welcome;
}

class FrontTest : public ::testing::Test {
 protected:
  FrontTest() : front_(options_, clock_, [this](v1::FrontMessage m) { up_.push_back(m); }) {
    front_.Receive(WelcomeOf(options_.num_users));
  }

  // Registers `ids` (signing key "k<first id>") and opens their stream.
  TestStream Open(std::vector<uint32_t> ids) {
    return testing::OpenStream(
        front_, testing::RegistrationOf(ids, "token",
                                        std::string(31, 'k') + static_cast<char>('0' + ids[0])));
  }

  // The combiner opens aggregation (kRound, kPhase) of SecAgg over `members` on this front.
  void Task(std::vector<uint32_t> members) {
    v1::CombinerMessage m;
    v1::RoundTask& task = *m.mutable_open()->mutable_task();
    task.set_round(kRound);
    task.mutable_plan()->set_phase(kPhase);
    task.mutable_secagg()->set_bits(kBits);
    task.mutable_secagg()->set_length(kLength);
    for (uint32_t id : members) m.mutable_open()->add_members(id);
    front_.Receive(std::move(m));
  }
  // The combiner asks each of `members` for its masked input, relaying the shares of `senders`.
  void AskForInputs(std::vector<uint32_t> members, std::vector<uint32_t> senders) {
    v1::CombinerMessage m;
    for (uint32_t id : members) {
      v1::Route::Envelope& e = *m.mutable_route()->add_envelopes();
      e.set_participant_id(id);
      v1::ServerToParticipant& secagg = *e.mutable_message()->mutable_secagg();
      secagg.set_round(kRound);
      secagg.set_phase(kPhase);
      secagg.set_participant_id(id);
      v1::secagg::MaskedInputRequest& request = *secagg.mutable_message()->mutable_masked_input();
      for (uint32_t sender : senders) request.add_shares()->set_peer_id(sender);
    }
    front_.Receive(std::move(m));
  }
  void Seal() {
    v1::CombinerMessage m;
    m.mutable_seal()->set_round(kRound);
    m.mutable_seal()->set_phase(kPhase);
    front_.Receive(std::move(m));
  }

  static v1::ClientMessage Input(uint32_t id, std::string packed) {
    v1::ClientMessage m;
    v1::ParticipantToServer& secagg = *m.mutable_secagg();
    secagg.set_participant_id(id);
    secagg.set_round(kRound);
    secagg.set_phase(kPhase);
    secagg.mutable_message()->mutable_masked_input()->set_packed(std::move(packed));
    return m;
  }
  static v1::ClientMessage AbortFrom(uint32_t id) {
    v1::ClientMessage m = Input(id, "");
    m.mutable_secagg()->mutable_message()->mutable_abort()->set_reason("bye");
    return m;
  }

  // What went up the link, from message `from` on, by kind.
  std::vector<v1::FrontMessage::MessageCase> Kinds(size_t from = 0) const {
    std::vector<v1::FrontMessage::MessageCase> kinds;
    for (size_t i = from; i < up_.size(); ++i) kinds.push_back(up_[i].message_case());
    return kinds;
  }

  testing::FakeClock clock_;
  const CoordinatorOptions options_ = [] {
    CoordinatorOptions o;
    o.enrollment_token = "token";
    o.num_users = 10;
    return o;
  }();
  std::vector<v1::FrontMessage> up_;
  Front front_;
};

TEST_F(FrontTest, TellsTheCombinerItsStreamsAsTheyBindAndEnd) {
  TestStream a = Open({1, 2});
  ASSERT_THAT(up_, SizeIs(1));
  ASSERT_THAT(up_[0].streams().bound(), SizeIs(1));
  const v1::StreamsChanged::Bound& bound = up_[0].streams().bound(0);
  EXPECT_EQ(bound.stream(), a.connection->id());
  EXPECT_THAT(bound.participant_ids(), ElementsAre(1, 2));
  EXPECT_EQ(bound.signing_key(), std::string(31, 'k') + "1");
  EXPECT_THAT(up_[0].streams().closed(), IsEmpty());
  TestStream b = Open({3});
  ASSERT_THAT(up_, SizeIs(2));
  ASSERT_THAT(up_[1].streams().bound(), SizeIs(1));
  EXPECT_THAT(up_[1].streams().bound(0).participant_ids(), ElementsAre(3));
  front_.OnStreamClosed(a.connection);
  ASSERT_THAT(up_, SizeIs(3));
  EXPECT_THAT(up_[2].streams().bound(), IsEmpty());
  EXPECT_THAT(up_[2].streams().closed(), ElementsAre(a.connection->id()));
}

// The combiner refused the stream (or another front's took it over): the front ends it at once;
// its messages are refused from then on, and the combiner hears that it ended.
TEST_F(FrontTest, EndsTheStreamsTheCombinerTellsItTo) {
  TestStream a = Open({1}), b = Open({2});
  v1::CombinerMessage end;
  v1::EndStreams::End& e = *end.mutable_end_streams()->add_streams();
  e.set_stream(a.connection->id());
  e.set_code(static_cast<int>(absl::StatusCode::kAlreadyExists));
  e.set_message("participant 1 is already hosted by another live stream; register again");
  const size_t before = up_.size();
  ::testing::internal::CaptureStderr();
  front_.Receive(std::move(end));
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("event=stream_ended client=\"\" peer=test users=1 "
                        "status=\"ALREADY_EXISTS: participant 1 is already hosted"));
  ASSERT_THAT(Kinds(before), ElementsAre(v1::FrontMessage::kStreams));
  EXPECT_THAT(up_[before].streams().closed(), ElementsAre(a.connection->id()));
  EXPECT_EQ(front_.OnClientMessage(a.connection, AbortFrom(1)).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(front_.OnClientMessage(b.connection, AbortFrom(2)).ok());
}

TEST_F(FrontTest, ATaskReachesItsMembersAndTheUnreachableGoBackAsDrops) {
  TestStream a = Open({1, 2});
  const size_t before = up_.size();
  EXPECT_FALSE(front_.InAggregation());
  Task({1, 2, 5});
  EXPECT_TRUE(front_.InAggregation());
  ASSERT_THAT(*a.inbox, SizeIs(1));
  EXPECT_THAT(a.inbox->at(0).task().participant_ids(), ElementsAre(1, 2));
  ASSERT_THAT(Kinds(before), ElementsAre(v1::FrontMessage::kRelayed));
  EXPECT_EQ(up_[before].relayed().items(0).dropped(), 5);
}

// Only the aggregation's members' drops matter to it; the rest is StreamsChanged's.
TEST_F(FrontTest, AMembersDropIsRelayedAndAnotherUsersIsNot) {
  TestStream a = Open({1}), b = Open({2});
  Task({1});
  const size_t before = up_.size();
  front_.OnStreamClosed(b.connection);
  ASSERT_THAT(Kinds(before), ElementsAre(v1::FrontMessage::kStreams));
  front_.OnStreamClosed(a.connection);
  ASSERT_THAT(Kinds(before), ElementsAre(v1::FrontMessage::kStreams, v1::FrontMessage::kRelayed,
                                         v1::FrontMessage::kStreams));
  EXPECT_EQ(up_[before + 1].relayed().items(0).dropped(), 1);
}

// The combiner receives one partial sum, the secagg::MaskedInputSummer sum of the inputs, once
// every member asked has answered, and never a masked input.
TEST_F(FrontTest, SumsItsMembersMaskedInputsIntoOnePartialSum) {
  TestStream a = Open({1, 2}), b = Open({3});
  Task({1, 2, 3});
  AskForInputs({1, 2, 3}, {1, 2, 3});
  EXPECT_THAT(a.inbox->back().secagg().message().masked_input().shares(), SizeIs(3));
  const size_t before = up_.size();
  ASSERT_TRUE(front_.OnClientMessage(a.connection, Input(2, "\x05\x07")).ok());
  ASSERT_TRUE(front_.OnClientMessage(b.connection, Input(3, "\x10\x20")).ok());
  EXPECT_THAT(Kinds(before), IsEmpty());  // member 1 still owes its input
  ASSERT_TRUE(front_.OnClientMessage(a.connection, Input(1, "\xff\x01")).ok());
  ASSERT_THAT(Kinds(before), ElementsAre(v1::FrontMessage::kPartial));

  absl::StatusOr<secagg::MaskedInputSummer> reference =
      secagg::MaskedInputSummer::Create(kBits, kLength);
  ASSERT_TRUE(reference.ok());
  const std::vector<uint32_t> senders = {1, 2, 3};
  for (const auto& [id, packed] : std::vector<std::pair<uint32_t, std::string>>{
           {1, "\xff\x01"}, {2, "\x05\x07"}, {3, "\x10\x20"}}) {
    ASSERT_TRUE(
        reference->Add(id, Input(id, packed).secagg().message().masked_input(), senders).ok());
  }
  const v1::PartialSum& partial = up_[before].partial();
  EXPECT_EQ(partial.round(), kRound);
  EXPECT_EQ(partial.phase(), kPhase);
  ASSERT_THAT(partial.members(), SizeIs(3));
  EXPECT_EQ(partial.members(0).id(), 1);
  EXPECT_EQ(partial.members(2).id(), 3);
  EXPECT_EQ(partial.packed(), reference->Partial()->packed);
  // A repeat after the partial is late: dropped at the front.
  ASSERT_TRUE(front_.OnClientMessage(a.connection, Input(1, "\xff\x01")).ok());
  EXPECT_THAT(Kinds(before), SizeIs(1));
}

// As the session answers a bad message: the device gets an Abort with the reason, the combiner
// the rejection, and the input is not in the sum.
TEST_F(FrontTest, ARejectedMaskedInputIsAnsweredWithAnAbortAndReportedNotSummed) {
  TestStream a = Open({1, 2});
  Task({1, 2});
  AskForInputs({1, 2}, {1, 2});
  const size_t before = up_.size(), sent = a.inbox->size();
  ASSERT_TRUE(front_.OnClientMessage(a.connection, Input(1, "\x01")).ok());  // 1 byte short
  ASSERT_THAT(*a.inbox, SizeIs(sent + 1));
  const v1::ServerToParticipant& abort = a.inbox->back().secagg();
  EXPECT_EQ(abort.participant_id(), 1);
  EXPECT_THAT(abort.message().abort().reason(), HasSubstr("client 1: "));
  ASSERT_THAT(Kinds(before), ElementsAre(v1::FrontMessage::kRelayed));
  EXPECT_EQ(up_[before].relayed().items(0).rejected().participant_id(), 1);
  EXPECT_EQ(up_[before].relayed().items(0).rejected().reason(), abort.message().abort().reason());
  ASSERT_TRUE(front_.OnClientMessage(a.connection, Input(2, "\x05\x07")).ok());
  ASSERT_THAT(Kinds(before), ElementsAre(v1::FrontMessage::kRelayed, v1::FrontMessage::kPartial));
  ASSERT_THAT(up_[before + 1].partial().members(), SizeIs(1));
  EXPECT_EQ(up_[before + 1].partial().members(0).id(), 2);
}

// The session keeps an input that arrived even if its sender leaves later: the drop must reach
// the combiner after the partial that holds the input, as it would reach the single coordinator.
// Seal ends the stage early; a Seal for an aggregation the front has nothing of gets an empty
// partial, so that the combiner stops waiting.
TEST_F(FrontTest, ASummedMembersDropFollowsThePartialAndSealSendsItEarly) {
  TestStream a = Open({1}), b = Open({2});
  Task({1, 2});
  AskForInputs({1, 2}, {1, 2});
  const size_t before = up_.size();
  ASSERT_TRUE(front_.OnClientMessage(a.connection, Input(1, "\x05\x07")).ok());
  front_.OnStreamClosed(a.connection);
  EXPECT_THAT(Kinds(before), ElementsAre(v1::FrontMessage::kStreams));  // the drop is held
  Seal();
  ASSERT_THAT(Kinds(before), ElementsAre(v1::FrontMessage::kStreams, v1::FrontMessage::kPartial,
                                         v1::FrontMessage::kRelayed));
  EXPECT_THAT(up_[before + 1].partial().members(), SizeIs(1));
  EXPECT_EQ(up_[before + 2].relayed().items(0).dropped(), 1);
  Seal();  // the partial went: nothing more
  EXPECT_THAT(Kinds(before), SizeIs(3));

  v1::CombinerMessage other;
  other.mutable_seal()->set_round(kRound + 1);
  front_.Receive(std::move(other));
  ASSERT_THAT(Kinds(before), SizeIs(4));
  EXPECT_EQ(up_[before + 3].partial().round(), kRound + 1);
  EXPECT_THAT(up_[before + 3].partial().members(), IsEmpty());
}

// Messages of other stages and other aggregations go up as they came, for the session to judge.
TEST_F(FrontTest, OtherMessagesAreRelayedInTheOrderTheyCame) {
  TestStream a = Open({1, 2});
  Task({1, 2});
  const size_t before = up_.size();
  ASSERT_TRUE(front_.OnClientMessage(a.connection, AbortFrom(2)).ok());
  ASSERT_TRUE(front_.OnClientMessage(a.connection, Input(1, "\x05\x07")).ok());  // not asked
  ASSERT_THAT(Kinds(before), ElementsAre(v1::FrontMessage::kRelayed, v1::FrontMessage::kRelayed));
  EXPECT_EQ(up_[before].relayed().items(0).secagg().participant_id(), 2);
  EXPECT_TRUE(up_[before].relayed().items(0).secagg().message().has_abort());
  EXPECT_TRUE(up_[before + 1].relayed().items(0).secagg().message().has_masked_input());
}

TEST_F(FrontTest, AResultReachesEveryStreamAndEndsTheAggregation) {
  TestStream a = Open({1}), b = Open({2});
  Task({1});
  v1::CombinerMessage result;
  result.mutable_result()->set_round(kRound);
  result.mutable_result()->set_training_done(true);
  front_.Receive(std::move(result));
  EXPECT_FALSE(front_.InAggregation());
  EXPECT_TRUE(a.inbox->back().result().training_done());
  ASSERT_THAT(*b.inbox, SizeIs(1));
  EXPECT_TRUE(b.inbox->back().result().training_done());
  // A device that registers now hears that training is over.
  v1::RegisterResponse response;
  ASSERT_TRUE(front_.Register(testing::RegistrationOf({3}), response, "").ok());
  EXPECT_TRUE(response.training_done());
  EXPECT_EQ(response.current_round(), kRound);
}

// Check-in on a front (test (v), the front's side): the combiner's Release sends the round's
// users that accept check-in away (CheckInLater) and the combiner hears that their streams ended,
// so that its next cohort is drawn from others; a stream without a user in the round stays.
TEST(FrontCheckInTest, ReleaseSendsTheRoundsUsersAwayAndReportsTheirStreamsEnded) {
  testing::FakeClock clock;
  CoordinatorOptions options;
  options.enrollment_token = "token";
  options.num_users = 10;
  std::vector<v1::FrontMessage> up;
  Front front(options, clock, [&up](v1::FrontMessage m) { up.push_back(std::move(m)); });
  // Check-in is the combiner's: its Welcome carries the period and window.
  v1::CombinerMessage welcome = WelcomeOf(options.num_users);
  welcome.mutable_welcome()->set_check_in_period_s(60);
  welcome.mutable_welcome()->set_check_in_window_s(3600);
  front.Receive(std::move(welcome));
  v1::RegisterRequest checks_in = testing::RegistrationOf({1});
  checks_in.set_accepts_check_in(true);
  TestStream member = testing::OpenStream(front, checks_in);
  checks_in.set_participant_ids(0, 2);
  TestStream other = testing::OpenStream(front, checks_in);
  v1::CombinerMessage open;
  open.mutable_open()->mutable_task()->set_round(kRound);
  open.mutable_open()->add_members(1);
  front.Receive(std::move(open));
  const size_t before = up.size();
  v1::CombinerMessage release;
  release.mutable_release();
  front.Receive(std::move(release));
  EXPECT_FALSE(front.InAggregation());
  EXPECT_TRUE(member.inbox->back().has_check_in_later());
  EXPECT_THAT(*other.inbox, IsEmpty());  // no task, no CheckInLater
  // The streams it sent away, then its word that the round is released.
  ASSERT_THAT(up, SizeIs(before + 2));
  EXPECT_THAT(up[before].streams().closed(), ElementsAre(member.connection->id()));
  EXPECT_TRUE(up[before + 1].has_released());
}

// Without its combiner the front's aggregation is over: a member's input goes nowhere.
TEST_F(FrontTest, ALostCombinerEndsTheAggregation) {
  TestStream a = Open({1});
  Task({1});
  AskForInputs({1}, {1});
  front_.CombinerLost();
  EXPECT_FALSE(front_.InAggregation());
  const size_t before = up_.size();
  ASSERT_TRUE(front_.OnClientMessage(a.connection, Input(1, "\x05\x07")).ok());
  ASSERT_THAT(Kinds(before), ElementsAre(v1::FrontMessage::kRelayed));  // not summed
}

}  // namespace
}  // namespace fedmf::server

namespace fedmf::server {
namespace {

// A front no combiner has welcomed yet.
class FrontAttachTest : public ::testing::Test {
 protected:
  testing::FakeClock clock_;
  const CoordinatorOptions options_ = [] {
    CoordinatorOptions o;
    o.enrollment_token = "token";
    o.num_users = 10;
    return o;
  }();
  std::vector<v1::FrontMessage> up_;
  Front front_{options_, clock_, [this](v1::FrontMessage m) { up_.push_back(std::move(m)); }};
};

// Every second the front process reports its devices' figures up the link, only while attached.
TEST_F(FrontAttachTest, ReportsItsDevicesWhileAttached) {
  front_.ReportStats();
  EXPECT_THAT(up_, IsEmpty());
  front_.Receive(WelcomeOf(10));
  TestStream stream = testing::OpenStream(front_, testing::RegistrationOf({1, 2}));
  front_.ReportStats();
  ASSERT_TRUE(up_.back().has_stats());
  EXPECT_EQ(up_.back().stats().streams(), 1);
  EXPECT_EQ(up_.back().stats().users(), 2);
}

// A front serves devices only with a combiner: before its first Welcome and after its link is
// lost, registrations are refused with UNAVAILABLE (try again or another front); a new link's
// Welcome sets the participant range and the front serves again.
TEST_F(FrontAttachTest, RegistersOnlyBetweenAWelcomeAndTheLinksLoss) {
  v1::RegisterResponse response;
  EXPECT_FALSE(front_.attached());
  EXPECT_TRUE(absl::IsUnavailable(front_.Register(testing::RegistrationOf({1}), response, "")));
  front_.Receive(WelcomeOf(20));
  EXPECT_TRUE(front_.attached());
  EXPECT_TRUE(front_.Register(testing::RegistrationOf({15}), response, "").ok());  // 20 users now
  EXPECT_TRUE(
      absl::IsInvalidArgument(front_.Register(testing::RegistrationOf({21}), response, "")));
  front_.CombinerLost();
  EXPECT_FALSE(front_.attached());
  EXPECT_TRUE(absl::IsUnavailable(front_.Register(testing::RegistrationOf({2}), response, "")));
  front_.Receive(WelcomeOf(20));
  const size_t before = up_.size();
  TestStream stream = testing::OpenStream(front_, testing::RegistrationOf({3}));
  ASSERT_THAT(up_, SizeIs(before + 1));
  EXPECT_THAT(up_[before].streams().bound(0).participant_ids(), ElementsAre(3));
  // A service's next run on the same link: a new range, and the streams are not reported again.
  front_.Receive(WelcomeOf(30));
  EXPECT_THAT(up_, SizeIs(before + 1));
  EXPECT_TRUE(front_.Register(testing::RegistrationOf({25}), response, "").ok());
}

// The fronts' model cache: the front keeps the models its Welcome carries and those the combiner
// publishes later (a corrupted one is refused), names the newest in each RegisterResponse, with
// the Welcome's word that training is over, and serves them to a registered device's
// Models.Download.
TEST(FrontModelsTest, KeepsTheCombinersModelsAndServesThem) {
  testing::FakeClock clock;
  CoordinatorOptions options;
  options.enrollment_token = "token";
  options.num_users = 10;
  options.models = ModelStore::Open({}).value();
  Front front(options, clock, [](v1::FrontMessage) {});
  std::unique_ptr<ModelStore> combiners = ModelStore::Open({}).value();
  const auto publish = [&](int64_t round) { return testing::PublishRound(*combiners, round); };
  v1::CombinerMessage welcome = WelcomeOf(10);
  *welcome.mutable_welcome()->add_models() = publish(1);
  welcome.mutable_welcome()->set_training_done(true);
  front.Receive(welcome);
  v1::RegisterResponse response;
  ASSERT_TRUE(front.Register(testing::RegistrationOf({4}), response, "").ok());
  EXPECT_EQ(response.latest_model().version(), 1);
  EXPECT_TRUE(response.training_done());

  v1::CombinerMessage later;
  *later.mutable_model() = publish(2);
  v1::CombinerMessage corrupted = later;
  corrupted.mutable_model()->mutable_version()->set_version(3);
  corrupted.mutable_model()->set_model("not it");
  front.Receive(later);
  front.Receive(corrupted);
  EXPECT_EQ(options.models->Versions(), (std::vector<int64_t>{1, 2}));
  ASSERT_TRUE(front.Register(testing::RegistrationOf({5}), response, "").ok());
  EXPECT_EQ(response.latest_model().version(), 2);
  absl::StatusOr<std::shared_ptr<const ModelStore::Published>> download =
      front.ModelForDownload(response.session_token(), "", 2);
  ASSERT_TRUE(download.ok()) << download.status();
  EXPECT_EQ((*download)->model, combiners->Latest()->model);
  EXPECT_TRUE(absl::IsNotFound(front.ModelForDownload(response.session_token(), "", 3).status()));
  EXPECT_TRUE(
      absl::IsUnauthenticated(front.ModelForDownload(std::string(16, 'x'), "", 1).status()));
}

}  // namespace
}  // namespace fedmf::server
