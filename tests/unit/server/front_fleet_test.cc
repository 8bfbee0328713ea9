#include "server/front_fleet.h"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/server/fake_clock.h"
#include "tests/unit/server/published_models.h"

namespace fedmf::server {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// The aggregation half: every delivery, in order, as "kind:participant".
class RecordingEvents final : public DeviceEvents {
 public:
  bool Deliver(AggregationInbox::Delivery delivery) override {
    if (const auto* secagg = std::get_if<AggregationInbox::SecAggMessage>(&delivery)) {
      log.push_back("secagg:" + std::to_string(secagg->participant_id));
    } else if (const auto* upload = std::get_if<v1::ClearUpload>(&delivery)) {
      log.push_back("clear:" + std::to_string(upload->participant_id()));
    } else if (const auto* dropped = std::get_if<AggregationInbox::Dropped>(&delivery)) {
      log.push_back("dropped:" + std::to_string(dropped->participant_id));
    } else {
      partials.push_back(std::get<AggregationInbox::PartialSum>(std::move(delivery)));
      log.push_back("partial");
    }
    return false;
  }
  void StreamsChanged() override { ++changes; }
  bool InAggregation() const override { return false; }

  std::vector<std::string> log;
  std::vector<AggregationInbox::PartialSum> partials;
  int changes = 0;
};

class FrontFleetTest : public ::testing::Test {
 protected:
  static constexpr size_t kFronts = 3;
  static constexpr absl::Duration kSealTimeout = absl::Seconds(2);

  FrontFleetTest() : sent_(kFronts), fleet_(mu_, events_, clock_, Options()) {
    for (size_t f = 0; f < kFronts; ++f) {
      EXPECT_EQ(fleet_.Attach(LinkTo(f), "f" + std::to_string(f)), f);
    }
    for (std::vector<v1::CombinerMessage>& sent : sent_) sent.clear();  // the Welcomes
  }

  static CoordinatorOptions Options() {
    CoordinatorOptions options;
    options.num_users = 100;
    options.seal_timeout = kSealTimeout;
    return options;
  }

  FrontFleet::Link LinkTo(size_t front) {
    return [this, front](v1::CombinerMessage message) { sent_[front].push_back(message); };
  }
  // Front `front` bound a stream hosting `ids` (signing key "k<first id>"), registered with
  // `credential` from TLS identity `identity`; returns its id there.
  uint64_t Bind(size_t front, std::vector<uint32_t> ids, const std::string& credential = "",
                const std::string& identity = "") {
    v1::FrontMessage message;
    v1::StreamsChanged::Bound& bound = *message.mutable_streams()->add_bound();
    bound.set_stream(++last_stream_);
    bound.set_credential(credential);
    bound.set_identity(identity);
    bound.set_signing_key("k" + std::to_string(ids[0]));
    bound.mutable_participant_ids()->Add(ids.begin(), ids.end());
    fleet_.Receive(front, message);
    return last_stream_;
  }
  // Front `front`'s stream `stream` ended.
  void Close(size_t front, uint64_t stream) {
    v1::FrontMessage message;
    message.mutable_streams()->add_closed(stream);
    fleet_.Receive(front, message);
  }
  // The streams front `front` was told to end, as "stream:code".
  std::vector<std::string> Ended(size_t front) const {
    std::vector<std::string> ended;
    for (const v1::CombinerMessage& message : sent_[front]) {
      for (const v1::EndStreams::End& end : message.end_streams().streams()) {
        ended.push_back(std::to_string(end.stream()) + ":" +
                        absl::StatusCodeToString(static_cast<absl::StatusCode>(end.code())));
      }
    }
    return ended;
  }
  static v1::Relayed::Item Advertise(uint32_t id) {
    v1::Relayed::Item item;
    item.mutable_secagg()->set_participant_id(id);
    item.mutable_secagg()->mutable_message()->mutable_advertise_keys();
    return item;
  }
  static Aggregation::Envelope AbortFor(uint32_t id) {
    Aggregation::Envelope envelope{.participant_id = id, .message = {}};
    envelope.message.mutable_secagg()->set_participant_id(id);
    envelope.message.mutable_secagg()->mutable_message()->mutable_abort()->set_reason("r");
    return envelope;
  }

