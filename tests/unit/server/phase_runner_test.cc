// RouterPhaseRunner with a fake PhaseTransport (the router) and a fake clock: the order of its
// calls to the transport, the stage deadline on the injected clock (no sleeping), and the use of
// the sum only once the aggregation is detached from the transport.
#include "server/phase_runner.h"

#include <map>
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

// A member's refusal of the plan: the Abort a client sends for a contributor's error.
struct Refusal {
  absl::StatusCode code;
  std::string reason;
};

// Every cohort member not in `silent` uploads (id, 1, 0) as soon as the task goes out, or, if
// it is in `refusals`, sends that refusal instead.
class FakeTransport final : public PhaseTransport {
 public:
  explicit FakeTransport(testing::FakeClock& clock, std::set<uint32_t> silent = {})
      : clock_(clock), silent_(std::move(silent)) {}

  absl::StatusOr<std::shared_ptr<const secagg::SigningKeyDirectory>> SigningKeys(
      const std::vector<uint32_t>&) override {
    return std::shared_ptr<const secagg::SigningKeyDirectory>(
        std::make_shared<secagg::MapSigningKeyDirectory>());
  }
  StageStart Open(Aggregation* aggregation, const v1::RoundTask& task) override {
    calls.push_back("open");
    tasks.push_back(task);
    attached = aggregation;
    for (uint32_t id : aggregation->cohort()) {
      if (silent_.contains(id)) continue;
      if (const auto refusal = refusals.find(id); refusal != refusals.end()) {
        v1::ParticipantToServer abort;
        abort.set_participant_id(id);
        abort.set_round(aggregation->tag().round);
        abort.set_phase(aggregation->tag().phase);
        abort.mutable_message()->mutable_abort()->set_reason(refusal->second.reason);
        abort.mutable_message()->mutable_abort()->set_refusal_code(
            static_cast<int32_t>(refusal->second.code));
        EXPECT_EQ(aggregation->DeliverSecAgg(id, abort).rejected, "");
        continue;
      }
      EXPECT_EQ(aggregation->DeliverClear(wire::ToClearUpload(
                    aggregation->tag(), id, algorithms::ContributionVector::Dense({id, 1, 0}))),
                "");
    }
    return Where();
  }
  void AwaitStageEnd(absl::Time deadline) override {
    calls.push_back("await");
    if (!attached->ReadyToClose()) clock_.AdvanceTo(deadline);
  }
  void SealStage(absl::Time deadline) override {
    seals.push_back({deadline, calls.size(), clock_.Now()});
  }
  void Suspend() override {
    calls.push_back("suspend");
    suspended = true;
  }
  StageStart Resume(Aggregation::Envelopes) override {
    calls.push_back("resume");
    suspended = false;
    return Where();
  }
  void Detach() override { attached = nullptr; }
  Traffic CurrentTraffic() const override { return {}; }
  void Broadcast(const v1::RoundResult& result) override { results.push_back(result); }
  bool Exclude(uint32_t participant_id, std::string) override {
    excluded.push_back(participant_id);
    return true;
  }

  // A SealStage call: its deadline, how many calls came before it, and when.
  struct Seal {
    absl::Time deadline;
    size_t after_calls;
    absl::Time at;
  };

  std::vector<std::string> calls;
  std::vector<Seal> seals;
  std::vector<v1::RoundTask> tasks;
  std::vector<v1::RoundResult> results;
  std::vector<uint32_t> excluded;
  std::map<uint32_t, Refusal> refusals;  // by member: its answer to the task, instead of an upload
  Aggregation* attached = nullptr;
  bool suspended = false;

 private:
  StageStart Where() {
    StageStart s{attached->Finished(), attached->StageName(), attached->DroppedSoFar()};
    if (s.finished) attached = nullptr;
    return s;
  }

  testing::FakeClock& clock_;
  const std::set<uint32_t> silent_;
};

struct RunnerHarness {
  explicit RunnerHarness(std::set<uint32_t> silent = {})
      : transport(clock, std::move(silent)),
        runner(transport, clock, absl::Seconds(20), metrics, board) {}

  testing::FakeClock clock;
  FakeTransport transport;
  CoordinatorMetrics metrics;
  StatusBoard board;
  RouterPhaseRunner runner;
};

PhaseSpec ClearSpec(int64_t n_min) {
  return PhaseSpec{.plan = testing::ClearPlan(0, n_min, 3), .min_inputs = n_min};
}

