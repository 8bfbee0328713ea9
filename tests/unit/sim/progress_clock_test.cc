// ProgressClock: time stands still while work is pending and runs with the base clock otherwise,
// so a wait for a deadline cannot end it while a client still computes.
#include "tools/sim/progress_clock.h"

#include <condition_variable>
#include <mutex>

#include "gtest/gtest.h"
#include "tests/unit/server/fake_clock.h"

namespace fedmf::sim {
namespace {

TEST(ProgressClockTest, RunsWithTheBaseClockWhenIdle) {
  server::testing::FakeClock base;
  ProgressClock clock(base);
  const absl::Time start = clock.Now();
  base.Advance(absl::Seconds(3));
  EXPECT_EQ(clock.Now() - start, absl::Seconds(3));
}

TEST(ProgressClockTest, StandsStillWhileWorkIsPending) {
  server::testing::FakeClock base;
  ProgressClock clock(base);
  base.Advance(absl::Seconds(1));
  const absl::Time start = clock.Now();
  clock.WorkAdded(2);
  base.Advance(absl::Seconds(50));
  EXPECT_EQ(clock.Now(), start);
  clock.WorkDone(1);
  base.Advance(absl::Seconds(50));
  EXPECT_EQ(clock.Now(), start);  // one unit still pending
  clock.WorkDone(1);
  base.Advance(absl::Seconds(2));
  EXPECT_EQ(clock.Now() - start, absl::Seconds(2));
  // A second stretch of work is subtracted as well.
  clock.WorkAdded(1);
  base.Advance(absl::Seconds(7));
  clock.WorkDone(1);
  EXPECT_EQ(clock.Now() - start, absl::Seconds(2));
}

// The fake base clock's wait lets its deadline pass at once: idle, that is this clock's deadline
// too; with work pending, this clock has not moved and the caller must wait again.
TEST(ProgressClockTest, AWaitReachesTheDeadlineOnlyWhenIdle) {
  server::testing::FakeClock base;
  ProgressClock clock(base);
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock<std::mutex> lock(mu);
  const absl::Time start = clock.Now();
  clock.WorkAdded(1);
  clock.WaitUntil(cv, lock, start + absl::Seconds(20));
  EXPECT_EQ(clock.Now(), start);
  clock.WorkDone(1);
  clock.WaitUntil(cv, lock, start + absl::Seconds(20));
  EXPECT_EQ(clock.Now(), start + absl::Seconds(20));
}

}  // namespace
}  // namespace fedmf::sim
