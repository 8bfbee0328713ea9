// plan_check: each envelope field is compared and named, the contributor bounds are limits, and
// the payload is parsed only for the plan's own algorithm.
#include "common/algorithms/plan_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fedmf/v1/probe.pb.h"

namespace fedmf::algorithms {
namespace {

using ::testing::HasSubstr;

v1::RoundPlan Plan() {
  v1::RoundPlan plan;
  plan.set_algorithm("probe");
  plan.set_round(3);
  plan.set_phase(1);
  plan.set_length(40);
  plan.set_bits(20);
  plan.set_client_bits(20);
  plan.set_combination(v1::COMBINATION_SECURE_SUM);
  plan.set_min_contributors(10);
  plan.set_max_contributors(50);
  return plan;
}

ExpectedPlan Expected() {
  return {.round = 3,
          .phase = 1,
          .length = 40,
          .bits = 20,
          .combination = v1::COMBINATION_SECURE_SUM,
          .min_contributors_at_least = 10,
          .max_contributors_at_most = 50};
}

TEST(PlanCheckTest, AcceptsThePlanItsPhaseNeeds) {
  EXPECT_TRUE(CheckPlanEnvelope(Plan(), "probe", Expected()).ok());
}

TEST(PlanCheckTest, NamesEachDifferingFieldWithBothValues) {
  struct Case {
    const char* field;
    void (*alter)(v1::RoundPlan&);
    const char* message;
  };
  const Case cases[] = {
      {"round", [](v1::RoundPlan& p) { p.set_round(4); }, "round=4, expected 3"},
      {"phase", [](v1::RoundPlan& p) { p.set_phase(0); }, "phase=0, expected 1"},
      {"length", [](v1::RoundPlan& p) { p.set_length(41); }, "length=41, expected 40"},
      {"bits", [](v1::RoundPlan& p) { p.set_bits(21); }, "bits=21, expected 20"},
      {"client_bits", [](v1::RoundPlan& p) { p.set_client_bits(19); },
       "client_bits=19, expected 20"},
      {"combination", [](v1::RoundPlan& p) { p.set_combination(v1::COMBINATION_CLEAR); },
       "combination="},
      {"min", [](v1::RoundPlan& p) { p.set_min_contributors(9); },
       "min_contributors=9, expected at least 10"},
      {"max", [](v1::RoundPlan& p) { p.set_max_contributors(51); },
       "max_contributors=51, expected at most 50"},
  };
  for (const Case& c : cases) {
    v1::RoundPlan plan = Plan();
    c.alter(plan);
    const absl::Status s = CheckPlanEnvelope(plan, "probe", Expected());
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.field;
    EXPECT_THAT(s.message(), HasSubstr(std::string("probe round plan: ") + c.message)) << c.field;
  }
}

TEST(PlanCheckTest, ContributorBoundsAreLimitsAndUnsetOnesAreNotChecked) {
  v1::RoundPlan stricter = Plan();
  stricter.set_min_contributors(20);  // more contributors than needed, fewer than the wrap bound
  stricter.set_max_contributors(30);
  EXPECT_TRUE(CheckPlanEnvelope(stricter, "probe", Expected()).ok());
  ExpectedPlan unbounded = Expected();
  unbounded.min_contributors_at_least.reset();
  unbounded.max_contributors_at_most.reset();
  v1::RoundPlan any = Plan();
  any.set_min_contributors(0);
  any.set_max_contributors(1000);
  EXPECT_TRUE(CheckPlanEnvelope(any, "probe", unbounded).ok());
}

TEST(PlanCheckTest, ClientBitsMayDifferFromTheSumsBits) {
  v1::RoundPlan plan = Plan();
  plan.set_client_bits(12);
  ExpectedPlan expected = Expected();
  expected.client_bits = 12;
  EXPECT_TRUE(CheckPlanEnvelope(plan, "probe", expected).ok());
}

TEST(PlanCheckTest, ParsesThePayloadOnlyForItsOwnAlgorithm) {
  v1::ProbeBroadcast broadcast;
  broadcast.set_round(3);
  v1::RoundPlan plan = Plan();
  plan.set_payload(broadcast.SerializeAsString());
  absl::StatusOr<v1::ProbeBroadcast> parsed = ParsePlanPayload<v1::ProbeBroadcast>(plan, "probe");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->round(), 3);

  absl::StatusOr<v1::ProbeBroadcast> other = ParsePlanPayload<v1::ProbeBroadcast>(plan, "hdpmf");
  EXPECT_THAT(other.status().message(),
              HasSubstr("round plan is for algorithm 'probe', not hdpmf"));

  plan.set_payload("\xff\xff not a protobuf");
  absl::StatusOr<v1::ProbeBroadcast> garbled = ParsePlanPayload<v1::ProbeBroadcast>(plan, "probe");
  EXPECT_THAT(garbled.status().message(),
              HasSubstr("probe round plan: payload is not a ProbeBroadcast"));
}

}  // namespace
}  // namespace fedmf::algorithms
