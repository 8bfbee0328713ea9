// StreamRouter with in-process connections and a fake clock, playing the phase runner's part
// through PhaseTransport on a clear aggregation: tasks per stream, what is queued while a stage
// closes (Suspend .. Resume) and what is late after the last one, stage deadlines and waits for
// users on the injected clock (no sleeping).
#include "server/stream_router.h"

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/server/clear_plan.h"
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

// An in-process stream and what was sent to it.
struct TestStream {
  std::shared_ptr<Connection> connection;
  std::shared_ptr<std::vector<v1::ServerMessage>> inbox =
      std::make_shared<std::vector<v1::ServerMessage>>();
};

class StreamRouterTest : public ::testing::Test {
 protected:
  StreamRouterTest() : router_(options_, clock_) {}

  // Registers `ids` and opens their stream, both from TLS identity `identity` (empty: none).
  TestStream Open(std::vector<uint32_t> ids, const std::string& identity = "",
                  bool accepts_check_in = false) {
    v1::RegisterRequest request;
    request.set_accepts_check_in(accepts_check_in);
    request.set_protocol_version(wire::kProtocolVersion);
    request.set_enrollment_token("token");
    request.set_signing_public_key(std::string(32, 'k'));
    for (uint32_t id : ids) request.add_participant_ids(id);
    absl::StatusOr<std::string> token = router_.Register(request, identity);
    EXPECT_TRUE(token.ok()) << token.status();
    TestStream s;
    s.connection = std::make_shared<Connection>(
        router_.NextConnectionId(), "test",
        [inbox = s.inbox](const v1::ServerMessage& m) { inbox->push_back(m); },
        StreamLimits().max_queued_bytes, identity);
    EXPECT_TRUE(router_.OnStreamOpen(s.connection, *token).ok());
    return s;
  }

  absl::Status Upload(const TestStream& s, uint32_t id) {
    v1::ClientMessage m;
    *m.mutable_clear_upload() = wire::ToClearUpload(
        aggregation_->tag(), id, algorithms::ContributionVector::Dense({id, 1, 0}));
    return router_.OnClientMessage(s.connection, m);
  }

  // A clear aggregation of `cohort` with n_min 1, attached, for `phase` of round 0.
  PhaseTransport::StageStart Start(std::vector<uint32_t> cohort, int phase = 0) {
    aggregation_ =
        Aggregation::Clear({0, phase}, testing::ClearPlan(0, 1, 10), std::move(cohort), 1);
    v1::RoundTask task;
    task.set_round(0);
    task.mutable_plan()->set_phase(phase);
    return router_.Open(aggregation_.get(), task);
  }

  // Opens a stream of a client that accepts check-in, hosting `ids`.
  TestStream OpenCheckingIn(std::vector<uint32_t> ids) { return Open(std::move(ids), "", true); }

  // The check-in sweep at a time when every stream opened so far is past the window.
  int DismissAll() { return router_.DismissIdleStreams(absl::Now() + 2 * kCheckInWindow); }

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
  StreamRouter router_;
  std::unique_ptr<Aggregation> aggregation_;
};

TEST_F(StreamRouterTest, OneTaskPerStreamListsItsMembersAndMembersWithoutAStreamAreDropped) {
  TestStream a = Open({1, 2}), b = Open({3});
  Start({1, 2, 3, 4});
  ASSERT_THAT(*a.inbox, SizeIs(1));
  EXPECT_THAT(a.inbox->at(0).task().participant_ids(), ElementsAre(1, 2));
  ASSERT_THAT(*b.inbox, SizeIs(1));
  EXPECT_THAT(b.inbox->at(0).task().participant_ids(), ElementsAre(3));
  for (uint32_t id : {1, 2}) ASSERT_TRUE(Upload(a, id).ok());
  ASSERT_TRUE(Upload(b, 3).ok());
  // 4 was dropped when the tasks went out: the stage waits for nobody.
  router_.Suspend();
  EXPECT_TRUE(aggregation_->ReadyToClose());
}

TEST_F(StreamRouterTest, WhatArrivesWhileAStageClosesIsDeliveredInOrderOnResume) {
  TestStream a = Open({1, 2, 3});
  Start({1, 2, 3});
  ASSERT_TRUE(Upload(a, 1).ok());
  router_.Suspend();
  // The callbacks return at once; the aggregation (the runner's now) does not see them.
  ASSERT_TRUE(Upload(a, 2).ok());
  router_.OnStreamClosed(a.connection);
  EXPECT_THAT(aggregation_->contributors(), ElementsAre(1));
  EXPECT_FALSE(aggregation_->ReadyToClose());
  const PhaseTransport::StageStart start = router_.Resume({});
  EXPECT_FALSE(start.finished);
  // 2's upload, then the closed stream's drop of 3 (1 and 2 had uploaded).
  EXPECT_THAT(aggregation_->contributors(), ElementsAre(1, 2));
  EXPECT_TRUE(aggregation_->ReadyToClose());
}