TEST(PhaseRunnerTest, TheSumIsUsedOnlyOnceTheAggregationIsDetachedAndTheResultGoesToAll) {
  RunnerHarness h;
  std::vector<uint64_t> used_sum;
  bool attached_during_use = true;
  absl::StatusOr<PhaseOutcome> outcome =
      h.runner.Run(ClearSpec(2), {1, 2, 3},
                   [&](const std::vector<uint64_t>& sum,
                       const std::vector<uint32_t>& contributors) -> absl::StatusOr<SumVerdict> {
                     attached_during_use = h.transport.attached != nullptr;
                     used_sum = sum;
                     EXPECT_THAT(contributors, ElementsAre(1, 2, 3));
                     return SumVerdict{.applied = true, .rounds_done = 1};
                   });
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_FALSE(attached_during_use);
  EXPECT_THAT(used_sum, ElementsAre(6, 3, 0));
  EXPECT_TRUE(outcome->applied);
  EXPECT_EQ(outcome->contributors, 3);
  // Everyone answered: the stage closed without its deadline.
  EXPECT_EQ(h.clock.Elapsed(), absl::ZeroDuration());
  // The stage closes between Suspend and Resume, never while the transport delivers.
  EXPECT_THAT(h.transport.calls, ElementsAre("open", "await", "suspend", "resume"));
  EXPECT_THAT(h.transport.tasks[0].participant_ids(), ElementsAre());  // the router lists them
  ASSERT_EQ(h.transport.results.size(), 1u);
  EXPECT_TRUE(h.transport.results[0].applied());
  EXPECT_EQ(h.transport.results[0].round(), 0);
  EXPECT_EQ(h.transport.results[0].rounds_completed(), 1);
  EXPECT_EQ(h.board.Read()->status.participants(), 3);
}

TEST(PhaseRunnerTest, ASilentMemberIsDroppedAtTheStageDeadlineOfTheInjectedClock) {
  RunnerHarness h({3});
  absl::StatusOr<PhaseOutcome> outcome =
      h.runner.Run(ClearSpec(2), {1, 2, 3},
                   [](const std::vector<uint64_t>& sum,
                      const std::vector<uint32_t>& contributors) -> absl::StatusOr<SumVerdict> {
                     EXPECT_THAT(sum, ElementsAre(3, 2, 0));
                     EXPECT_THAT(contributors, ElementsAre(1, 2));
                     return SumVerdict{.applied = true, .rounds_done = 1};
                   });
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(h.clock.Elapsed(), absl::Seconds(20));
  ASSERT_EQ(outcome->stage_seconds.size(), 1u);
  EXPECT_STREQ(outcome->stage_seconds[0].first, "clear_upload_s");
  EXPECT_EQ(outcome->stage_seconds[0].second, 20);
  EXPECT_THAT(outcome->lost, ElementsAre(3));
  EXPECT_EQ(h.board.Read()->status.dropouts(), 1);
}

// Each stage is sealed once its wait is over and before it is suspended, with the deadline the
// wait had (scale-out: the combiner tells fronts holding partial sums to send them).
TEST(PhaseRunnerTest, EachStageIsSealedWithItsDeadlineBetweenItsWaitAndItsSuspension) {
  RunnerHarness h({3});
  const absl::Time start = h.clock.Now();
  absl::StatusOr<PhaseOutcome> outcome = h.runner.Run(
      ClearSpec(2), {1, 2, 3},
      [](const std::vector<uint64_t>&, const std::vector<uint32_t>&) -> absl::StatusOr<SumVerdict> {
        return SumVerdict{.applied = true, .rounds_done = 1};
      });
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  ASSERT_THAT(h.transport.calls, ElementsAre("open", "await", "suspend", "resume"));
  ASSERT_EQ(h.transport.seals.size(), 1u);
  EXPECT_EQ(h.transport.seals[0].after_calls, 2u);  // after "await", before "suspend"
  EXPECT_EQ(h.transport.seals[0].deadline, start + absl::Seconds(20));
  EXPECT_EQ(h.transport.seals[0].at, start + absl::Seconds(20));  // 3 is silent: at the deadline
}

TEST(PhaseRunnerTest, TooFewInputsGiveNoSumAndAResultThatSaysWhy) {
  RunnerHarness h({2, 3});
  bool used = false;
  absl::StatusOr<PhaseOutcome> outcome =
      h.runner.Run(ClearSpec(2), {1, 2, 3},
                   [&](const std::vector<uint64_t>&,
                       const std::vector<uint32_t>&) -> absl::StatusOr<SumVerdict> {
                     used = true;
                     return SumVerdict{.applied = true};
                   });
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_FALSE(used);
  EXPECT_FALSE(outcome->applied);
  EXPECT_FALSE(outcome->reason.empty());
  ASSERT_EQ(h.transport.results.size(), 1u);
  EXPECT_FALSE(h.transport.results[0].applied());
  EXPECT_EQ(h.transport.results[0].reason(), outcome->reason);
}