  // Routes the MaskedInputRequests of aggregation (round 4, phase 0) to `members`.
  void RequestMaskedInputs(const std::vector<uint32_t>& members) {
    Aggregation::Envelopes envelopes;
    for (uint32_t id : members) {
      Aggregation::Envelope envelope{.participant_id = id, .message = {}};
      v1::ServerToParticipant& secagg = *envelope.message.mutable_secagg();
      secagg.set_participant_id(id);
      secagg.set_round(4);
      secagg.mutable_message()->mutable_masked_input();
      envelopes.push_back(std::move(envelope));
    }
    std::lock_guard<std::mutex> lock(mu_);
    fleet_.Route(std::move(envelopes));
  }
  static v1::FrontMessage PartialOf(std::vector<uint32_t> members) {
    v1::FrontMessage message;
    message.mutable_partial()->set_round(4);
    for (uint32_t id : members) message.mutable_partial()->add_members()->set_id(id);
    return message;
  }
  static int Seals(const std::vector<v1::CombinerMessage>& sent) {
    return static_cast<int>(std::count_if(sent.begin(), sent.end(),
                                          [](const auto& message) { return message.has_seal(); }));
  }

  testing::FakeClock clock_;
  std::mutex mu_;
  RecordingEvents events_;
  std::vector<std::vector<v1::CombinerMessage>> sent_;  // by front
  uint64_t last_stream_ = 0;
  FrontFleet fleet_;
};

// A front that attaches is welcomed with the run's participant range and gets the next index;
// a lost front's index is not reused, and nothing more is sent to it.
TEST_F(FrontFleetTest, AttachWelcomesAFrontWithANewIndex) {
  std::vector<v1::CombinerMessage> late;
  fleet_.Lost(1);
  EXPECT_EQ(fleet_.Attach([&late](v1::CombinerMessage m) { late.push_back(std::move(m)); }, "late"),
            kFronts);
  ASSERT_THAT(late, SizeIs(1));
  EXPECT_EQ(late[0].welcome().num_users(), 100);
  fleet_.SetNumUsers(50);
  EXPECT_EQ(
      fleet_.Attach([&late](v1::CombinerMessage m) { late.push_back(std::move(m)); }, "later"),
      kFronts + 1);
  EXPECT_EQ(late.back().welcome().num_users(), 50);
  EXPECT_EQ(fleet_.CloseAll(absl::UnavailableError("bye")), 4);  // 0, 2 and the two new ones
  EXPECT_THAT(sent_[1], IsEmpty());
  // A new participant range (a service's next run) is every attached front's Welcome.
  ASSERT_THAT(sent_[0], SizeIs(2));
  EXPECT_EQ(sent_[0][0].welcome().num_users(), 50);
  EXPECT_TRUE(sent_[0][1].has_close_all());
}

// Admin.Status lists each attached front with its last report, its name and its link's bytes;
// a lost front is not listed.
TEST_F(FrontFleetTest, StatusListsEachAttachedFrontsLastReport) {
  v1::FrontMessage stats;
  stats.mutable_stats()->set_streams(3);
  stats.mutable_stats()->set_users(7);
  stats.mutable_stats()->set_device_bytes_in(1000);
  stats.mutable_stats()->set_index(99);  // a front cannot rename itself
  stats.mutable_stats()->set_name("other");
  fleet_.Receive(1, stats);
  fleet_.Lost(2);
  v1::StatusResponse status;
  fleet_.AddTo(status);
  ASSERT_THAT(status.fronts(), SizeIs(2));
  EXPECT_EQ(status.fronts(0).name(), "f0");
  EXPECT_EQ(status.fronts(0).streams(), 0);
  const v1::FrontStatus& reported = status.fronts(1);
  EXPECT_EQ(reported.index(), 1);
  EXPECT_EQ(reported.name(), "f1");
  EXPECT_EQ(reported.streams(), 3);
  EXPECT_EQ(reported.users(), 7);
  EXPECT_EQ(reported.device_bytes_in(), 1000);
  EXPECT_EQ(reported.link_bytes_in(), static_cast<int64_t>(stats.ByteSizeLong()));
  EXPECT_GT(reported.link_bytes_out(), 0);  // its Welcome
}

TEST_F(FrontFleetTest, LiveUsersAreTheUnionOfTheFronts) {
  Bind(0, {1, 4});
  Bind(1, {2});
  Bind(2, {3, 5});
  EXPECT_EQ(events_.changes, 3);
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_THAT(fleet_.LiveUsers(), ElementsAre(1, 2, 3, 4, 5));
  EXPECT_EQ(fleet_.LiveUserCount(), 5);
  EXPECT_TRUE(fleet_.IsLiveUser(4));
  EXPECT_FALSE(fleet_.IsLiveUser(6));
  EXPECT_EQ(fleet_.SigningKeyOf(3), "k3");
  EXPECT_EQ(fleet_.SigningKeyOf(6), "");
}

// Stream ids are the front's: another front's stream of the same id is another stream.
TEST_F(FrontFleetTest, AStreamEndsOnlyOnTheFrontThatReportsIt) {
  const uint64_t stream = Bind(0, {1, 2});
  Close(1, stream);
  {
    std::lock_guard<std::mutex> lock(mu_);
    EXPECT_THAT(fleet_.LiveUsers(), ElementsAre(1, 2));
  }
  Close(0, stream);
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_THAT(fleet_.LiveUsers(), IsEmpty());
}

// One live stream per user across the fronts, as in one process: a second stream for a live user
// is refused (ALREADY_EXISTS) and its front told to end it; what that front relays for the user
// is not the user's.
TEST_F(FrontFleetTest, RefusesAStreamForAUserLiveOnAnotherFrontAndIgnoresItsRelays) {
  Bind(0, {1});
  const uint64_t second = Bind(1, {1, 2});
  EXPECT_THAT(Ended(1), ElementsAre(std::to_string(second) + ":ALREADY_EXISTS"));
  {
    std::lock_guard<std::mutex> lock(mu_);
    EXPECT_THAT(fleet_.LiveUsers(), ElementsAre(1));
  }
  v1::FrontMessage message;
  *message.mutable_relayed()->add_items() = Advertise(1);
  message.mutable_relayed()->add_items()->set_dropped(1);
  fleet_.Receive(1, message);
  EXPECT_THAT(events_.log, IsEmpty());
  fleet_.Receive(0, message);
  EXPECT_THAT(events_.log, ElementsAre("secagg:1", "dropped:1"));
}

// The holder of a credential that reconnects through another front takes its users over: the old
// front is told to end the old stream, and the users drop out of the round in progress (they
// missed what it sent them there) but stay live on the new front.
TEST_F(FrontFleetTest, TheSameCredentialTakesItsUsersOverFromAnotherFront) {
  const uint64_t old = Bind(0, {1, 2}, "alice");
  Bind(1, {1, 2}, "alice");
  EXPECT_THAT(Ended(0), ElementsAre(std::to_string(old) + ":FAILED_PRECONDITION"));
  EXPECT_THAT(Ended(1), IsEmpty());
  EXPECT_THAT(events_.log, ElementsAre("dropped:1", "dropped:2"));
  Close(0, old);  // front 0 ended it: nothing more changes
  v1::FrontMessage message;
  *message.mutable_relayed()->add_items() = Advertise(1);
  fleet_.Receive(0, message);
  EXPECT_THAT(events_.log, ElementsAre("dropped:1", "dropped:2"));
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_THAT(fleet_.LiveUsers(), ElementsAre(1, 2));
}

// max_streams_per_client (1) counts a TLS identity's streams on every front.
TEST_F(FrontFleetTest, CapsAClientsLiveStreamsAcrossTheFronts) {
  Bind(0, {1}, "", "device-7");
  const uint64_t second = Bind(1, {2}, "", "device-7");
  EXPECT_THAT(Ended(1), ElementsAre(std::to_string(second) + ":ALREADY_EXISTS"));
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_THAT(fleet_.LiveUsers(), ElementsAre(1));
}

TEST_F(FrontFleetTest, OpenSendsEachFrontTheTaskAndItsMembers) {
  Bind(0, {1, 4});
  Bind(2, {3});
  v1::RoundTask task;
  task.set_round(7);
  task.add_participant_ids(1);
  std::vector<uint32_t> unreachable;
  {
    std::lock_guard<std::mutex> lock(mu_);
    unreachable = fleet_.Open(task, {1, 2, 3, 4});
  }
  EXPECT_THAT(unreachable, ElementsAre(2));
  ASSERT_THAT(sent_[0], SizeIs(1));
  EXPECT_THAT(sent_[0][0].open().members(), ElementsAre(1, 4));
  EXPECT_EQ(sent_[0][0].open().task().round(), 7);
  EXPECT_THAT(sent_[0][0].open().task().participant_ids(), IsEmpty());
  EXPECT_THAT(sent_[1], IsEmpty());
  ASSERT_THAT(sent_[2], SizeIs(1));
  EXPECT_THAT(sent_[2][0].open().members(), ElementsAre(3));
  EXPECT_GT(fleet_.CurrentTraffic().phase.down(wire::Stage::kTask), 0);
}

TEST_F(FrontFleetTest, RepliesGoToTheFrontTheirReceiverIsOnInOrder) {
  Bind(0, {1, 3});
  Bind(1, {2});
  std::vector<uint32_t> unreachable;
  {
    std::lock_guard<std::mutex> lock(mu_);
    unreachable = fleet_.Route({AbortFor(3), AbortFor(2), AbortFor(9), AbortFor(1)});
  }
  EXPECT_THAT(unreachable, ElementsAre(9));
  ASSERT_THAT(sent_[0], SizeIs(1));
  ASSERT_THAT(sent_[0][0].route().envelopes(), SizeIs(2));
  EXPECT_EQ(sent_[0][0].route().envelopes(0).participant_id(), 3);
  EXPECT_EQ(sent_[0][0].route().envelopes(1).participant_id(), 1);
  EXPECT_EQ(sent_[0][0].route().envelopes(1).message().secagg().participant_id(), 1);
  ASSERT_THAT(sent_[1], SizeIs(1));
  EXPECT_EQ(sent_[1][0].route().envelopes(0).participant_id(), 2);
  EXPECT_THAT(sent_[2], IsEmpty());
  EXPECT_GT(fleet_.CurrentTraffic().phase.down(wire::Stage::kAbort), 0);
}

TEST_F(FrontFleetTest, RelayedItemsReachTheAggregationInOrder) {
  Bind(0, {1, 2, 3, 4});
  v1::FrontMessage message;
  v1::Relayed& relayed = *message.mutable_relayed();
  *relayed.add_items() = Advertise(2);
  relayed.add_items()->set_dropped(1);
  relayed.add_items()->mutable_clear_upload()->set_participant_id(3);
  relayed.add_items()->mutable_rejected()->set_participant_id(4);
  fleet_.Receive(0, message);
  EXPECT_THAT(events_.log, ElementsAre("secagg:2", "dropped:1", "clear:3", "dropped:4"));
  EXPECT_GT(fleet_.CurrentTraffic().phase.up(wire::Stage::kAdvertiseKeys), 0);
}

// A drop of a user that is on no front any more still reaches the aggregation.
TEST_F(FrontFleetTest, RelaysTheDropOfAUserThatLeft) {
  Close(0, Bind(0, {1}));
  v1::FrontMessage message;
  message.mutable_relayed()->add_items()->set_dropped(1);
  fleet_.Receive(0, message);
  EXPECT_THAT(events_.log, ElementsAre("dropped:1"));
}

TEST_F(FrontFleetTest, DeliversAPartialSumWithItsTag) {
  v1::FrontMessage message;
  v1::PartialSum& partial = *message.mutable_partial();
  partial.set_round(5);
  partial.set_phase(1);
  partial.set_packed("sum");
  partial.add_members()->set_id(2);
  v1::PartialSum::Member& member = *partial.add_members();
  member.set_id(6);
  member.add_unusable_shares_from(3);
  fleet_.Receive(1, message);
  ASSERT_THAT(events_.partials, SizeIs(1));
  const AggregationInbox::PartialSum& delivered = events_.partials[0];
  EXPECT_EQ(delivered.tag, (wire::AggregationTag{.round = 5, .phase = 1}));
  EXPECT_EQ(delivered.sum.packed, "sum");
  ASSERT_THAT(delivered.sum.members, SizeIs(2));
  EXPECT_EQ(delivered.sum.members[0].id, 2);
  EXPECT_THAT(delivered.sum.members[0].unusable_shares_from, IsEmpty());
  EXPECT_EQ(delivered.sum.members[1].id, 6);
  EXPECT_THAT(delivered.sum.members[1].unusable_shares_from, ElementsAre(3));
  EXPECT_GT(fleet_.CurrentTraffic().phase.up(wire::Stage::kMaskedInput), 0);
}

TEST_F(FrontFleetTest, ResultsReleaseAndCloseGoToEveryFront) {
  v1::RoundResult result;
  result.set_round(3);
  fleet_.Broadcast(result);
  fleet_.ReleaseRound();
  EXPECT_EQ(fleet_.CloseAll(absl::UnavailableError("bye")), 3);
  for (const std::vector<v1::CombinerMessage>& front : sent_) {
    ASSERT_THAT(front, SizeIs(3));
    EXPECT_EQ(front[0].result().round(), 3);
    EXPECT_TRUE(front[1].has_release());
    EXPECT_EQ(front[2].close_all().code(), static_cast<int32_t>(absl::StatusCode::kUnavailable));
    EXPECT_EQ(front[2].close_all().message(), "bye");
  }
  EXPECT_GT(fleet_.CurrentTraffic().phase.down(wire::Stage::kResult), 0);
}

// Seal goes to the fronts that were sent MaskedInputRequests and have not answered; the wait ends
// at the seal timeout past the deadline when one never answers.
TEST_F(FrontFleetTest, SealAsksTheFrontsThatOweAPartialAndWaitsUpToTheTimeout) {
  Bind(0, {1});
  Bind(1, {2});
  Bind(2, {3});
  RequestMaskedInputs({1, 2});
  fleet_.Receive(0, PartialOf({1}));
  const absl::Time deadline = clock_.Now() + absl::Seconds(10);
  fleet_.SealStage(deadline);
  EXPECT_EQ(Seals(sent_[0]), 0);
  ASSERT_EQ(Seals(sent_[1]), 1);
  EXPECT_EQ(sent_[1].back().seal().round(), 4);
  EXPECT_EQ(Seals(sent_[2]), 0);
  EXPECT_EQ(clock_.Now(), deadline + kSealTimeout);
  EXPECT_THAT(events_.log, ElementsAre("partial"));
  // Nothing is owed any more: a second seal asks no one.
  fleet_.SealStage(clock_.Now());
  EXPECT_EQ(Seals(sent_[1]), 1);
}

// A front without a partial says so with an empty one, which settles it and reaches no one.
TEST_F(FrontFleetTest, AnEmptyPartialSettlesItsFrontAndIsNotDelivered) {
  Bind(0, {1});
  RequestMaskedInputs({1});
  fleet_.Receive(0, PartialOf({}));
  const absl::Time start = clock_.Now();
  fleet_.SealStage(start);
  EXPECT_EQ(Seals(sent_[0]), 0);
  EXPECT_EQ(clock_.Now(), start);
  EXPECT_THAT(events_.log, IsEmpty());
}

// A lost front's users are live no more and drop out of the aggregation, it owes no partial, and
// what it sends afterwards (a process that was only partitioned) is ignored.
TEST_F(FrontFleetTest, ALostFrontsUsersDropAndItOwesNothingAndIsIgnoredAfter) {
  Bind(0, {1, 4});
  Bind(1, {2});
  RequestMaskedInputs({1, 2});
  const int changes = events_.changes;
  ::testing::internal::CaptureStderr();
  fleet_.Lost(0);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              ::testing::HasSubstr("event=front_lost front=0 users=2"));
  EXPECT_THAT(events_.log, ElementsAre("dropped:1", "dropped:4"));
  EXPECT_EQ(events_.changes, changes + 1);
  {
    std::lock_guard<std::mutex> lock(mu_);
    EXPECT_THAT(fleet_.LiveUsers(), ElementsAre(2));
  }
  fleet_.Receive(1, PartialOf({2}));
  const absl::Time start = clock_.Now();
  fleet_.SealStage(start);  // front 0 owes nothing: no seal, no wait
  EXPECT_EQ(Seals(sent_[0]), 0);
  EXPECT_EQ(clock_.Now(), start);
  v1::FrontMessage late;
  *late.mutable_relayed()->add_items() = Advertise(1);
  fleet_.Receive(0, late);
  Bind(0, {7});
  EXPECT_THAT(events_.log, ElementsAre("dropped:1", "dropped:4", "partial"));
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_FALSE(fleet_.IsLiveUser(7));
}

