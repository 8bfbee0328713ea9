// AggregationRouter alone, with fake devices (device_link.h) and a fake clock, playing the phase
// runner's part through PhaseTransport on a clear aggregation: members the devices cannot reach
// are dropped, what is delivered while a stage closes (Suspend .. Resume) is queued and what
// arrives after the last one is late, stage deadlines and waits on the injected clock (no
// sleeping), the eligible users, exclusions and the run's stops.
#include "server/aggregation_router.h"

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

namespace fedmf::server {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Devices whose live users are `live` (all reachable but `unreachable`), recording what they are
// asked to send.
class FakeDevices final : public Devices {
 public:
  std::vector<uint32_t> Open(const v1::RoundTask& task,
                             const std::vector<uint32_t>& cohort) override {
    tasks.push_back(task);
    return Unreachable(cohort);
  }
  std::vector<uint32_t> Route(Aggregation::Envelopes envelopes) override {
    std::vector<uint32_t> ids;
    for (const Aggregation::Envelope& e : envelopes) ids.push_back(e.participant_id);
    routed.insert(routed.end(), ids.begin(), ids.end());
    return Unreachable(ids);
  }
  std::vector<uint32_t> LiveUsers() const override { return {live.begin(), live.end()}; }
  int64_t LiveUserCount() const override { return static_cast<int64_t>(live.size()); }
  bool IsLiveUser(uint32_t id) const override { return live.contains(id); }
  std::string SigningKeyOf(uint32_t) const override { return ""; }
  void Broadcast(const v1::RoundResult& result) override { results.push_back(result); }
  int CloseAll(const absl::Status&) override { return ++closed_all; }
  void ReleaseRound() override { ++released; }
  void SealStage(absl::Time deadline) override { sealed.push_back(deadline); }
  PhaseTransport::Traffic CurrentTraffic() const override {
    return {.phase = {}, .bytes_in = 7, .bytes_out = 0};
  }

  std::set<uint32_t> live, unreachable;
  std::vector<v1::RoundTask> tasks;
  std::vector<uint32_t> routed;
  std::vector<v1::RoundResult> results;
  int closed_all = 0, released = 0;
  std::vector<absl::Time> sealed;  // SealStage's deadlines

 private:
  std::vector<uint32_t> Unreachable(const std::vector<uint32_t>& ids) const {
    std::vector<uint32_t> out;
    for (uint32_t id : ids) {
      if (unreachable.contains(id)) out.push_back(id);
    }
    return out;
  }
};

class AggregationRouterTest : public ::testing::Test {
 protected:
  AggregationRouterTest() : router_(clock_, mu_, devices_) {}

  // A clear aggregation of `cohort` with n_min 1, attached, for `phase` of round 0.
  PhaseTransport::StageStart Start(std::vector<uint32_t> cohort, int phase = 0) {
    aggregation_ =
        Aggregation::Clear({0, phase}, testing::ClearPlan(0, 1, 10), std::move(cohort), 1);
    v1::RoundTask task;
    task.set_round(0);
    task.mutable_plan()->set_phase(phase);
    return router_.Open(aggregation_.get(), task);
  }

  // What the device half does for a message or a drop: delivers it under the shared lock.
  bool Deliver(AggregationInbox::Delivery delivery) {
    std::lock_guard<std::mutex> lock(mu_);
    return router_.Deliver(std::move(delivery));
  }
  bool Upload(uint32_t id) {
    return Deliver(wire::ToClearUpload(aggregation_->tag(), id,
                                       algorithms::ContributionVector::Dense({id, 1, 0})));
  }

