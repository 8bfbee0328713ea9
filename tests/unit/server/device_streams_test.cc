// DeviceStreams alone, with in-process connections and a fake aggregation side (device_link.h):
// tasks per stream, message bounds, what each stream's messages and ends report (only for the
// participants it hosts), results to every stream (and to later ones after training_done),
// revocation, and check-in.
#include "server/device_streams.h"

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/credentials.h"
#include "tests/unit/server/fake_clock.h"
#include "wire/clear_upload.h"
#include "wire/limits.h"

namespace fedmf::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

// The aggregation side: records what the devices report; `members` are the aggregation's.
class FakeEvents final : public DeviceEvents {
 public:
  bool Deliver(AggregationInbox::Delivery delivery) override {
    const auto* dropped = std::get_if<AggregationInbox::Dropped>(&delivery);
    if (dropped != nullptr) drops.push_back(dropped->participant_id);
    if (const auto* upload = std::get_if<v1::ClearUpload>(&delivery)) {
      uploads.push_back(upload->participant_id());
    }
    return dropped != nullptr && members.contains(dropped->participant_id);
  }
  void StreamsChanged() override { ++changes; }
  bool InAggregation() const override { return in_aggregation; }

  std::set<uint32_t> members;
  bool in_aggregation = false;
  std::vector<uint32_t> drops, uploads;
  int changes = 0;
};

// An in-process stream and what was sent to it.
struct TestStream {
  std::shared_ptr<Connection> connection;
  std::shared_ptr<std::vector<v1::ServerMessage>> inbox =
      std::make_shared<std::vector<v1::ServerMessage>>();
};

class DeviceStreamsTest : public ::testing::Test {
 protected:
  DeviceStreamsTest() : devices_(options_, clock_, mu_, events_) {}

  // Registers `ids` and opens their stream, both from TLS identity `identity` (empty: none).
  TestStream Open(std::vector<uint32_t> ids, const std::string& identity = "",
                  bool accepts_check_in = false) {
    v1::RegisterRequest request;
    request.set_accepts_check_in(accepts_check_in);
    request.set_protocol_version(wire::kProtocolVersion);
    request.set_enrollment_token("token");
    request.set_signing_public_key(std::string(32, 'k'));
    for (uint32_t id : ids) request.add_participant_ids(id);
    absl::StatusOr<std::string> token = devices_.Register(request, identity);
    EXPECT_TRUE(token.ok()) << token.status();
    TestStream s;
    s.connection = std::make_shared<Connection>(
        devices_.NextConnectionId(), "test",
        [inbox = s.inbox](const v1::ServerMessage& m) { inbox->push_back(m); },
        StreamLimits().max_queued_bytes, identity);
    EXPECT_TRUE(devices_.OnStreamOpen(s.connection, *token).ok());
    return s;
  }

  absl::Status Upload(const TestStream& s, uint32_t id) {
    v1::ClientMessage m;
    *m.mutable_clear_upload() =
        wire::ToClearUpload({0, 0}, id, algorithms::ContributionVector::Dense({id, 1, 0}));
    return devices_.OnClientMessage(s.connection, m);
  }

  // What the aggregation side does when it opens an aggregation of `cohort` for `phase`: the
  // devices send the task (under the shared lock); returns the members without a stream.
  std::vector<uint32_t> Start(std::vector<uint32_t> cohort, int phase = 0,
                              v1::RoundTask task = {}) {
    task.mutable_plan()->set_phase(phase);
    events_.members = {cohort.begin(), cohort.end()};
    events_.in_aggregation = true;
    std::lock_guard<std::mutex> lock(mu_);
    return devices_.Open(task, cohort);
  }
  // The aggregation is over.
  void Finish() { events_.in_aggregation = false; }

  // Opens a stream of a client that accepts check-in, hosting `ids`.
  TestStream OpenCheckingIn(std::vector<uint32_t> ids) { return Open(std::move(ids), "", true); }