// On a real clock the seal returns as soon as the last owing front answers.
// Check-in through fronts: the Welcome carries the combiner's period and window, and with
// check-in ReleaseRound returns only once every front has said Released (each front's streams that
// ended reach the Placement first, on its link) or was lost, so that the next cohort is not drawn
// from the users being sent away.
TEST(FrontFleetCheckInTest, WelcomeCarriesItAndReleaseWaitsForEveryFront) {
  std::mutex mu;
  RecordingEvents events;
  std::mutex sent_mu;
  std::condition_variable got;
  std::vector<std::vector<v1::CombinerMessage>> sent(2);
  CoordinatorOptions options;
  options.num_users = 10;
  options.seal_timeout = absl::Seconds(60);
  options.check_in_period = absl::Seconds(30);
  options.check_in_window = absl::Seconds(5);
  FrontFleet fleet(mu, events, SteadyClock::Get(), options);
  for (size_t f = 0; f < 2; ++f) {
    fleet.Attach(
        [&, f](v1::CombinerMessage message) {
          std::lock_guard<std::mutex> lock(sent_mu);
          sent[f].push_back(std::move(message));
          got.notify_all();
        },
        "f");
  }
  EXPECT_EQ(sent[0][0].welcome().check_in_period_s(), 30);
  EXPECT_EQ(sent[1][0].welcome().check_in_window_s(), 5);
  std::thread fronts([&] {
    std::unique_lock<std::mutex> lock(sent_mu);
    got.wait(lock, [&] { return sent[0].back().has_release() && sent[1].back().has_release(); });
    lock.unlock();
    v1::FrontMessage released;
    released.mutable_released();
    fleet.Receive(0, released);
    fleet.Lost(1);
  });
  const absl::Time start = absl::Now();
  fleet.ReleaseRound();
  fronts.join();
  EXPECT_LT(absl::Now() - start, absl::Seconds(30));
}

