#include "common/algorithms/new_run.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/empty.pb.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

// The options of the test factories, which take none.
const google::protobuf::Empty kNoOptions;

// A factory that is registered but never started.
absl::StatusOr<NewRun> NeverStarted(const RunSettings&, const google::protobuf::Message&) {
  return absl::UnimplementedError("never started");
}

TEST(NewRunTest, StartsTheRegisteredFactoryWithTheSettings) {
  RunSettings seen;
  ASSERT_TRUE(
      RegisterNewRunFactory("new-run-test-echo", kNoOptions,
                            [&seen](const RunSettings& settings,
                                    const google::protobuf::Message&) -> absl::StatusOr<NewRun> {
                              seen = settings;
                              return NewRun{nullptr, {{"rounds", "7"}, {"k", "v"}}};
                            })
          .ok());
  const RunSettings settings{.num_users = 40,
                             .num_items = 30,
                             .rounds = 7,
                             .participation = 0.5,
                             .min_clients = 3,
                             .secure_aggregation = false,
                             .epsilon = 2,
                             .delta = 1e-5,
                             .seed = 9};
  absl::StatusOr<NewRun> run = StartNewRun("new-run-test-echo", settings, kNoOptions);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->log_fields, ElementsAre(Pair("rounds", "7"), Pair("k", "v")));
  EXPECT_EQ(seen.num_users, 40);
  EXPECT_EQ(seen.num_items, 30);
  EXPECT_EQ(seen.rounds, 7);
  EXPECT_EQ(seen.participation, 0.5);
  EXPECT_EQ(seen.min_clients, 3);
  EXPECT_FALSE(seen.secure_aggregation);
  EXPECT_EQ(seen.epsilon, 2);
  EXPECT_EQ(seen.delta, 1e-5);
  EXPECT_EQ(seen.seed, 9u);
}

TEST(NewRunTest, AlgorithmWithoutAFactoryCannotStart) {
  const absl::Status status =
      StartNewRun("new-run-test-absent", RunSettings{}, kNoOptions).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("'new-run-test-absent' cannot start a run"));
}