  // The check-in sweep at a time when every stream opened so far is past the window.
  int DismissAll() { return devices_.DismissIdleStreams(absl::Now() + 2 * kCheckInWindow); }

  static constexpr absl::Duration kCheckInWindow = absl::Hours(1);

  testing::FakeClock clock_;
  std::set<std::string> revoked_;  // the identities options_.revoked names
  const CoordinatorOptions options_ = [this] {
    CoordinatorOptions o;
    o.enrollment_token = "token";
    o.num_users = 10;
    o.check_in_period = absl::Seconds(60);
    o.check_in_window = kCheckInWindow;
    o.revoked = [this](absl::string_view identity) {
      return revoked_.contains(std::string(identity));
    };
    return o;
  }();
  std::mutex mu_;
  FakeEvents events_;
  DeviceStreams devices_;
};

TEST_F(DeviceStreamsTest, OneTaskPerStreamListsItsMembersAndMembersWithoutAStreamAreReturned) {
  TestStream a = Open({1, 2}), b = Open({3});
  EXPECT_THAT(Start({1, 2, 3, 4}), ElementsAre(4));
  ASSERT_THAT(*a.inbox, SizeIs(1));
  EXPECT_THAT(a.inbox->at(0).task().participant_ids(), ElementsAre(1, 2));
  ASSERT_THAT(*b.inbox, SizeIs(1));
  EXPECT_THAT(b.inbox->at(0).task().participant_ids(), ElementsAre(3));
  for (uint32_t id : {1, 2}) ASSERT_TRUE(Upload(a, id).ok());
  ASSERT_TRUE(Upload(b, 3).ok());
  EXPECT_THAT(events_.uploads, ElementsAre(1, 2, 3));
}

// A stream speaks only for the participants it hosts: another's message ends it, unreported.
TEST_F(DeviceStreamsTest, AMessageForAParticipantTheStreamDoesNotHostIsRefused) {
  TestStream a = Open({1}), b = Open({2});
  Start({1, 2});
  const absl::Status refused = Upload(a, 2);
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(refused.message(), "participant 2 is not hosted by this stream");
  EXPECT_THAT(events_.uploads, IsEmpty());
}

// Replies go to the stream hosting their participant; those without one are returned.
TEST_F(DeviceStreamsTest, RouteSendsToEachParticipantsStreamAndReturnsTheUnreachable) {
  TestStream a = Open({1, 2});
  Aggregation::Envelopes envelopes(3);
  envelopes[0].participant_id = 2;
  envelopes[1].participant_id = 7;
  envelopes[2].participant_id = 1;
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_THAT(devices_.Route(std::move(envelopes)), ElementsAre(7));
  EXPECT_THAT(*a.inbox, SizeIs(2));
}

// A closed stream's users are gone: reported as drops, and as a change of the streams.
TEST_F(DeviceStreamsTest, AClosedStreamsUsersAreDroppedAndNoLongerLive) {
  TestStream a = Open({1, 2}), b = Open({3});
  Start({2, 3});
  const int changes = events_.changes;
  ::testing::internal::CaptureStderr();
  devices_.OnStreamClosed(a.connection);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("event=stream_closed client=\"\" peer=test users=2 dropped_in_round=1"));
  EXPECT_THAT(events_.drops, ElementsAre(1, 2));
  EXPECT_EQ(events_.changes, changes + 1);
  EXPECT_THAT(devices_.LiveUsers(), ElementsAre(3));
  EXPECT_EQ(devices_.LiveUserCount(), 1);
  // Its late messages are refused; nothing more is reported.
  EXPECT_EQ(Upload(a, 1).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(events_.uploads, IsEmpty());
}