TEST_F(StreamRouterTest, AfterTheLastStageWhatWasQueuedIsLateAndTheAggregationDetached) {
  TestStream a = Open({1, 2});
  Start({1, 2});
  ASSERT_TRUE(Upload(a, 1).ok());
  router_.Suspend();
  ASSERT_TRUE(Upload(a, 2).ok());
  absl::StatusOr<Aggregation::Envelopes> next = aggregation_->CloseStage();
  ASSERT_TRUE(next.ok());
  const PhaseTransport::StageStart start = router_.Resume(*std::move(next));
  EXPECT_TRUE(start.finished);
  EXPECT_THAT(aggregation_->contributors(), ElementsAre(1));
  // Detached: later messages change nothing.
  ASSERT_TRUE(Upload(a, 2).ok());
  EXPECT_THAT(aggregation_->contributors(), ElementsAre(1));
}

TEST_F(StreamRouterTest, AStageEndsAtItsDeadlineOnTheInjectedClockOrWhenEveryoneAnswered) {
  TestStream a = Open({1, 2});
  Start({1, 2});
  router_.AwaitStageEnd(clock_.Now() + absl::Seconds(20));
  EXPECT_EQ(clock_.Elapsed(), absl::Seconds(20));
  for (uint32_t id : {1, 2}) ASSERT_TRUE(Upload(a, id).ok());
  router_.AwaitStageEnd(clock_.Now() + absl::Seconds(20));
  EXPECT_EQ(clock_.Elapsed(), absl::Seconds(20));  // ready: no wait
}

// Issue 48: what a client message may be follows the largest plan of the tasks opened so far (late
// messages of an earlier aggregation still fit).
TEST_F(StreamRouterTest, ClientMessageBoundsFollowTheTasksOpened) {
  EXPECT_EQ(router_.ClientMessageBounds().max_bytes, kUnplannedBounds.max_bytes);
  auto open = [this](uint64_t length) {
    v1::RoundTask task;
    task.mutable_plan()->set_combination(v1::COMBINATION_CLEAR);
    task.mutable_plan()->set_length(length);
    aggregation_ = Aggregation::Clear({0, 0}, testing::ClearPlan(0, 1, 10), {1}, 1);
    router_.Open(aggregation_.get(), task);
    router_.Detach();
    return BoundsOf(task, options_.max_upload_bytes);
  };
  const MessageBounds small = open(10);
  EXPECT_GT(small.max_bytes, kUnplannedBounds.max_bytes);
  EXPECT_EQ(router_.ClientMessageBounds().max_bytes, small.max_bytes);
  EXPECT_EQ(router_.ClientMessageBounds().max_elements, small.max_elements);
  const MessageBounds large = open(1000);
  EXPECT_EQ(router_.ClientMessageBounds().max_bytes, large.max_bytes);
  open(10);
  EXPECT_EQ(router_.ClientMessageBounds().max_bytes, large.max_bytes);  // late ones still fit
  EXPECT_EQ(router_.ClientMessageBounds().max_elements, large.max_elements);
}

TEST_F(StreamRouterTest, OpeningAStreamIsAChangeTheDriverWakesFor) {
  const uint64_t seen = router_.Generation();
  TestStream a = Open({5});
  EXPECT_NE(router_.Generation(), seen);
  router_.AwaitChange(seen, clock_.Now() + absl::Seconds(1));
  EXPECT_EQ(clock_.Elapsed(), absl::ZeroDuration());
  EXPECT_THAT(router_.EligibleUsers(), ElementsAre(5));
  router_.AwaitChange(router_.Generation(), clock_.Now() + absl::Seconds(1));
  EXPECT_EQ(clock_.Elapsed(), absl::Seconds(1));
}

TEST_F(StreamRouterTest, ExcludedUsersAreLiveButNotEligibleAndStatusNamesThem) {
  TestStream a = Open({1, 2});
  EXPECT_TRUE(router_.Exclude(2, "bad share"));
  EXPECT_FALSE(router_.Exclude(2, "again"));
  EXPECT_THAT(router_.EligibleUsers(), ElementsAre(1));
  EXPECT_EQ(router_.EligibleCount(), 1);
  EXPECT_EQ(router_.ExcludedCount(), 1);
  v1::StatusResponse status;
  router_.AddTo(status);
  EXPECT_EQ(status.registered_users(), 2);
  EXPECT_EQ(status.connected_clients(), 1);
  ASSERT_EQ(status.excluded_size(), 1);
  EXPECT_EQ(status.excluded(0).reason(), "bad share");
}