TEST(NewRunTest, OnlyAFactoryThatSaysSoStartsFromAPublishedModelsItemFactors) {
  RunSettings seen;
  ASSERT_TRUE(
      RegisterNewRunFactory(
          "new-run-test-warm", kNoOptions,
          [&seen](const RunSettings& settings,
                  const google::protobuf::Message&) -> absl::StatusOr<NewRun> {
            seen = settings;
            return NewRun{};
          },
          {.rounds = 3, .outlook_points = {}, .starts_from_item_factors = true})
          .ok());
  RunSettings settings;
  settings.start_item_factors = mf::FactorMatrix::Constant(4, 2, 0.5);
  ASSERT_TRUE(StartNewRun("new-run-test-warm", settings, kNoOptions).ok());
  ASSERT_TRUE(seen.start_item_factors.has_value());
  EXPECT_EQ(seen.start_item_factors->rows(), 4);
  EXPECT_EQ((*seen.start_item_factors)(3, 1), 0.5);
  EXPECT_TRUE(CheckStartsFromItemFactors("dpmf-rp").ok());

  const NewRunFactory factory = NeverStarted;
  ASSERT_TRUE(RegisterNewRunFactory("new-run-test-cold", kNoOptions, factory).ok());
  const absl::Status refused = StartNewRun("new-run-test-cold", settings, kNoOptions).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(),
              HasSubstr("'new-run-test-cold' cannot start from a published model"));
  EXPECT_THAT(refused.message(), HasSubstr("dp-als, dpmf-rp"));
  EXPECT_EQ(CheckStartsFromItemFactors("dp-popularity").code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(NewRunTest, RefusesASecondFactoryAndIncompleteOnes) {
  const NewRunFactory factory = NeverStarted;
  ASSERT_TRUE(RegisterNewRunFactory("new-run-test-twice", kNoOptions, factory).ok());
  const absl::Status again = RegisterNewRunFactory("new-run-test-twice", kNoOptions, factory);
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(again.message(),
            "new-run factory of algorithm 'new-run-test-twice' is registered twice");
  EXPECT_EQ(RegisterNewRunFactory("dpmf-rp", kNoOptions, factory).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(RegisterNewRunFactory("", kNoOptions, factory).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RegisterNewRunFactory("new-run-test-empty", kNoOptions, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(NewRunTest, KeepsAFactorysDefaultsAndRefusesBadOnes) {
  const NewRunFactory factory = NeverStarted;
  const std::vector<OutlookPoint> points = {{.noise_to_signal = 1, .f1_over_dp_popularity = 1.5},
                                            {.noise_to_signal = 3, .f1_over_dp_popularity = 0.8}};
  ASSERT_TRUE(RegisterNewRunFactory(
                  "new-run-test-defaults", kNoOptions, factory,
                  {.rounds = 2, .outlook_points = points, .starts_from_item_factors = true})
                  .ok());
  const NewRunDefaults kept = RegisteredNewRunDefaults("new-run-test-defaults");
  EXPECT_EQ(kept.rounds, 2);
  ASSERT_EQ(kept.outlook_points.size(), 2u);
  EXPECT_EQ(kept.outlook_points[1].noise_to_signal, 3);
  EXPECT_EQ(kept.outlook_points[1].f1_over_dp_popularity, 0.8);
  EXPECT_TRUE(kept.starts_from_item_factors);
  const NewRunDefaults absent = RegisteredNewRunDefaults("new-run-test-absent");
  EXPECT_EQ(absent.rounds, kDefaultRounds);
  EXPECT_TRUE(absent.outlook_points.empty());
  EXPECT_FALSE(absent.starts_from_item_factors);
  const absl::Status decreasing = RegisterNewRunFactory(
      "new-run-test-decreasing", kNoOptions, factory,
      {.rounds = 2, .outlook_points = {points[1], points[0]}, .starts_from_item_factors = false});
  EXPECT_EQ(decreasing.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(decreasing.message(), HasSubstr("outlook point 1"));
  EXPECT_EQ(
      RegisterNewRunFactory("new-run-test-no-rounds", kNoOptions, factory,
                            {.rounds = 0, .outlook_points = {}, .starts_from_item_factors = false})
          .code(),
      absl::StatusCode::kInvalidArgument);
}

// The registrar's factory takes the options message it is registered with.
absl::StatusOr<NewRun> NeverStartedWithEmpty(const RunSettings&, const google::protobuf::Empty&) {
  return absl::UnimplementedError("never started");
}

TEST(NewRunTest, RegistrarAbortsNamingADuplicate) {
  EXPECT_DEATH((NewRunRegistrar{"dpmf-rp", kNoOptions, NeverStartedWithEmpty}),
               "ALREADY_EXISTS: new-run factory of algorithm 'dpmf-rp' is registered twice");
}

TEST(NewRunTest, ARegistrarsFactoryTakesOnlyItsOptionsType) {
  const NewRunRegistrar registrar("new-run-test-typed", kNoOptions, NeverStartedWithEmpty);
  EXPECT_EQ(StartNewRun("new-run-test-typed", RunSettings{}, kNoOptions).status().code(),
            absl::StatusCode::kUnimplemented);  // reached the factory
  const absl::Status other =
      StartNewRun("new-run-test-typed", RunSettings{}, google::protobuf::Duration()).status();
  EXPECT_EQ(other.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(other.message(), HasSubstr("google.protobuf.Duration given where "
                                         "google.protobuf.Empty is expected"));
  ASSERT_TRUE(RegisteredDefaultOptions("new-run-test-typed").ok());
  EXPECT_EQ((*RegisteredDefaultOptions("new-run-test-typed"))->GetTypeName(),
            "google.protobuf.Empty");
  EXPECT_EQ(RegisteredDefaultOptions("new-run-test-absent").status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// The run-level settings local-DP algorithms share: the sampled cohort (rounded, at least one),
// n_min 1 unless --min_clients says more, and a pure-epsilon budget (--delta = 0).
TEST(NewRunTest, SharedSettingsOfLocalDpRuns) {
  RunSettings run{.num_users = 943, .participation = 0.1};
  EXPECT_EQ(SampledCohort(run), 94);
  run.participation = 0.0001;
  EXPECT_EQ(SampledCohort(run), 1);
  EXPECT_EQ(LocalDpMinContributors(run), 1);
  run.min_clients = 7;
  EXPECT_EQ(LocalDpMinContributors(run), 7);
  EXPECT_TRUE(RequirePureEpsilon(run, "x").ok());  // --delta unset
  run.delta = 0;
  EXPECT_TRUE(RequirePureEpsilon(run, "x").ok());
  run.delta = 1e-5;
  EXPECT_THAT(RequirePureEpsilon(run, "ldp-gd").message(),
              HasSubstr("ldp-gd: --delta=1e-05; its budget is pure epsilon (--delta=0 or unset)"));
  run.participation.reset();
  EXPECT_EQ(SampledCohort(run), 94);  // kDefaultParticipation
}

}  // namespace
}  // namespace fedmf::algorithms