// The holder that reconnects while its old stream still looks alive takes its ids over: the old
// stream is ended, and its users, which missed what the round sent there, drop out of the round.
TEST_F(DeviceStreamsTest, ATakeoverEndsTheOldStreamAndDropsItsUsersFromTheRound) {
  CoordinatorOptions options = options_;
  auto credentials = std::make_shared<const Credentials>(
      Credentials::Parse(absl::StrCat(TokenCredential("alice-token"), " 1-5\n")).value());
  options.credentials = [credentials] { return credentials; };
  DeviceStreams devices(options, clock_, mu_, events_);
  v1::RegisterRequest request;
  request.set_protocol_version(wire::kProtocolVersion);
  request.set_enrollment_token("alice-token");
  request.set_signing_public_key(std::string(32, 'k'));
  request.add_participant_ids(1);
  request.add_participant_ids(2);
  auto open = [&](uint64_t id) {
    auto c = std::make_shared<Connection>(id, "test", [](const v1::ServerMessage&) {});
    EXPECT_TRUE(devices.OnStreamOpen(c, devices.Register(request, "").value()).ok());
    return c;
  };
  const std::shared_ptr<Connection> old_stream = open(1);
  EXPECT_THAT(events_.drops, IsEmpty());
  const std::shared_ptr<Connection> new_stream = open(2);
  EXPECT_THAT(events_.drops, ElementsAre(1, 2));
  EXPECT_THAT(devices.LiveUsers(), ElementsAre(1, 2));
  // Ended as a refusal, so that a second live copy of a client stops.
  EXPECT_EQ(devices.OnClientMessage(old_stream, v1::ClientMessage()).code(),
            absl::StatusCode::kFailedPrecondition);
}

// Issue 48: what a client message may be follows the largest plan of the tasks opened so far (late
// messages of an earlier aggregation still fit).
TEST_F(DeviceStreamsTest, ClientMessageBoundsFollowTheTasksOpened) {
  EXPECT_EQ(devices_.ClientMessageBounds().max_bytes, kUnplannedBounds.max_bytes);
  auto open = [this](uint64_t length) {
    v1::RoundTask task;
    task.mutable_plan()->set_combination(v1::COMBINATION_CLEAR);
    task.mutable_plan()->set_length(length);
    Start({1}, 0, task);
    return BoundsOf(task, options_.max_upload_bytes);
  };
  const MessageBounds small = open(10);
  EXPECT_GT(small.max_bytes, kUnplannedBounds.max_bytes);
  EXPECT_EQ(devices_.ClientMessageBounds().max_bytes, small.max_bytes);
  EXPECT_EQ(devices_.ClientMessageBounds().max_elements, small.max_elements);
  const MessageBounds large = open(1000);
  EXPECT_EQ(devices_.ClientMessageBounds().max_bytes, large.max_bytes);
  open(10);
  EXPECT_EQ(devices_.ClientMessageBounds().max_bytes, large.max_bytes);  // late ones still fit
  EXPECT_EQ(devices_.ClientMessageBounds().max_elements, large.max_elements);
}

TEST_F(DeviceStreamsTest, OpeningAStreamIsAChangeOfTheLiveUsers) {
  const int changes = events_.changes;
  TestStream a = Open({5});
  EXPECT_EQ(events_.changes, changes + 1);
  EXPECT_THAT(devices_.LiveUsers(), ElementsAre(5));
  EXPECT_TRUE(devices_.IsLiveUser(5));
  EXPECT_EQ(devices_.SigningKeyOf(5), std::string(32, 'k'));
  v1::StatusResponse status;
  devices_.AddTo(status);
  EXPECT_EQ(status.registered_users(), 1);
  EXPECT_EQ(status.connected_clients(), 1);
}

TEST_F(DeviceStreamsTest, BroadcastReachesEveryStreamAndCloseAllEndsThem) {
  TestStream a = Open({1}), b = Open({2});
  v1::RoundResult result;
  result.set_round(3);
  devices_.Broadcast(result);
  EXPECT_THAT(*a.inbox, SizeIs(1));
  EXPECT_THAT(*b.inbox, SizeIs(1));
  EXPECT_EQ(devices_.CloseAll(absl::UnavailableError("restart")), 2);
}

