#include "server/run_service.h"

#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "server/run_queue.h"
#include "server/shared_run_queue.h"
#include "tests/unit/server/test_dir.h"

namespace fedmf::server {
namespace {

// Polls `done` every 10 ms until it holds: bounded by the test's CTest timeout.
void WaitUntil(const std::function<bool()>& done) {
  while (!done()) absl::SleepFor(absl::Milliseconds(10));
}

// Records each Execute; a run in `block` waits until it is stopped, the others return at once
// with the status `answers` holds for them (OK when none).
class FakeExecutor final : public RunExecutor {
 public:
  absl::Status Execute(const v1::RunRecord& run, const std::string& dir) override {
    std::unique_lock<std::mutex> lock(mu_);
    executed.push_back({run.id(), dir});
    if (blocked_ids.contains(run.id())) {
      running = run.id();
      cv_.wait(lock, [&] { return stopped.contains(run.id()); });
      running = 0;
      return absl::CancelledError("stopped");
    }
    auto it = answers.find(run.id());
    return it == answers.end() ? absl::OkStatus() : it->second;
  }
  void Stop(int64_t id) override {
    std::lock_guard<std::mutex> lock(mu_);
    stopped.insert(id);
    cv_.notify_all();
  }
  int64_t Running() {
    std::lock_guard<std::mutex> lock(mu_);
    return running;
  }
  std::vector<std::pair<int64_t, std::string>> Executed() {
    std::lock_guard<std::mutex> lock(mu_);
    return executed;
  }

  std::set<int64_t> blocked_ids;
  std::map<int64_t, absl::Status> answers;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::pair<int64_t, std::string>> executed;
  std::set<int64_t> stopped;
  int64_t running = 0;
};

v1::RunSpec QueuedSpec() {
  v1::RunSpec spec;
  spec.set_algorithm("dpmf-rp");
  spec.set_rounds(1);
  spec.set_num_users(40);
  spec.set_num_items(30);
  return spec;
}

// Queues two runs, 1 and 2, as `identity`.
void SubmitTwo(SharedRunQueue& queue, absl::string_view identity) {
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(queue.Submit(QueuedSpec(), identity).ok());
}

// RunService::Serve on its own thread until Stop (Shutdown, join): Serve's status.
class Serving {
 public:
  explicit Serving(RunService& service)
      : service_(service), loop_([this] { served_ = service_.Serve(); }) {}
  ~Serving() {
    if (loop_.joinable()) Stop().IgnoreError();  // a failed test already said why
  }
  absl::Status Stop() {
    service_.Shutdown();
    loop_.join();
    return served_;
  }