TEST_F(StreamRouterTest, StopEndsTheWaitsAndBroadcastReachesEveryStream) {
  TestStream a = Open({1}), b = Open({2});
  v1::RoundResult result;
  result.set_training_done(true);
  router_.Broadcast(result);
  EXPECT_THAT(*a.inbox, SizeIs(1));
  EXPECT_THAT(*b.inbox, SizeIs(1));
  router_.Stop();
  EXPECT_TRUE(router_.stopped());
  EXPECT_TRUE(router_.AwaitStop(clock_.Now() + absl::Seconds(30)));
  EXPECT_EQ(clock_.Elapsed(), absl::ZeroDuration());
}

// A service's run stop ends the waits like Stop, and the next run begins without it, without
// the last run's exclusions and with its own participant id range; a process Stop stays.
// A stream that opens after the end (registered before it, as a device checking in may be)
// gets the training_done result at once instead of waiting for a task forever.
TEST_F(StreamRouterTest, AStreamOpenedAfterTheEndGetsTheTrainingDoneResult) {
  TestStream before = Open({1});
  v1::RoundResult done;
  done.set_training_done(true);
  done.set_rounds_completed(3);
  router_.Broadcast(done);
  TestStream after = Open({2});
  for (const TestStream* s : {&before, &after}) {
    ASSERT_THAT(*s->inbox, SizeIs(1));
    EXPECT_TRUE(s->inbox->at(0).result().training_done());
    EXPECT_EQ(s->inbox->at(0).result().rounds_completed(), 3);
  }
}

TEST_F(StreamRouterTest, ARunStopLastsUntilTheNextRunBegins) {
  TestStream a = Open({1, 2});
  ASSERT_TRUE(router_.Exclude(2, "bad share"));
  router_.StopRun();
  EXPECT_TRUE(router_.stopped());
  EXPECT_TRUE(router_.AwaitStop(clock_.Now() + absl::Seconds(30)));
  EXPECT_EQ(clock_.Elapsed(), absl::ZeroDuration());
  router_.BeginRun(20);
  EXPECT_FALSE(router_.stopped());
  EXPECT_EQ(router_.ExcludedCount(), 0);
  EXPECT_THAT(router_.EligibleUsers(), ElementsAre(1, 2));  // registrations stay
  TestStream b = Open({15});                                // inside the new run's range
  EXPECT_THAT(router_.EligibleUsers(), ElementsAre(1, 2, 15));
  EXPECT_FALSE(router_.AwaitStop(clock_.Now() + absl::Seconds(1)));
  router_.Stop();
  router_.BeginRun(20);
  EXPECT_TRUE(router_.stopped());
}

// Between runs any id registers; the next run draws its cohorts from its own range only, while a
// registration outside it stays live for a later run.
TEST_F(StreamRouterTest, BetweenRunsAnyIdRegistersAndARunSeesOnlyItsRange) {
  router_.EndRun();
  TestStream big = Open({500});
  TestStream small = Open({3});
  EXPECT_THAT(router_.EligibleUsers(), ElementsAre(3, 500));
  EXPECT_EQ(router_.EligibleCount(), 2);
  router_.BeginRun(20);
  EXPECT_THAT(router_.EligibleUsers(), ElementsAre(3));
  EXPECT_EQ(router_.EligibleCount(), 1);
  router_.BeginRun(1000);
  EXPECT_THAT(router_.EligibleUsers(), ElementsAre(3, 500));
  EXPECT_EQ(router_.EligibleCount(), 2);
  EXPECT_TRUE(router_.Exclude(500, "bad share"));
  EXPECT_EQ(router_.EligibleCount(), 1);
  router_.OnStreamClosed(small.connection);  // its user is no longer live
  EXPECT_EQ(router_.EligibleCount(), 0);
}

// Issue 48 item 4: revocation is checked on every message of a stream opened with a TLS
// identity, so a revoked client's next message ends its stream and reaches nobody, without
// waiting for the one-second sweep; other identities go on.
TEST_F(StreamRouterTest, ARevokedIdentitysNextMessageEndsItsStream) {
  TestStream alice = Open({1}, "alice"), bob = Open({2}, "bob");
  Start({1, 2});
  revoked_.insert("alice");
  ::testing::internal::CaptureStderr();
  const absl::Status refused = Upload(alice, 1);
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(refused.message(), "identity 'alice' is revoked");
  EXPECT_THAT(log, HasSubstr("event=stream_revoked identity=alice "));
  EXPECT_THAT(aggregation_->contributors(), IsEmpty());
  ASSERT_TRUE(Upload(bob, 2).ok());
  EXPECT_THAT(aggregation_->contributors(), ElementsAre(2));
}