// A stream that opens after the end (registered before it, as a device checking in may be)
// gets the training_done result at once instead of waiting for a task forever.
TEST_F(DeviceStreamsTest, AStreamOpenedAfterTheEndGetsTheTrainingDoneResult) {
  TestStream before = Open({1});
  v1::RoundResult done;
  done.set_training_done(true);
  done.set_rounds_completed(3);
  devices_.Broadcast(done);
  TestStream after = Open({2});
  for (const TestStream* s : {&before, &after}) {
    ASSERT_THAT(*s->inbox, SizeIs(1));
    EXPECT_TRUE(s->inbox->at(0).result().training_done());
    EXPECT_EQ(s->inbox->at(0).result().rounds_completed(), 3);
  }
}

// Between runs any id registers; a run's live users are its own range only, while a registration
// outside it stays for a later run.
TEST_F(DeviceStreamsTest, BetweenRunsAnyIdRegistersAndARunSeesOnlyItsRange) {
  devices_.SetNumUsers(Registry::kAnyUser);
  TestStream big = Open({500});
  TestStream small = Open({3});
  EXPECT_THAT(devices_.LiveUsers(), ElementsAre(3, 500));
  EXPECT_EQ(devices_.LiveUserCount(), 2);
  devices_.SetNumUsers(20);
  EXPECT_THAT(devices_.LiveUsers(), ElementsAre(3));
  EXPECT_EQ(devices_.LiveUserCount(), 1);
  TestStream inside = Open({15});  // inside the new run's range
  EXPECT_THAT(devices_.LiveUsers(), ElementsAre(3, 15));
  devices_.SetNumUsers(1000);
  EXPECT_THAT(devices_.LiveUsers(), ElementsAre(3, 15, 500));
  devices_.OnStreamClosed(small.connection);  // its user is no longer live
  EXPECT_EQ(devices_.LiveUserCount(), 2);
}

// Issue 48 item 4: revocation is checked on every message of a stream opened with a TLS
// identity, so a revoked client's next message ends its stream and reaches nobody, without
// waiting for the one-second sweep; other identities go on.
TEST_F(DeviceStreamsTest, ARevokedIdentitysNextMessageEndsItsStream) {
  TestStream alice = Open({1}, "alice"), bob = Open({2}, "bob");
  Start({1, 2});
  revoked_.insert("alice");
  ::testing::internal::CaptureStderr();
  const absl::Status refused = Upload(alice, 1);
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(refused.message(), "identity 'alice' is revoked");
  EXPECT_THAT(log, HasSubstr("event=stream_revoked identity=alice "));
  EXPECT_THAT(events_.uploads, IsEmpty());
  ASSERT_TRUE(Upload(bob, 2).ok());
  EXPECT_THAT(events_.uploads, ElementsAre(2));
}

// The sweep ends the revoked streams that send nothing, and only those.
TEST_F(DeviceStreamsTest, TheSweepEndsSilentRevokedStreams) {
  TestStream alice = Open({1}, "alice"), bob = Open({2}, "bob"), plain = Open({3});
  EXPECT_EQ(devices_.EndRevokedStreams(), 0);
  revoked_.insert("alice");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(devices_.EndRevokedStreams(), 1);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("event=stream_revoked identity=alice "));
}