TEST(FrontFleetSealTest, ReturnsWhenTheLastFrontAnswers) {
  std::mutex mu;
  RecordingEvents events;
  std::mutex seals_mu;
  std::condition_variable sealed;
  bool seal_sent = false;
  CoordinatorOptions options;
  options.num_users = 10;
  options.seal_timeout = absl::Seconds(60);
  FrontFleet fleet(mu, events, SteadyClock::Get(), options);
  fleet.Attach(
      [&](v1::CombinerMessage message) {
        if (!message.has_seal()) return;
        std::lock_guard<std::mutex> lock(seals_mu);
        seal_sent = true;
        sealed.notify_all();
      },
      "f0");
  v1::FrontMessage bound;
  bound.mutable_streams()->add_bound()->add_participant_ids(1);
  fleet.Receive(0, bound);
  Aggregation::Envelope request{.participant_id = 1, .message = {}};
  request.message.mutable_secagg()->set_participant_id(1);
  request.message.mutable_secagg()->mutable_message()->mutable_masked_input();
  {
    std::lock_guard<std::mutex> lock(mu);
    fleet.Route({request});
  }
  std::thread front([&] {
    std::unique_lock<std::mutex> lock(seals_mu);
    sealed.wait(lock, [&] { return seal_sent; });
    lock.unlock();
    v1::FrontMessage partial;
    partial.mutable_partial()->add_members()->set_id(1);
    fleet.Receive(0, partial);
  });
  const absl::Time start = absl::Now();
  fleet.SealStage(start);
  front.join();
  EXPECT_LT(absl::Now() - start, absl::Seconds(30));
  EXPECT_THAT(events.log, ElementsAre("partial"));
}