// The sweep ends the revoked streams that send nothing, and only those.
TEST_F(StreamRouterTest, TheSweepEndsSilentRevokedStreams) {
  TestStream alice = Open({1}, "alice"), bob = Open({2}, "bob"), plain = Open({3});
  EXPECT_EQ(router_.EndRevokedStreams(), 0);
  revoked_.insert("alice");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(router_.EndRevokedStreams(), 1);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("event=stream_revoked identity=alice "));
}

// Check-in ends, while an aggregation runs, the streams of clients that accept it and host no
// member of it, each with a CheckInLater; their users are no longer eligible at once.
TEST_F(StreamRouterTest, CheckInEndsIdleStreamsTheAggregationDoesNotNeed) {
  TestStream member = OpenCheckingIn({1}), idle = OpenCheckingIn({2}), old_client = Open({3}),
             shared = OpenCheckingIn({4, 5});
  EXPECT_EQ(DismissAll(), 0) << "no aggregation attached: the driver may be choosing a cohort";
  Start({1, 4});
  EXPECT_EQ(router_.DismissIdleStreams(absl::Now()), 0) << "every stream is inside the window";
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(DismissAll(), 1);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("event=check_in_dismissed streams=1 users=1 why=idle period_s=60"));
  ASSERT_FALSE(idle.inbox->empty());
  ASSERT_TRUE(idle.inbox->back().has_check_in_later());
  const int64_t delay_ms = idle.inbox->back().check_in_later().retry_after_ms();
  EXPECT_GE(delay_ms, 30000);
  EXPECT_LE(delay_ms, 90000);
  EXPECT_GE(router_.CheckInsDueBy(), absl::Now() + absl::Milliseconds(delay_ms) - absl::Minutes(1));
  for (const TestStream* kept : {&member, &old_client, &shared}) {
    for (const v1::ServerMessage& m : *kept->inbox) EXPECT_FALSE(m.has_check_in_later());
  }
  EXPECT_THAT(router_.EligibleUsers(), ElementsAre(1, 3, 4, 5));
  EXPECT_EQ(router_.EligibleCount(), 4);
  v1::StatusResponse status;
  router_.AddTo(status);
  EXPECT_EQ(status.checked_in_streams(), 1);
  EXPECT_EQ(status.connected_clients(), 3);
  // A late message on the dismissed stream is no refusal (the client did nothing wrong), and its
  // close changes nothing: it was unbound already.
  v1::ClientMessage late;
  late.mutable_secagg()->set_participant_id(2);
  EXPECT_TRUE(router_.OnClientMessage(idle.connection, late).ok());
  ::testing::internal::CaptureStderr();
  router_.OnStreamClosed(idle.connection);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), Not(HasSubstr("stream_closed")));
  EXPECT_EQ(DismissAll(), 0);
}

// A later phase's participants come from an earlier phase's cohort: check-in keeps every cohort
// of the round until the next round (or an evaluation) starts.
// Released, the round's users are sent away at once, whatever their streams' age; the others
// (too recent to be idle) stay for the next cohort.
TEST_F(StreamRouterTest, ReleasingTheRoundSendsItsUsersAwayAndOnlyThem) {
  TestStream a = OpenCheckingIn({1}), b = OpenCheckingIn({2}), c = OpenCheckingIn({3}),
             old_client = Open({4});
  Start({1, 4});
  router_.Detach();
  ::testing::internal::CaptureStderr();
  router_.ReleaseRound();
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("event=check_in_dismissed streams=1 users=1 why=round_done"));
  ASSERT_FALSE(a.inbox->empty());
  EXPECT_TRUE(a.inbox->back().has_check_in_later());
  EXPECT_THAT(router_.EligibleUsers(), ElementsAre(2, 3, 4));
  router_.ReleaseRound();  // nothing left to release
  EXPECT_THAT(router_.EligibleUsers(), ElementsAre(2, 3, 4));
}

TEST_F(StreamRouterTest, CheckInKeepsEveryPhasesCohortUntilTheNextRound) {
  TestStream a = OpenCheckingIn({1}), b = OpenCheckingIn({2}), c = OpenCheckingIn({3});
  Start({1, 2}, /*phase=*/0);
  router_.Detach();
  Start({2}, /*phase=*/1);
  EXPECT_EQ(DismissAll(), 1);  // only 3
  ASSERT_FALSE(c.inbox->empty());
  EXPECT_TRUE(c.inbox->back().has_check_in_later());
  router_.Detach();
  Start({1}, /*phase=*/0);     // the next round
  EXPECT_EQ(DismissAll(), 1);  // 2, no longer needed
  ASSERT_FALSE(b.inbox->empty());
  EXPECT_TRUE(b.inbox->back().has_check_in_later());
  EXPECT_THAT(router_.EligibleUsers(), ElementsAre(1));
}

}  // namespace
}  // namespace fedmf::server
