// RoundDriver with a fake Roster (the router), a fake PhaseRunner and a fake clock: the round
// loop, waiting for users and the backoff after failed rounds on the injected clock (no
// sleeping), what it publishes on the StatusBoard and tells the clients at the end.
#include "server/round_driver.h"

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/server/clear_plan.h"
#include "tests/unit/server/fake_clock.h"

namespace fedmf::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

// One phase a round, clear cohorts of 2..3, no noise; ApplySum moves to the next round.
class CountingUpdater final : public algorithms::Updater {
 public:
  int64_t round() const override { return round_; }
  absl::StatusOr<v1::RoundPlan> Plan() const override { return testing::ClearPlan(round_, 2, 3); }
  absl::Status ApplySum(absl::Span<const uint64_t>, absl::Span<const uint32_t>) override {
    ++round_;
    return absl::OkStatus();
  }
  absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t, const std::vector<double>&) const override {
    return std::nullopt;
  }
  std::optional<dp::PrivacyBudget> budget() const override { return std::nullopt; }
  absl::StatusOr<std::string> SerializeState() const override { return std::string(); }

 private:
  int64_t round_ = 0;
};

class FakeRoster final : public Roster {
 public:
  explicit FakeRoster(testing::FakeClock& clock) : clock_(clock) {}

  std::vector<uint32_t> EligibleUsers() const override {
    std::vector<uint32_t> eligible;
    for (uint32_t u : users) {
      if (u > excluded) eligible.push_back(u);  // the lowest ids are the excluded ones
    }
    return eligible;
  }
  int64_t ExcludedCount() const override { return excluded; }
  uint64_t Generation() const override { return generation; }
  void AwaitChange(uint64_t, absl::Time deadline) override {
    clock_.AdvanceTo(deadline);
    if (on_wait) on_wait();
  }
  bool AwaitStop(absl::Time deadline) override {
    pauses.push_back(deadline - clock_.Now());
    clock_.AdvanceTo(deadline);
    if (on_wait) on_wait();
    return stop;
  }
  bool stopped() const override { return stop || cancelled; }
  bool run_cancelled() const override { return cancelled; }
  void Broadcast(const v1::RoundResult& result) override { broadcasts.push_back(result); }
  int CloseAll(const absl::Status& status) override {
    closed_with.push_back(status.code());
    return 1;
  }
  void ReleaseRound() override {
    if (on_release) on_release();
  }

  std::vector<uint32_t> users;
  uint32_t excluded = 0;  // ids 1..excluded
  uint64_t generation = 0;
  bool stop = false;
  bool cancelled = false;  // a run stop without a process stop
  std::function<void()> on_wait;     // after each wait
  std::function<void()> on_release;  // at each ReleaseRound
  std::vector<absl::Duration> pauses;
  std::vector<v1::RoundResult> broadcasts;
  std::vector<absl::StatusCode> closed_with;

 private:
  testing::FakeClock& clock_;
};

// Applies a zero sum of every cohort, or fails every phase.
class FakeRunner final : public PhaseRunner {
 public:
  absl::StatusOr<PhaseOutcome> Run(const PhaseSpec& spec, std::vector<uint32_t> cohort,
                                   const SumUse& use) override {
    cohorts.push_back(cohort);
    PhaseOutcome outcome{.participants = static_cast<int64_t>(cohort.size())};
    if (!refusals.empty()) {  // every member refuses alike: the next refusal, then the last
      outcome.refusal = refusals.front();
      if (refusals.size() > 1) refusals.erase(refusals.begin());
      outcome.reason =
          absl::StrCat("every participant refused the plan: ", outcome.refusal->ToString());
      return outcome;
    }
    if (fail) {
      outcome.reason = "fake failure";
      return outcome;
    }
    absl::StatusOr<SumVerdict> verdict =
        use(std::vector<uint64_t>(static_cast<size_t>(spec.plan.length()), 0), cohort);
    if (!verdict.ok()) return verdict.status();
    outcome.applied = verdict->applied;
    outcome.contributors = outcome.participants;
    return outcome;
  }

  bool fail = false;
  std::vector<absl::Status> refusals;  // of the attempts, in order (the last repeats)
  std::vector<std::vector<uint32_t>> cohorts;
};

