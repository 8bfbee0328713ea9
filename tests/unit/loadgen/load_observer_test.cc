#include "tools/loadgen/load_observer.h"

#include "gtest/gtest.h"
#include "wire/envelope.h"

namespace fedmf::loadgen {
namespace {

v1::ServerMessage Task(int64_t round, int32_t attempt = 0) {
  v1::ServerMessage m;
  m.mutable_task()->set_round(round);
  m.mutable_task()->set_attempt(attempt);
  return m;
}
v1::ServerMessage Stage(int64_t round, int which) {
  v1::ServerMessage m;
  m.mutable_secagg()->set_round(round);
  v1::secagg::ServerToClient* s = m.mutable_secagg()->mutable_message();
  if (which == 1) s->mutable_share_keys();
  if (which == 2) s->mutable_masked_input();
  if (which == 3) s->mutable_consistency_check();
  if (which == 4) s->mutable_unmasking();
  if (which == 5) s->mutable_abort();
  return m;
}
v1::ServerMessage InPhase(v1::ServerMessage m, int phase) {
  if (m.has_task()) m.mutable_task()->mutable_plan()->set_phase(phase);
  if (m.has_secagg()) m.mutable_secagg()->set_phase(phase);
  if (m.has_result()) m.mutable_result()->set_phase(phase);
  return m;
}
v1::ServerMessage Result(int64_t round, bool applied, bool done = false) {
  v1::ServerMessage m;
  m.mutable_result()->set_round(round);
  m.mutable_result()->set_applied(applied);
  m.mutable_result()->set_training_done(done);
  return m;
}

TEST(ClassifyTest, Kinds) {
  EXPECT_EQ(Classify(Task(0)), MessageKind::kTask);
  EXPECT_EQ(Classify(Stage(0, 1)), MessageKind::kShareKeys);
  EXPECT_EQ(Classify(Stage(0, 2)), MessageKind::kMaskedInput);
  EXPECT_EQ(Classify(Stage(0, 3)), MessageKind::kConsistencyCheck);
  EXPECT_EQ(Classify(Stage(0, 4)), MessageKind::kUnmasking);
  EXPECT_EQ(Classify(Stage(0, 5)), MessageKind::kAbort);
  EXPECT_EQ(Classify(Result(0, true)), MessageKind::kResult);
  v1::ServerMessage eval = Stage(0, 1);
  eval.mutable_secagg()->set_phase(wire::kEvaluationPhase);
  EXPECT_EQ(Classify(eval), MessageKind::kOther);
  v1::ServerMessage chunk;
  chunk.mutable_chunk()->set_round(0);
  EXPECT_EQ(Classify(chunk), MessageKind::kOther);
  EXPECT_STREQ(StageSeries(MessageKind::kTask), "advertise");
  EXPECT_STREQ(StageSeries(MessageKind::kUnmasking), "unmasking");
}

// Drives one host through a full round: every stage is delivered, each opens a latency sample.
TEST(LoadObserverTest, FullRoundRecordsEveryStageAndTheRound) {
  const LoadSchedule schedule{ScheduleOptions()};
  LatencyRecorder latencies;
  LoadObserver o(&schedule, {1}, &latencies);
  for (const v1::ServerMessage& m :
       {Task(0), Stage(0, 1), Stage(0, 2), Stage(0, 3), Stage(0, 4), Result(0, true)}) {
    const client::StreamAction a = o.OnReceive(0, m);
    EXPECT_TRUE(a.deliver);
    EXPECT_FALSE(a.disconnect);
    EXPECT_EQ(a.delay, absl::ZeroDuration());
  }
  const auto s = latencies.Summaries();
  for (const char* series :
       {"advertise", "share_keys", "masked_input", "consistency", "unmasking", "round"}) {
    ASSERT_TRUE(s.count(series)) << series;
    EXPECT_EQ(s.at(series).count, 1u) << series;
  }
  const LoadCounters c = o.Counters();
  EXPECT_EQ(c.tasks, 1);
  EXPECT_EQ(c.DropsTotal(), 0);
  EXPECT_EQ(c.rounds_applied, 1);
  EXPECT_EQ(c.failed_attempts, 0);
}

// drop_masked = 1: the MaskedInput request and the rest of the round are withheld, the result
// is delivered, the next round's task is delivered again (and its MaskedInput withheld again).
TEST(LoadObserverTest, DroppingUserWithholdsTheRestOfItsRound) {
  ScheduleOptions options;
  options.drop[static_cast<int>(DropStage::kMaskedInput)] = 1;
  const LoadSchedule schedule(options);
  LatencyRecorder latencies;
  LoadObserver o(&schedule, {7}, &latencies);
  EXPECT_TRUE(o.OnReceive(0, Task(0)).deliver);
  EXPECT_TRUE(o.OnReceive(0, Stage(0, 1)).deliver);
  EXPECT_FALSE(o.OnReceive(0, Stage(0, 2)).deliver);
  EXPECT_FALSE(o.OnReceive(0, Stage(0, 4)).deliver);
  EXPECT_TRUE(o.OnReceive(0, Result(0, true)).deliver);
  EXPECT_TRUE(o.OnReceive(0, Task(1)).deliver);
  EXPECT_FALSE(o.OnReceive(0, Stage(1, 2)).deliver);
  EXPECT_TRUE(o.OnReceive(0, Result(1, false)).deliver);
  const LoadCounters c = o.Counters();
  EXPECT_EQ(c.tasks, 2);
  EXPECT_EQ(c.drops[static_cast<int>(DropStage::kMaskedInput)], 2);
  EXPECT_EQ(c.DropsTotal(), 2);
  EXPECT_EQ(c.rounds_applied, 1);
  EXPECT_EQ(c.failed_attempts, 1);
  // A dropped user's round is not a round sample.
  EXPECT_EQ(latencies.Summaries().count("round"), 0u);
}

// A user that dropped out of a failed attempt is back for the round's retry, whose drops are drawn
// afresh: with drop_masked = 0.5, a participant whose first attempt drops and whose second does
// not withholds the first attempt's rest and answers all of the retry.
TEST(LoadObserverTest, ARetriedAttemptDrawsItsDropsAfresh) {
  ScheduleOptions options;
  options.drop[static_cast<int>(DropStage::kMaskedInput)] = 0.5;
  const LoadSchedule schedule(options);
  uint32_t participant = 1;
  while (!schedule.Drops(participant, 0, 0, 0, DropStage::kMaskedInput) ||
         schedule.Drops(participant, 0, 1, 0, DropStage::kMaskedInput)) {
    ++participant;
  }
  LatencyRecorder latencies;
  LoadObserver o(&schedule, {participant}, &latencies);
  EXPECT_TRUE(o.OnReceive(0, Task(0, 0)).deliver);
  EXPECT_FALSE(o.OnReceive(0, Stage(0, 2)).deliver);
  EXPECT_FALSE(o.OnReceive(0, Stage(0, 4)).deliver);
  EXPECT_TRUE(o.OnReceive(0, Result(0, false)).deliver);
  for (const v1::ServerMessage& m : {Task(0, 1), Stage(0, 1), Stage(0, 2), Stage(0, 4)}) {
    EXPECT_TRUE(o.OnReceive(0, m).deliver) << m.ShortDebugString();
  }
  EXPECT_TRUE(o.OnReceive(0, Result(0, true)).deliver);
  const LoadCounters c = o.Counters();
  EXPECT_EQ(c.drops[static_cast<int>(DropStage::kMaskedInput)], 1);
  EXPECT_EQ(c.rounds_applied, 1);
  // The retry's round is a round sample.
  EXPECT_EQ(latencies.Summaries().at("round").count, 1u);
}

// drop_masked = 1 in phase 1 only: phase 0 runs whole, phase 1's MaskedInput and the rest of the
// round are withheld, and the next round's phase 0 runs whole again.
TEST(LoadObserverTest, DropPhaseWithholdsOnlyThatPhase) {
  ScheduleOptions options;
  options.drop[static_cast<int>(DropStage::kMaskedInput)] = 1;
  options.drop_phase = 1;
  const LoadSchedule schedule(options);
  LatencyRecorder latencies;
  LoadObserver o(&schedule, {7}, &latencies);
  for (int64_t round = 0; round < 2; ++round) {
    for (const v1::ServerMessage& m :
         {Task(round), Stage(round, 1), Stage(round, 2), Stage(round, 4), Result(round, true)}) {
      EXPECT_TRUE(o.OnReceive(0, InPhase(m, 0)).deliver) << m.ShortDebugString();
    }
    EXPECT_TRUE(o.OnReceive(0, InPhase(Task(round), 1)).deliver);
    EXPECT_TRUE(o.OnReceive(0, InPhase(Stage(round, 1), 1)).deliver);
    EXPECT_FALSE(o.OnReceive(0, InPhase(Stage(round, 2), 1)).deliver);
    EXPECT_FALSE(o.OnReceive(0, InPhase(Stage(round, 4), 1)).deliver);
    EXPECT_TRUE(o.OnReceive(0, InPhase(Result(round, true), 1)).deliver);
  }
  EXPECT_EQ(o.Counters().drops[static_cast<int>(DropStage::kMaskedInput)], 2);
  EXPECT_EQ(o.Counters().DropsTotal(), 2);
}

TEST(LoadObserverTest, DisconnectModeCutsTheStreamAtTheDrop) {
  ScheduleOptions options;
  options.drop[static_cast<int>(DropStage::kAdvertise)] = 1;
  options.disconnect_on_drop = true;
  const LoadSchedule schedule(options);
  LatencyRecorder latencies;
  LoadObserver o(&schedule, {9}, &latencies);
  const client::StreamAction a = o.OnReceive(0, Task(4));
  EXPECT_FALSE(a.deliver);
  EXPECT_TRUE(a.disconnect);
  EXPECT_EQ(o.Counters().drops[static_cast<int>(DropStage::kAdvertise)], 1);
  EXPECT_EQ(o.Counters().reconnects, 0);  // counted as a drop, not as a scheduled reconnect
}

TEST(LoadObserverTest, ReconnectingUserCutsItsStreamOnceFromItsRound) {
  ScheduleOptions options;
  options.reconnect_fraction = 1;
  options.reconnect_after = 2;
  const LoadSchedule schedule(options);
  LatencyRecorder latencies;
  LoadObserver o(&schedule, {3}, &latencies);
  EXPECT_FALSE(o.OnReceive(0, Result(1, true)).disconnect);  // before round 2
  EXPECT_TRUE(o.OnReceive(0, Task(2)).disconnect);           // mid-round
  EXPECT_FALSE(o.OnReceive(0, Task(3)).disconnect);          // only once
  const LoadCounters c = o.Counters();
  EXPECT_EQ(c.reconnects, 1);
  EXPECT_EQ(c.reconnects_in_round, 1);
}

TEST(LoadObserverTest, FinalResultNeverDisconnectsAndLatencyApplies) {
  ScheduleOptions options;
  options.reconnect_fraction = 1;
  options.reconnect_after = 0;
  options.extra_latency = {absl::Milliseconds(40), absl::Milliseconds(40)};
  const LoadSchedule schedule(options);
  LatencyRecorder latencies;
  LoadObserver o(&schedule, {3}, &latencies);
  const client::StreamAction a = o.OnReceive(0, Result(0, false, /*done=*/true));
  EXPECT_FALSE(a.disconnect);
  EXPECT_TRUE(a.deliver);
  EXPECT_EQ(a.delay, absl::Milliseconds(40));
  EXPECT_EQ(o.Counters().reconnects, 0);
  EXPECT_EQ(o.Counters().failed_attempts, 0);  // the run's closing result is not a round
}

// A registration (or Status call) is in the _unmasking series when it overlapped a window from
// the first Unmasking request to the round's result; CheckInLater messages are counted.
TEST(LoadObserverTest, RegistrationsOverlappingUnmaskingAndCheckInsAreCounted) {
  const LoadSchedule schedule{ScheduleOptions()};
  LatencyRecorder latencies;
  LoadObserver o(&schedule, {1, 2}, &latencies);
  const absl::Time before = absl::Now();
  o.OnRegistered(0, before - absl::Seconds(2), before - absl::Seconds(1));
  for (const v1::ServerMessage& m : {Task(0), Stage(0, 1), Stage(0, 2), Stage(0, 4)}) {
    o.OnReceive(0, m);
  }
  o.OnReceive(1, Stage(0, 4));  // a second user's request: the same window
  o.OnRegistered(1, before - absl::Seconds(1), absl::Now());
  o.OnReceive(0, Result(0, true));
  const absl::Time after = absl::Now();
  EXPECT_TRUE(o.OverlapsUnmasking(before - absl::Seconds(1), after));
  EXPECT_FALSE(o.OverlapsUnmasking(before - absl::Seconds(2), before - absl::Seconds(1)));
  EXPECT_FALSE(o.OverlapsUnmasking(after + absl::Seconds(1), after + absl::Seconds(2)));
  o.OnRegistered(1, after + absl::Seconds(1), after + absl::Seconds(2));
  const auto s = latencies.Summaries();
  ASSERT_TRUE(s.count("register"));
  EXPECT_EQ(s.at("register").count, 3u);
  ASSERT_TRUE(s.count("register_unmasking"));
  EXPECT_EQ(s.at("register_unmasking").count, 1u);

  v1::ServerMessage later;
  later.mutable_check_in_later()->set_retry_after_ms(100);
  EXPECT_TRUE(o.OnReceive(1, later).deliver);  // the host takes it
  EXPECT_EQ(o.Counters().check_ins, 1);
}

}  // namespace
}  // namespace fedmf::loadgen