// The fronts' model cache: a front that attaches is welcomed with every version the combiner's
// store keeps and whether training is over; each version published afterwards goes to every front
// not lost; a destroyed fleet is no longer the store's listener.
TEST(FrontFleetModelsTest, FrontsGetTheKeptModelsAtAttachAndEachNewOne) {
  testing::FakeClock clock;
  std::mutex mu;
  RecordingEvents events;
  CoordinatorOptions options;
  options.num_users = 10;
  options.models = ModelStore::Open({}).value();
  const auto publish = [&](int64_t round) { testing::PublishRound(*options.models, round); };
  publish(1);
  std::vector<std::vector<v1::CombinerMessage>> sent(3);
  {
    FrontFleet fleet(mu, events, clock, options);
    const auto attach = [&](size_t f) {
      fleet.Attach([&sent, f](v1::CombinerMessage m) { sent[f].push_back(std::move(m)); }, "f");
    };
    attach(0);
    attach(1);
    ASSERT_THAT(sent[0], SizeIs(1));
    ASSERT_THAT(sent[0][0].welcome().models(), SizeIs(1));
    EXPECT_EQ(sent[0][0].welcome().models(0).version().version(), 1);
    EXPECT_EQ(sent[0][0].welcome().models(0).model(), options.models->Find(1)->model);
    EXPECT_FALSE(sent[0][0].welcome().training_done());
    fleet.Lost(1);
    publish(2);
    ASSERT_THAT(sent[0], SizeIs(2));
    EXPECT_EQ(sent[0][1].model().version().SerializeAsString(),
              options.models->Find(2)->version.SerializeAsString());
    EXPECT_THAT(sent[1], SizeIs(1));
    // A front that attaches once training is over hears so in its Welcome.
    v1::RoundResult done;
    done.set_training_done(true);
    fleet.Broadcast(done);
    attach(2);
    ASSERT_THAT(sent[2], SizeIs(1));
    EXPECT_TRUE(sent[2][0].welcome().training_done());
    EXPECT_THAT(sent[2][0].welcome().models(), SizeIs(2));
    fleet.SetNumUsers(20);  // a service's next run
    EXPECT_FALSE(sent[2].back().welcome().training_done());
  }
  const size_t before = sent[0].size();
  publish(3);
  EXPECT_THAT(sent[0], SizeIs(before));
}

}  // namespace
}  // namespace fedmf::server