struct DriverHarness {
  explicit DriverHarness(int64_t rounds, std::vector<uint32_t> users, int max_failed_rounds = 0)
      : roster(clock) {
    roster.users = std::move(users);
    options.num_users = 10;
    options.max_failed_rounds = max_failed_rounds;
    driver = std::make_unique<RoundDriver>(
        options,
        CoordinatorState{"counting", std::make_unique<CountingUpdater>(),
                         dp::PrivacyLedger::Create().value(), 1, rounds, FixedPopulation()},
        roster, runner, clock, board);
  }

  testing::FakeClock clock;
  FakeRoster roster;
  FakeRunner runner;
  StatusBoard board;
  CoordinatorOptions options;
  std::unique_ptr<RoundDriver> driver;
};

TEST(RoundDriverTest, RunsEveryRoundThenTellsEveryClientAndPublishesDone) {
  DriverHarness h(3, {1, 2, 3, 4, 5});
  EXPECT_EQ(h.board.Read()->status.stage(), "starting");
  ASSERT_TRUE(h.driver->Run().ok());
  ASSERT_THAT(h.runner.cohorts, SizeIs(3));
  for (const std::vector<uint32_t>& cohort : h.runner.cohorts) EXPECT_THAT(cohort, SizeIs(3));
  EXPECT_EQ(h.board.Read()->status.stage(), "done");
  EXPECT_EQ(h.board.Read()->status.round(), 3);
  ASSERT_THAT(h.roster.broadcasts, SizeIs(1));
  EXPECT_TRUE(h.roster.broadcasts[0].training_done());
  EXPECT_EQ(h.roster.broadcasts[0].rounds_completed(), 3);
  EXPECT_TRUE(h.roster.broadcasts[0].has_final_model());
  EXPECT_EQ(h.clock.Elapsed(), absl::ZeroDuration());  // nothing waited
}

TEST(RoundDriverTest, WaitsForACohortOnTheInjectedClockWithoutSleeping) {
  DriverHarness h(1, {1});
  h.roster.on_wait = [&h] {
    h.roster.users.push_back(static_cast<uint32_t>(h.roster.users.size() + 1));
    ++h.roster.generation;
  };
  ASSERT_TRUE(h.driver->Run().ok());
  // Two one-second waits until 3 users were live.
  EXPECT_EQ(h.clock.Elapsed(), absl::Seconds(2));
  ASSERT_THAT(h.runner.cohorts, SizeIs(1));
  EXPECT_THAT(h.runner.cohorts[0], ElementsAre(1, 2, 3));
}

