#include "server/run_queue.h"

#include <filesystem>
#include <string>

#include "absl/time/time.h"
#include "common/util/atomic_file.h"
#include "gtest/gtest.h"
#include "tests/unit/server/test_dir.h"

namespace fedmf::server {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

v1::RunSpec Spec(int64_t rounds) {
  v1::RunSpec spec;
  spec.set_algorithm("dpmf-rp");
  spec.set_rounds(rounds);
  return spec;
}

class RunQueueTest : public TestDirTest {
 protected:
  // A restart: the queue as the next process loads it.
  RunQueue Reload() {
    absl::StatusOr<RunQueue> queue = RunQueue::Open(dir_);
    EXPECT_TRUE(queue.ok()) << queue.status();
    return *std::move(queue);
  }
};

TEST_F(RunQueueTest, StartsEmptyWithoutAFile) {
  RunQueue queue = Reload();
  EXPECT_TRUE(queue.runs().empty());
  EXPECT_EQ(queue.Running(), nullptr);
  EXPECT_EQ(queue.path(), dir_ + "/runs/queue.pb");
  EXPECT_FALSE(std::filesystem::exists(queue.path()));  // nothing written until a change
  absl::StatusOr<std::optional<v1::RunRecord>> next = queue.Next(kT0);
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_FALSE(next->has_value());
}

TEST_F(RunQueueTest, SubmitNumbersRunsAndDefaultsTheirRunId) {
  RunQueue queue = Reload();
  absl::StatusOr<v1::RunRecord> first = queue.Submit(Spec(3), "admin", kT0);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->id(), 1);
  EXPECT_EQ(first->state(), v1::RUN_STATE_QUEUED);
  EXPECT_EQ(first->spec().run_id(), "run-1");
  EXPECT_EQ(first->spec().rounds(), 3);
  EXPECT_EQ(first->submitted_by(), "admin");
  EXPECT_EQ(first->submitted_unix_ms(), absl::ToUnixMillis(kT0));
  v1::RunSpec named = Spec(5);
  named.set_run_id("nightly");
  absl::StatusOr<v1::RunRecord> second = queue.Submit(named, "", kT0);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->id(), 2);
  EXPECT_EQ(second->spec().run_id(), "nightly");
  EXPECT_EQ(queue.RunDir(2), dir_ + "/runs/2");
}

TEST_F(RunQueueTest, RefusesARunIdAnotherRunHas) {
  RunQueue queue = Reload();
  ASSERT_TRUE(queue.Submit(Spec(1), "", kT0).ok());  // run-1
  v1::RunSpec clash = Spec(1);
  clash.set_run_id("run-1");
  absl::StatusOr<v1::RunRecord> refused = queue.Submit(clash, "", kT0);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("run_id=\"run-1\" is run 1's"), std::string::npos)
      << refused.status();
  EXPECT_EQ(queue.runs().size(), 1);
}