// Check-in ends, while an aggregation runs, the streams of clients that accept it and host no
// member of it, each with a CheckInLater; their users are no longer live at once.
TEST_F(DeviceStreamsTest, CheckInEndsIdleStreamsTheAggregationDoesNotNeed) {
  TestStream member = OpenCheckingIn({1}), idle = OpenCheckingIn({2}), old_client = Open({3}),
             shared = OpenCheckingIn({4, 5});
  EXPECT_EQ(DismissAll(), 0) << "no aggregation in progress: the driver may be choosing a cohort";
  Start({1, 4});
  EXPECT_EQ(devices_.DismissIdleStreams(absl::Now()), 0) << "every stream is inside the window";
  const int changes = events_.changes;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(DismissAll(), 1);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("event=check_in_dismissed streams=1 users=1 why=idle period_s=60"));
  EXPECT_EQ(events_.changes, changes + 1);
  ASSERT_FALSE(idle.inbox->empty());
  ASSERT_TRUE(idle.inbox->back().has_check_in_later());
  const int64_t delay_ms = idle.inbox->back().check_in_later().retry_after_ms();
  EXPECT_GE(delay_ms, 30000);
  EXPECT_LE(delay_ms, 90000);
  EXPECT_GE(devices_.CheckInsDueBy(),
            absl::Now() + absl::Milliseconds(delay_ms) - absl::Minutes(1));
  for (const TestStream* kept : {&member, &old_client, &shared}) {
    for (const v1::ServerMessage& m : *kept->inbox) EXPECT_FALSE(m.has_check_in_later());
  }
  EXPECT_THAT(devices_.LiveUsers(), ElementsAre(1, 3, 4, 5));
  EXPECT_EQ(devices_.LiveUserCount(), 4);
  v1::StatusResponse status;
  devices_.AddTo(status);
  EXPECT_EQ(status.checked_in_streams(), 1);
  EXPECT_EQ(status.connected_clients(), 3);
  // A late message on the dismissed stream is no refusal (the client did nothing wrong), and its
  // close changes nothing: it was unbound already.
  v1::ClientMessage late;
  late.mutable_secagg()->set_participant_id(2);
  EXPECT_TRUE(devices_.OnClientMessage(idle.connection, late).ok());
  ::testing::internal::CaptureStderr();
  devices_.OnStreamClosed(idle.connection);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), Not(HasSubstr("stream_closed")));
  EXPECT_THAT(events_.drops, IsEmpty());
  EXPECT_EQ(DismissAll(), 0);
}

// Released, the round's users are sent away at once, whatever their streams' age; the others
// (too recent to be idle) stay for the next cohort.
TEST_F(DeviceStreamsTest, ReleasingTheRoundSendsItsUsersAwayAndOnlyThem) {
  TestStream a = OpenCheckingIn({1}), b = OpenCheckingIn({2}), c = OpenCheckingIn({3}),
             old_client = Open({4});
  Start({1, 4});
  Finish();
  ::testing::internal::CaptureStderr();
  devices_.ReleaseRound();
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("event=check_in_dismissed streams=1 users=1 why=round_done"));
  ASSERT_FALSE(a.inbox->empty());
  EXPECT_TRUE(a.inbox->back().has_check_in_later());
  EXPECT_THAT(devices_.LiveUsers(), ElementsAre(2, 3, 4));
  devices_.ReleaseRound();  // nothing left to release
  EXPECT_THAT(devices_.LiveUsers(), ElementsAre(2, 3, 4));
}

// A later phase's participants come from an earlier phase's cohort: check-in keeps every cohort
// of the round until the next round (or an evaluation) starts.
TEST_F(DeviceStreamsTest, CheckInKeepsEveryPhasesCohortUntilTheNextRound) {
  TestStream a = OpenCheckingIn({1}), b = OpenCheckingIn({2}), c = OpenCheckingIn({3});
  Start({1, 2}, /*phase=*/0);
  Finish();
  Start({2}, /*phase=*/1);
  EXPECT_EQ(DismissAll(), 1);  // only 3
  ASSERT_FALSE(c.inbox->empty());
  EXPECT_TRUE(c.inbox->back().has_check_in_later());
  Finish();
  Start({1}, /*phase=*/0);     // the next round
  EXPECT_EQ(DismissAll(), 1);  // 2, no longer needed
  ASSERT_FALSE(b.inbox->empty());
  EXPECT_TRUE(b.inbox->back().has_check_in_later());
  EXPECT_THAT(devices_.LiveUsers(), ElementsAre(1));
}

}  // namespace
}  // namespace fedmf::server