// Excluded participants never come back: the cohort is drawn from the others instead of waiting
// for a size only they could fill, and a run left with fewer than n_min ends with the reason.
TEST(RoundDriverTest, ExclusionsShrinkTheCohortInsteadOfWaitingForever) {
  DriverHarness h(2, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  h.roster.excluded = 8;  // ids 1..8: 2 of the 10 left, the plan's 2 to 3 contributors
  ASSERT_TRUE(h.driver->Run().ok());
  ASSERT_THAT(h.runner.cohorts, SizeIs(2));
  for (const std::vector<uint32_t>& cohort : h.runner.cohorts)
    EXPECT_THAT(cohort, ElementsAre(9, 10));
  EXPECT_EQ(h.clock.Elapsed(), absl::ZeroDuration());  // nothing waited

  DriverHarness few(1, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  few.roster.excluded = 9;
  const absl::Status s = few.driver->Run();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("9 of the 10 participants are excluded: the 1 left are fewer "
                                     "than round 0's min_contributors 2"));
}

// Before each cohort is drawn the driver releases the last round's users: with check-in they
// are sent away, so the next cohort comes from the other devices.
TEST(RoundDriverTest, TheLastRoundsUsersAreReleasedBeforeTheNextCohortIsDrawn) {
  DriverHarness h(2, {1, 2, 3, 4, 5, 6});
  int releases = 0;
  h.roster.on_release = [&h, &releases] {
    ++releases;
    if (h.runner.cohorts.empty()) return;
    std::erase_if(h.roster.users,
                  [&h](uint32_t u) { return absl::c_linear_search(h.runner.cohorts.back(), u); });
  };
  ASSERT_TRUE(h.driver->Run().ok());
  EXPECT_EQ(releases, 2);
  ASSERT_THAT(h.runner.cohorts, SizeIs(2));
  for (uint32_t u : h.runner.cohorts[1]) {
    EXPECT_FALSE(absl::c_linear_search(h.runner.cohorts[0], u)) << u;
  }
}

TEST(RoundDriverTest, FailedRoundsPauseWithAGrowingBackoffOnTheInjectedClock) {
  DriverHarness h(1, {1, 2, 3});
  h.runner.fail = true;
  h.roster.on_wait = [&h] { h.roster.stop = h.roster.pauses.size() == 3; };
  ASSERT_TRUE(h.driver->Run().ok());
  // Pauses start after RoundDriver::kRetriesBeforeBackoff failures in a row, and double.
  EXPECT_THAT(h.roster.pauses, ElementsAre(absl::Seconds(1), absl::Seconds(2), absl::Seconds(4)));
  EXPECT_EQ(h.clock.Elapsed(), absl::Seconds(7));
  const v1::StatusResponse status = h.board.Read()->status;
  EXPECT_EQ(status.failed_rounds_in_a_row(), 7);
  EXPECT_EQ(status.last_failure(), "fake failure");
  // Stopped before the end of training: the clients reconnect to the restart.
  EXPECT_EQ(status.stage(), "stopped");
  EXPECT_THAT(h.roster.closed_with, ElementsAre(absl::StatusCode::kUnavailable));
  EXPECT_TRUE(h.roster.broadcasts.empty());
}

// A cancelled run (the service's CancelRun) is over for its clients: they are told, not asked to
// reconnect, and the final model is not published as a completed run's.
TEST(RoundDriverTest, ACancelledRunTellsItsClientsItIsOverInsteadOfEndingTheirStreams) {
  DriverHarness h(1, {1, 2, 3});
  h.runner.fail = true;
  h.roster.on_wait = [&h] { h.roster.cancelled = h.roster.pauses.size() == 1; };
  const absl::Status s = h.driver->Run();
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(h.roster.closed_with.empty());
  ASSERT_THAT(h.roster.broadcasts, SizeIs(1));
  EXPECT_TRUE(h.roster.broadcasts[0].training_done());
  EXPECT_EQ(h.roster.broadcasts[0].reason(), "run cancelled");
  EXPECT_FALSE(h.roster.broadcasts[0].has_final_model_version());
  EXPECT_EQ(h.board.Read()->status.stage(), "done");
}

TEST(RoundDriverTest, TooManyFailedRoundsInARowAbortTheRun) {
  DriverHarness h(1, {1, 2, 3}, /*max_failed_rounds=*/2);
  h.runner.fail = true;
  EXPECT_EQ(h.driver->Run().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(h.runner.cohorts, SizeIs(2));
}

// Every member of two attempts in a row refuses the plan alike (e.g. a silo-party algorithm run
// with users): the run ends after the second attempt, with no pause or deadline between them on
// the injected clock, returning that error and telling every client why.
TEST(RoundDriverTest, TheSameRefusalByEveryMemberTwiceInARowEndsTheRunWithIt) {
  DriverHarness h(5, {1, 2, 3});
  h.runner.refusals = {absl::InvalidArgumentError("vfl-sgdmf: contributions come from parties")};
  h.roster.on_wait = [&h] { h.roster.stop = true; };  // a retrying driver stops at its first pause
  const absl::Status run = h.driver->Run();
  EXPECT_EQ(run.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(run.message(), HasSubstr("refused the plan: vfl-sgdmf: contributions come from"));
  EXPECT_THAT(h.runner.cohorts, SizeIs(2));
  EXPECT_EQ(h.clock.Elapsed(), absl::ZeroDuration());
  ASSERT_THAT(h.roster.broadcasts, SizeIs(1));
  EXPECT_TRUE(h.roster.broadcasts[0].training_done());
  EXPECT_EQ(h.roster.broadcasts[0].reason(), run.message());
  EXPECT_EQ(h.board.Read()->status.stage(), "done");
}

// A refusal that changes between attempts, or an attempt in between that failed otherwise, is
// retried as any failed round.
TEST(RoundDriverTest, DifferentRefusalsInARowAreRetriedLikeOtherFailures) {
  DriverHarness h(1, {1, 2, 3}, /*max_failed_rounds=*/4);
  h.runner.refusals = {absl::InvalidArgumentError("a"), absl::FailedPreconditionError("a"),
                       absl::InvalidArgumentError("b"), absl::InvalidArgumentError("a")};
  EXPECT_EQ(h.driver->Run().code(), absl::StatusCode::kAborted);  // 4 failed rounds in a row
  EXPECT_THAT(h.runner.cohorts, SizeIs(4));
}

}  // namespace
}  // namespace fedmf::server