 private:
  RunService& service_;
  absl::Status served_;
  std::thread loop_;
};

class RunServiceTest : public TestDirTest {
 protected:
  std::unique_ptr<SharedRunQueue> Open() {
    return std::make_unique<SharedRunQueue>(RunQueue::Open(dir_).value());
  }
  static v1::RunState StateOf(const SharedRunQueue& queue, int64_t id) {
    const v1::ListRunsResponse list = queue.List();
    for (const v1::RunRecord& run : list.runs()) {
      if (run.id() == id) return run.state();
    }
    return v1::RUN_STATE_UNSPECIFIED;
  }
};

TEST_F(RunServiceTest, RunsSubmittedWhileServingRunOneAfterTheOtherEachInItsDirectory) {
  std::unique_ptr<SharedRunQueue> queue = Open();
  FakeExecutor executor;
  RunService service(*queue, executor);
  Serving serving(service);
  SubmitTwo(*queue, "admin");
  WaitUntil([&] { return StateOf(*queue, 2) == v1::RUN_STATE_DONE; });
  EXPECT_TRUE(serving.Stop().ok());
  EXPECT_EQ(StateOf(*queue, 1), v1::RUN_STATE_DONE);
  const std::vector<std::pair<int64_t, std::string>> expected = {{1, dir_ + "/runs/1"},
                                                                 {2, dir_ + "/runs/2"}};
  EXPECT_EQ(executor.Executed(), expected);
}

TEST_F(RunServiceTest, AFailedRunIsRecordedWithItsErrorAndTheNextOneRuns) {
  std::unique_ptr<SharedRunQueue> queue = Open();
  FakeExecutor executor;
  executor.answers[1] = absl::AbortedError("5 rounds failed in a row");
  SubmitTwo(*queue, "");
  RunService service(*queue, executor);
  testing::internal::CaptureStderr();
  Serving serving(service);
  WaitUntil([&] { return StateOf(*queue, 2) == v1::RUN_STATE_DONE; });
  EXPECT_TRUE(serving.Stop().ok());
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(StateOf(*queue, 1), v1::RUN_STATE_FAILED);
  EXPECT_EQ(queue->List().runs(0).detail(), "ABORTED: 5 rounds failed in a row");
  EXPECT_NE(
      log.find("event=run_end id=1 state=failed detail=\"ABORTED: 5 rounds failed in a row\""),
      std::string::npos)
      << log;
  EXPECT_NE(log.find("event=run_end id=2 state=done"), std::string::npos) << log;
}

TEST_F(RunServiceTest, CancelStopsTheRunningRunAndTheQueueGoesOn) {
  std::unique_ptr<SharedRunQueue> queue = Open();
  FakeExecutor executor;
  executor.blocked_ids = {1};
  SubmitTwo(*queue, "");
  RunService service(*queue, executor);
  Serving serving(service);
  WaitUntil([&] { return executor.Running() == 1; });
  service.Poll();  // nothing asked: the run goes on
  EXPECT_EQ(service.running_id(), 1);
  ASSERT_TRUE(queue->Cancel(1, "admin").ok());
  service.Poll();
  WaitUntil([&] { return StateOf(*queue, 2) == v1::RUN_STATE_DONE; });
  EXPECT_TRUE(serving.Stop().ok());
  EXPECT_EQ(StateOf(*queue, 1), v1::RUN_STATE_CANCELLED);
  EXPECT_EQ(queue->List().runs(0).detail(), "cancelled by admin while running");
}

TEST_F(RunServiceTest, ShutdownLeavesTheRunRunningAndARestartResumesItFirst) {
  {
    std::unique_ptr<SharedRunQueue> queue = Open();
    FakeExecutor executor;
    executor.blocked_ids = {1};
    SubmitTwo(*queue, "");
    RunService service(*queue, executor);
    Serving serving(service);
    WaitUntil([&] { return executor.Running() == 1; });
    EXPECT_TRUE(serving.Stop().ok());
    EXPECT_EQ(StateOf(*queue, 1), v1::RUN_STATE_RUNNING);
    EXPECT_EQ(StateOf(*queue, 2), v1::RUN_STATE_QUEUED);
  }
  std::unique_ptr<SharedRunQueue> queue = Open();  // the restarted process
  FakeExecutor executor;
  RunService service(*queue, executor);
  Serving serving(service);
  WaitUntil([&] { return StateOf(*queue, 2) == v1::RUN_STATE_DONE; });
  EXPECT_TRUE(serving.Stop().ok());
  EXPECT_EQ(StateOf(*queue, 1), v1::RUN_STATE_DONE);
  ASSERT_EQ(executor.Executed().size(), 2);
  EXPECT_EQ(executor.Executed()[0].first, 1);  // resumed before the queued run 2
}

TEST_F(RunServiceTest, AnIdleServiceShutsDownAtOnce) {
  std::unique_ptr<SharedRunQueue> queue = Open();
  FakeExecutor executor;
  RunService service(*queue, executor);
  const absl::Time start = absl::Now();
  Serving serving(service);
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_TRUE(serving.Stop().ok());
  // Woken, not left to its idle recheck.
  EXPECT_LT(absl::Now() - start, RunService::kIdleRecheck);
  EXPECT_TRUE(executor.Executed().empty());
}

}  // namespace
}  // namespace fedmf::server