TEST(PhaseRunnerTest, ALocalFailureOfTheSumsUseIsAnErrorAndDetachesTheAggregation) {
  RunnerHarness h;
  absl::StatusOr<PhaseOutcome> outcome = h.runner.Run(
      ClearSpec(2), {1, 2, 3},
      [](const std::vector<uint64_t>&, const std::vector<uint32_t>&) -> absl::StatusOr<SumVerdict> {
        return absl::DataLossError("checkpoint write failed");
      });
  EXPECT_EQ(outcome.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(h.transport.attached, nullptr);
  EXPECT_TRUE(h.transport.results.empty());
}

// A secure spec of `n` members (threshold 2, 4 values of 16 bits).
PhaseSpec SecureSpec(int n) {
  PhaseSpec spec = ClearSpec(2);
  spec.plan.set_combination(v1::COMBINATION_SECURE_SUM);
  spec.secagg = secagg::SessionConfig{.context = "phase-runner-test",
                                      .num_clients = n,
                                      .threshold = 2,
                                      .bits = 16,
                                      .length = 4,
                                      .graph = secagg::GraphKind::kComplete,
                                      .degree = 0,
                                      .signatures = false,
                                      .consistency_check = false};
  return spec;
}

absl::StatusOr<PhaseOutcome> RunUnused(RunnerHarness& h, const PhaseSpec& spec,
                                       std::vector<uint32_t> cohort) {
  return h.runner.Run(
      spec, std::move(cohort),
      [](const std::vector<uint64_t>&, const std::vector<uint32_t>&) -> absl::StatusOr<SumVerdict> {
        ADD_FAILURE() << "no sum was expected";
        return SumVerdict{};
      });
}

// Every member refuses the plan with one error (clear and secure): the phase ends at its first
// stage without waiting for its deadline, and reports that error, which the result names.
TEST(PhaseRunnerTest, APlanEveryMemberRefusesAlikeEndsWithinOneStageAndReportsTheRefusal) {
  for (const bool secure : {false, true}) {
    RunnerHarness h;
    for (uint32_t id : {1, 2, 3}) {
      h.transport.refusals[id] = {absl::StatusCode::kInvalidArgument,
                                  "vfl-sgdmf: contributions come from VFL silo parties"};
    }
    absl::StatusOr<PhaseOutcome> outcome =
        RunUnused(h, secure ? SecureSpec(3) : ClearSpec(2), {1, 2, 3});
    ASSERT_TRUE(outcome.ok()) << outcome.status();
    EXPECT_EQ(h.clock.Elapsed(), absl::ZeroDuration()) << "secure " << secure;
    EXPECT_EQ(outcome->stage_seconds.size(), 1u);
    EXPECT_FALSE(outcome->applied);
    ASSERT_TRUE(outcome->refusal.has_value());
    EXPECT_EQ(*outcome->refusal,
              absl::InvalidArgumentError("vfl-sgdmf: contributions come from VFL silo parties"));
    ASSERT_EQ(h.transport.results.size(), 1u);
    EXPECT_NE(h.transport.results[0].reason().find("every participant refused the plan"),
              std::string::npos)
        << h.transport.results[0].reason();
  }
}

// One client cannot end a run for the others: a member that uploads, stays silent, declines
// without a refusal code, refuses with another message or with a code no contributor's refusal
// has, leaves no refusal to report.
TEST(PhaseRunnerTest, ARefusalIsReportedOnlyWhenEveryMemberRefusesWithTheSameError) {
  const Refusal kVfl{absl::StatusCode::kInvalidArgument, "no users"};
  for (const std::optional<Refusal>& third : std::vector<std::optional<Refusal>>{
           std::nullopt,  // uploads, or is silent below
           Refusal{absl::StatusCode::kOk, "budget spent"},
           Refusal{absl::StatusCode::kInvalidArgument, "other"},
           Refusal{absl::StatusCode::kFailedPrecondition, "no users"},
           Refusal{absl::StatusCode::kUnauthenticated, "no users"}}) {
    for (const bool silent : {false, true}) {
      if (silent && third) continue;
      RunnerHarness h(silent ? std::set<uint32_t>{3} : std::set<uint32_t>{});
      h.transport.refusals[1] = kVfl;
      h.transport.refusals[2] = kVfl;
      if (third) h.transport.refusals[3] = *third;
      absl::StatusOr<PhaseOutcome> outcome =
          h.runner.Run(ClearSpec(1), {1, 2, 3},
                       [](const std::vector<uint64_t>&,
                          const std::vector<uint32_t>&) -> absl::StatusOr<SumVerdict> {
                         return SumVerdict{.applied = true, .rounds_done = 1};
                       });
      ASSERT_TRUE(outcome.ok()) << outcome.status();
      EXPECT_FALSE(outcome->refusal.has_value())
          << (third ? third->reason : "") << " silent " << silent;
    }
  }
}

TEST(PhaseRunnerTest, ASecureSpecGoesOutWithItsSessionParameters) {
  PhaseSpec spec = ClearSpec(2);
  spec.plan.set_combination(v1::COMBINATION_SECURE_SUM);
  EXPECT_TRUE(RoundTaskFor(spec).simulation_plain_sum());  // no session: plain-sum simulation
  spec.secagg.emplace();
  spec.secagg->num_clients = 3;
  spec.secagg->threshold = 2;
  const v1::RoundTask task = RoundTaskFor(spec);
  EXPECT_FALSE(task.simulation_plain_sum());
  EXPECT_TRUE(task.has_secagg());
  EXPECT_EQ(task.plan().round(), 0);
}

}  // namespace
}  // namespace fedmf::server