TEST_F(RunQueueTest, RunsOneAtATimeInSubmissionOrder) {
  RunQueue queue = Reload();
  ASSERT_TRUE(queue.Submit(Spec(1), "", kT0).ok());
  ASSERT_TRUE(queue.Submit(Spec(2), "", kT0).ok());
  absl::StatusOr<std::optional<v1::RunRecord>> next = queue.Next(kT0 + absl::Seconds(1));
  ASSERT_TRUE(next.ok() && next->has_value());
  EXPECT_EQ((*next)->id(), 1);
  EXPECT_EQ((*next)->state(), v1::RUN_STATE_RUNNING);
  EXPECT_EQ((*next)->started_unix_ms(), absl::ToUnixMillis(kT0 + absl::Seconds(1)));
  // Until it finishes, Next is still run 1.
  next = queue.Next(kT0 + absl::Seconds(2));
  ASSERT_TRUE(next.ok() && next->has_value());
  EXPECT_EQ((*next)->id(), 1);
  EXPECT_EQ(queue.Finish(2, v1::RUN_STATE_DONE, "", kT0).code(),
            absl::StatusCode::kFailedPrecondition);  // not the running one
  EXPECT_EQ(queue.Finish(1, v1::RUN_STATE_QUEUED, "", kT0).code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(queue.Finish(1, v1::RUN_STATE_DONE, "rounds done", kT0 + absl::Seconds(3)).ok());
  EXPECT_EQ(queue.Find(1)->state(), v1::RUN_STATE_DONE);
  EXPECT_EQ(queue.Find(1)->detail(), "rounds done");
  EXPECT_EQ(queue.Find(1)->finished_unix_ms(), absl::ToUnixMillis(kT0 + absl::Seconds(3)));
  next = queue.Next(kT0);
  ASSERT_TRUE(next.ok() && next->has_value());
  EXPECT_EQ((*next)->id(), 2);
  ASSERT_TRUE(queue.Finish(2, v1::RUN_STATE_FAILED, "ABORTED: too many failed rounds", kT0).ok());
  next = queue.Next(kT0);
  ASSERT_TRUE(next.ok());
  EXPECT_FALSE(next->has_value());
}

TEST_F(RunQueueTest, CancelEndsAQueuedRunAndAsksARunningOneToStop) {
  RunQueue queue = Reload();
  ASSERT_TRUE(queue.Submit(Spec(1), "", kT0).ok());
  ASSERT_TRUE(queue.Submit(Spec(1), "", kT0).ok());
  ASSERT_TRUE(queue.Next(kT0).ok());  // run 1 runs
  absl::StatusOr<v1::RunRecord> queued = queue.Cancel(2, "admin", kT0);
  ASSERT_TRUE(queued.ok()) << queued.status();
  EXPECT_EQ(queued->state(), v1::RUN_STATE_CANCELLED);
  EXPECT_EQ(queued->detail(), "cancelled by admin");
  absl::StatusOr<v1::RunRecord> running = queue.Cancel(1, "admin", kT0);
  ASSERT_TRUE(running.ok()) << running.status();
  EXPECT_EQ(running->state(), v1::RUN_STATE_RUNNING);
  EXPECT_TRUE(running->cancel_requested());
  ASSERT_TRUE(queue.Finish(1, v1::RUN_STATE_CANCELLED, "", kT0).ok());
  EXPECT_EQ(queue.Find(1)->detail(), "cancelled by admin while running");
  EXPECT_EQ(queue.Cancel(1, "", kT0).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(queue.Cancel(9, "", kT0).status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<std::optional<v1::RunRecord>> next = queue.Next(kT0);
  ASSERT_TRUE(next.ok());
  EXPECT_FALSE(next->has_value());  // the cancelled run 2 never starts
}

TEST_F(RunQueueTest, ARestartKeepsTheQueueAndResumesTheRunningRun) {
  {
    RunQueue queue = Reload();
    ASSERT_TRUE(queue.Submit(Spec(1), "admin", kT0).ok());
    ASSERT_TRUE(queue.Submit(Spec(2), "admin", kT0).ok());
    ASSERT_TRUE(queue.Submit(Spec(3), "admin", kT0).ok());
    ASSERT_TRUE(queue.Next(kT0).ok());
    ASSERT_TRUE(queue.Finish(1, v1::RUN_STATE_DONE, "", kT0).ok());
    ASSERT_TRUE(queue.Next(kT0).ok());  // run 2 runs when the process dies
  }
  RunQueue queue = Reload();
  ASSERT_EQ(queue.runs().size(), 3);
  EXPECT_EQ(queue.Find(1)->state(), v1::RUN_STATE_DONE);
  ASSERT_NE(queue.Running(), nullptr);
  EXPECT_EQ(queue.Running()->id(), 2);
  absl::StatusOr<std::optional<v1::RunRecord>> next = queue.Next(kT0);
  ASSERT_TRUE(next.ok() && next->has_value());
  EXPECT_EQ((*next)->id(), 2);  // resumed, not run 3
  EXPECT_EQ(queue.Find(3)->state(), v1::RUN_STATE_QUEUED);
  // Ids are never reused.
  absl::StatusOr<v1::RunRecord> fourth = queue.Submit(Spec(1), "", kT0);
  ASSERT_TRUE(fourth.ok());
  EXPECT_EQ(fourth->id(), 4);
}

TEST_F(RunQueueTest, InMemoryQueueWritesNothing) {
  absl::StatusOr<RunQueue> queue = RunQueue::Open("");
  ASSERT_TRUE(queue.ok()) << queue.status();
  ASSERT_TRUE(queue->Submit(Spec(1), "", kT0).ok());
  EXPECT_EQ(queue->path(), "");
  EXPECT_EQ(queue->RunDir(1), "");
}

TEST_F(RunQueueTest, ACorruptQueueIsAnErrorNamingTheFile) {
  const std::string path = dir_ + "/runs/queue.pb";
  std::filesystem::create_directories(dir_ + "/runs");
  ASSERT_TRUE(WriteFileAtomically(path, "\xff\xff not a proto").ok());
  absl::StatusOr<RunQueue> queue = RunQueue::Open(dir_);
  EXPECT_EQ(queue.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(queue.status().message().find(path), std::string::npos) << queue.status();
}

TEST_F(RunQueueTest, AnInconsistentQueueIsAnErrorNamingTheFileAndTheFault) {
  const std::string path = dir_ + "/runs/queue.pb";
  std::filesystem::create_directories(dir_ + "/runs");
  const auto expect_refused = [&](const v1::RunQueueState& state, const std::string& fault) {
    ASSERT_TRUE(WriteFileAtomically(path, state.SerializeAsString()).ok());
    absl::StatusOr<RunQueue> queue = RunQueue::Open(dir_);
    EXPECT_EQ(queue.status().code(), absl::StatusCode::kDataLoss) << fault;
    EXPECT_NE(queue.status().message().find(path + ": " + fault), std::string::npos)
        << queue.status();
  };
  v1::RunQueueState state;
  state.set_next_id(3);
  state.add_runs()->set_id(1);
  state.mutable_runs(0)->set_state(v1::RUN_STATE_RUNNING);
  state.add_runs()->set_id(2);
  state.mutable_runs(1)->set_state(v1::RUN_STATE_RUNNING);
  expect_refused(state, "2 runs are running");
  state.mutable_runs(1)->set_state(v1::RUN_STATE_UNSPECIFIED);
  expect_refused(state, "run 2 has no valid state");
  state.mutable_runs(1)->set_state(v1::RUN_STATE_QUEUED);
  state.mutable_runs(1)->set_id(1);
  expect_refused(state, "run id 1 is not above the previous one");
  state.mutable_runs(1)->set_id(3);
  expect_refused(state, "run id 3 is not below next_id 3");
}

TEST(RunRecordLineTest, OneLineOfKeyValuePairs) {
  v1::RunRecord record;
  record.set_id(3);
  record.set_state(v1::RUN_STATE_RUNNING);
  record.mutable_spec()->set_algorithm("dpmf-rp");
  record.mutable_spec()->set_run_id("run-3");
  record.set_submitted_unix_ms(absl::ToUnixMillis(kT0));
  record.set_cancel_requested(true);
  record.set_detail("cancelled by \"ops\" while running");
  EXPECT_EQ(RunRecordLine(record),
            "run id=3 state=running run_id=run-3 algorithm=dpmf-rp rounds=default "
            "submitted_by=- submitted=2027-01-15T08:00:00Z started=- finished=- "
            "cancel_requested=true detail=\"cancelled by \\\"ops\\\" while running\"");
}

}  // namespace
}  // namespace fedmf::server