  testing::FakeClock clock_;
  std::mutex mu_;
  FakeDevices devices_;
  AggregationRouter router_;
  std::unique_ptr<Aggregation> aggregation_;
};

TEST_F(AggregationRouterTest, TheDevicesSendTheTaskAndMembersWithoutAStreamAreDropped) {
  devices_.unreachable = {4};
  Start({1, 2, 3, 4});
  ASSERT_THAT(devices_.tasks, ::testing::SizeIs(1));
  EXPECT_TRUE(router_.InAggregation());
  for (uint32_t id : {1, 2, 3}) Upload(id);
  // 4 was dropped when the tasks went out: the stage waits for nobody.
  router_.Suspend();
  EXPECT_TRUE(aggregation_->ReadyToClose());
}

// A reply whose receiver has no stream (any more) drops it from the aggregation.
TEST_F(AggregationRouterTest, AReplyToAParticipantWithoutAStreamDropsIt) {
  Start({1, 2});
  devices_.unreachable = {2};
  router_.Suspend();
  Aggregation::Envelopes replies(1);
  replies[0].participant_id = 2;
  EXPECT_FALSE(router_.Resume(std::move(replies)).finished);
  EXPECT_THAT(devices_.routed, ElementsAre(2));
  Upload(1);
  EXPECT_TRUE(aggregation_->ReadyToClose());
  EXPECT_THAT(aggregation_->contributors(), ElementsAre(1));
}

TEST_F(AggregationRouterTest, WhatArrivesWhileAStageClosesIsDeliveredInOrderOnResume) {
  Start({1, 2, 3});
  Upload(1);
  router_.Suspend();
  // The deliveries return at once; the aggregation (the runner's now) does not see them.
  Upload(2);
  EXPECT_TRUE(Deliver(AggregationInbox::Dropped{3}));  // a member: counted as dropped
  EXPECT_FALSE(Deliver(AggregationInbox::Dropped{9}));
  EXPECT_THAT(aggregation_->contributors(), ElementsAre(1));
  EXPECT_FALSE(aggregation_->ReadyToClose());
  const PhaseTransport::StageStart start = router_.Resume({});
  EXPECT_FALSE(start.finished);
  // 2's upload, then the drop of 3.
  EXPECT_THAT(aggregation_->contributors(), ElementsAre(1, 2));
  EXPECT_TRUE(aggregation_->ReadyToClose());
}

TEST_F(AggregationRouterTest, AfterTheLastStageWhatWasQueuedIsLateAndTheAggregationDetached) {
  Start({1, 2});
  Upload(1);
  router_.Suspend();
  Upload(2);
  absl::StatusOr<Aggregation::Envelopes> next = aggregation_->CloseStage();
  ASSERT_TRUE(next.ok());
  const PhaseTransport::StageStart start = router_.Resume(*std::move(next));
  EXPECT_TRUE(start.finished);
  EXPECT_FALSE(router_.InAggregation());
  EXPECT_THAT(aggregation_->contributors(), ElementsAre(1));
  // Detached: later messages change nothing.
  Upload(2);
  EXPECT_THAT(aggregation_->contributors(), ElementsAre(1));
}

TEST_F(AggregationRouterTest, AStageEndsAtItsDeadlineOnTheInjectedClockOrWhenEveryoneAnswered) {
  Start({1, 2});
  router_.AwaitStageEnd(clock_.Now() + absl::Seconds(20));
  EXPECT_EQ(clock_.Elapsed(), absl::Seconds(20));
  for (uint32_t id : {1, 2}) Upload(id);
  router_.AwaitStageEnd(clock_.Now() + absl::Seconds(20));
  EXPECT_EQ(clock_.Elapsed(), absl::Seconds(20));  // ready: no wait
}

TEST_F(AggregationRouterTest, AChangeOfTheStreamsIsAChangeTheDriverWakesFor) {
  const uint64_t seen = router_.Generation();
  devices_.live = {5};
  {
    std::lock_guard<std::mutex> lock(mu_);
    router_.StreamsChanged();
  }
  EXPECT_NE(router_.Generation(), seen);
  router_.AwaitChange(seen, clock_.Now() + absl::Seconds(1));
  EXPECT_EQ(clock_.Elapsed(), absl::ZeroDuration());
  EXPECT_THAT(router_.EligibleUsers(), ElementsAre(5));
  router_.AwaitChange(router_.Generation(), clock_.Now() + absl::Seconds(1));
  EXPECT_EQ(clock_.Elapsed(), absl::Seconds(1));
}

TEST_F(AggregationRouterTest, ExcludedUsersAreLiveButNotEligibleAndStatusNamesThem) {
  devices_.live = {1, 2};
  EXPECT_TRUE(router_.Exclude(2, "bad share"));
  EXPECT_FALSE(router_.Exclude(2, "again"));
  EXPECT_TRUE(router_.Exclude(500, "gone"));  // not live: the count is not lowered for it
  EXPECT_THAT(router_.EligibleUsers(), ElementsAre(1));
  EXPECT_EQ(router_.EligibleCount(), 1);
  EXPECT_EQ(router_.ExcludedCount(), 2);
  v1::StatusResponse status;
  router_.AddTo(status);
  ASSERT_EQ(status.excluded_size(), 2);
  EXPECT_EQ(status.excluded(0).participant_id(), 2);
  EXPECT_EQ(status.excluded(0).reason(), "bad share");
}

// The driver's calls that concern only the devices go to them (SealStage with its deadline).
TEST_F(AggregationRouterTest, StopEndsTheWaitsAndResultsStreamsAndTrafficAreTheDevices) {
  v1::RoundResult result;
  result.set_training_done(true);
  router_.Broadcast(result);
  EXPECT_THAT(devices_.results, ::testing::SizeIs(1));
  EXPECT_EQ(router_.CloseAll(absl::UnavailableError("bye")), 1);
  router_.ReleaseRound();
  EXPECT_EQ(devices_.released, 1);
  EXPECT_EQ(router_.CurrentTraffic().bytes_in, 7);
  const absl::Time deadline = absl::FromUnixSeconds(5);
  router_.SealStage(deadline);
  EXPECT_THAT(devices_.sealed, ::testing::ElementsAre(deadline));
  router_.Stop();
  EXPECT_TRUE(router_.stopped());
  EXPECT_FALSE(router_.run_cancelled());
  EXPECT_TRUE(router_.AwaitStop(clock_.Now() + absl::Seconds(30)));
  EXPECT_EQ(clock_.Elapsed(), absl::ZeroDuration());
}

// A service's run stop ends the waits like Stop, and the next run begins without it and without
// the last run's exclusions; a process Stop stays.
TEST_F(AggregationRouterTest, ARunStopLastsUntilTheNextRunBegins) {
  devices_.live = {1, 2};
  ASSERT_TRUE(router_.Exclude(2, "bad share"));
  router_.StopRun();
  EXPECT_TRUE(router_.stopped());
  EXPECT_TRUE(router_.run_cancelled());
  EXPECT_TRUE(router_.AwaitStop(clock_.Now() + absl::Seconds(30)));
  EXPECT_EQ(clock_.Elapsed(), absl::ZeroDuration());
  const uint64_t seen = router_.Generation();
  router_.BeginRun();
  EXPECT_NE(router_.Generation(), seen);
  EXPECT_FALSE(router_.stopped());
  EXPECT_EQ(router_.ExcludedCount(), 0);
  EXPECT_THAT(router_.EligibleUsers(), ElementsAre(1, 2));
  EXPECT_FALSE(router_.AwaitStop(clock_.Now() + absl::Seconds(1)));
  router_.Stop();
  router_.BeginRun();
  EXPECT_TRUE(router_.stopped());
}

TEST_F(AggregationRouterTest, ADeliveryWithNoAggregationIsLate) {
  EXPECT_FALSE(router_.InAggregation());
  EXPECT_FALSE(Deliver(AggregationInbox::Dropped{1}));
  Start({1});
  router_.Detach();
  EXPECT_FALSE(router_.InAggregation());
  Upload(1);
  EXPECT_THAT(aggregation_->contributors(), IsEmpty());
}

}  // namespace
}  // namespace fedmf::server
