#include "server/coordinator_setup.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/algorithms/registry.h"
#include "common/algorithms/start_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

ABSL_DECLARE_FLAG(std::string, algorithm);
ABSL_DECLARE_FLAG(std::string, state_dir);
ABSL_DECLARE_FLAG(std::vector<std::string>, set);
ABSL_DECLARE_FLAG(std::string, config);
ABSL_DECLARE_FLAG(std::optional<int64_t>, rounds);
ABSL_DECLARE_FLAG(uint64_t, seed);
ABSL_DECLARE_FLAG(int64_t, max_plan_bytes);
ABSL_DECLARE_FLAG(std::optional<int64_t>, start_from_version);

namespace fedmf::server {
namespace {

using ::testing::HasSubstr;

// An algorithm with its own ranking options and no new-run factory, whose checkpoints hold a
// DPMF-RP updater.
constexpr char kOther[] = "setup-test-other";
const algorithms::AlgorithmRegistrar kOtherRegistrar({
    .name = kOther,
    .doc = "another algorithm",
    .hosting = algorithms::Hosting::kUsers,
    .ranking = {.top_n = 20, .relevance_threshold = 3.5},
    .make_contributor = [](const v1::RoundPlan& plan) { return algorithms::MakeContributor(plan); },
    .restore_updater =
        [](absl::string_view state) { return algorithms::RestoreUpdater("dpmf-rp", state); },
});

// Every test starts from the flags' defaults with --set mechanism=none (no calibration: fast).
class CoordinatorSetupTest : public ::testing::Test {
 protected:
  void SetUp() override { absl::SetFlag(&FLAGS_set, {"mechanism=none"}); }

  absl::FlagSaver restore_flags_after_test_;
};

TEST_F(CoordinatorSetupTest, UsageListsTheAlgorithms) {
  const std::string usage = UsageWithAlgorithms("fedmf-test: trains");
  EXPECT_EQ(usage, absl::StrCat("fedmf-test: trains\n\nAlgorithms (--algorithm=NAME, default "
                                "dpmf-rp; `describe NAME` lists its options, for --config and "
                                "--set):\n",
                                absl::StripSuffix(algorithms::DescribeAlgorithms(), "\n")));
  EXPECT_THAT(usage, HasSubstr("\n  setup-test-other  another algorithm"));
}

TEST_F(CoordinatorSetupTest, UnknownAlgorithmIsNotFoundListingTheKnownOnes) {
  absl::SetFlag(&FLAGS_algorithm, "no-such-algorithm");
  for (const absl::Status& status :
       {CoordinatorOptionsFromFlags().status(), InitialStateFromFlags(40, 30).status()}) {
    EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
    EXPECT_THAT(
        status.message(),
        HasSubstr("unknown algorithm 'no-such-algorithm' (known: dp-als, dp-popularity, dpmf-rp"));
  }
}

TEST_F(CoordinatorSetupTest, EvaluationRanksWithTheAlgorithmsOptions) {
  absl::StatusOr<CoordinatorOptions> options = CoordinatorOptionsFromFlags();
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->eval_ranking.top_n, metrics::kDpmfRpRanking.top_n);
  EXPECT_EQ(options->eval_ranking.relevance_threshold, metrics::kDpmfRpRanking.relevance_threshold);
  absl::SetFlag(&FLAGS_algorithm, kOther);
  options = CoordinatorOptionsFromFlags();
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->eval_ranking.top_n, 20);
  EXPECT_EQ(options->eval_ranking.relevance_threshold, 3.5);
}

// --max_plan_bytes: 1 GiB by default, raised up to protobuf's INT_MAX, refused outside
// [64 MiB, INT_MAX] naming the flag and value.
TEST_F(CoordinatorSetupTest, PlanBoundDefaultsToOneGibAndIsValidated) {
  absl::StatusOr<CoordinatorOptions> options = CoordinatorOptionsFromFlags();
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->max_plan_bytes, uint64_t{1073741824});
  absl::SetFlag(&FLAGS_max_plan_bytes, 2147483647);
  options = CoordinatorOptionsFromFlags();
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->max_plan_bytes, uint64_t{2147483647});
  for (const int64_t bad : {int64_t{2147483648}, int64_t{(64 << 20) - 1}}) {
    absl::SetFlag(&FLAGS_max_plan_bytes, bad);
    const absl::Status status = CoordinatorOptionsFromFlags().status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), HasSubstr(absl::StrCat("--max_plan_bytes=", bad)));
  }
}

TEST_F(CoordinatorSetupTest, FreshRunOfTheDefaultAlgorithm) {
  absl::SetFlag(&FLAGS_rounds, 3);
  absl::SetFlag(&FLAGS_seed, 11);
  absl::StatusOr<CoordinatorState> state = InitialStateFromFlags(40, 30);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->algorithm, "dpmf-rp");
  EXPECT_EQ(state->updater->round(), 0);
  EXPECT_EQ(state->total_rounds, 3);
  EXPECT_EQ(state->sampling_seed, 11u);
  EXPECT_EQ(state->updater->Plan().value().algorithm(), "dpmf-rp");
  EXPECT_THAT(state->options, HasSubstr("mechanism: MECHANISM_NONE"));
}

// Options that do not parse are refused before any data is loaded (RunOfProcess), and
// naming the field.
TEST_F(CoordinatorSetupTest, BadOptionsAreRefusedAtStart) {
  EXPECT_TRUE(RunOfProcess().status().ok());
  absl::SetFlag(&FLAGS_set, {"mechanism=none", "no_such_option=2"});
  for (const absl::Status& status :
       {RunOfProcess().status(), InitialStateFromFlags(40, 30).status()}) {
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), HasSubstr("--set no_such_option=2: "));
  }
  absl::SetFlag(&FLAGS_set, {});
  absl::SetFlag(&FLAGS_config, "/nonexistent/options.textproto");
  EXPECT_EQ(RunOfProcess().status().code(), absl::StatusCode::kNotFound);
}

// A run resumes with the options it started with; other --set values are refused naming both.
TEST_F(CoordinatorSetupTest, AResumedRunKeepsItsOptions) {
  const std::string dir =
      (std::filesystem::path(::testing::TempDir()) / "coordinator_setup_options").string();
  std::filesystem::remove_all(dir);
  absl::SetFlag(&FLAGS_set, {"mechanism=none", "rank=3"});
  absl::StatusOr<CoordinatorState> fresh = InitialStateFromFlags(40, 30);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  ASSERT_TRUE(SaveCheckpoint(dir, *fresh).ok());
  absl::SetFlag(&FLAGS_state_dir, dir);
  absl::StatusOr<CoordinatorState> resumed = InitialStateFromFlags(40, 30);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(resumed->options, fresh->options);
  absl::SetFlag(&FLAGS_set, {"mechanism=none", "rank=4"});
  const absl::Status refused = InitialStateFromFlags(40, 30).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("rank: 3"));
  EXPECT_THAT(refused.message(), HasSubstr("rank: 4"));
  std::filesystem::remove_all(dir);
}

// The item factors a run's plan gives its users.
mf::FactorMatrix PlannedItemFactors(const CoordinatorState& state) {
  absl::StatusOr<v1::RoundPlan> plan = state.updater->Plan();
  EXPECT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<mf::FactorMatrix> v = algorithms::PublishedItemFactors(*plan);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : mf::FactorMatrix();
}

// start_from_version: 0 is the newest final model, N is version N; a missing one is named with
// the versions the store keeps, and a process without a store refuses.
TEST_F(CoordinatorSetupTest, AWarmStartedRunStartsFromThePublishedModelItNames) {
  absl::SetFlag(&FLAGS_seed, 3);
  absl::StatusOr<ProcessRun> earlier = RunOfProcess();
  ASSERT_TRUE(earlier.ok()) << earlier.status();
  absl::StatusOr<CoordinatorState> first = InitialStateInDir(*earlier, 40, 30, "");
  ASSERT_TRUE(first.ok()) << first.status();
  std::shared_ptr<ModelStore> store = ModelStore::Open({}).value();
  v1::ModelVersion info;
  info.set_run_id("run-1");
  info.set_algorithm("dpmf-rp");
  info.set_final(true);
  ASSERT_TRUE(store->Publish(info, first->updater->Plan().value()).ok());
  info.set_final(false);
  info.set_round(1);
  ASSERT_TRUE(store->Publish(info, first->updater->Plan().value()).ok());  // version 2, not final

  absl::SetFlag(&FLAGS_seed, 9);
  absl::SetFlag(&FLAGS_start_from_version, 0);
  absl::StatusOr<ProcessRun> warm = RunOfProcess();
  ASSERT_TRUE(warm.ok()) << warm.status();
  testing::internal::CaptureStderr();
  absl::StatusOr<CoordinatorState> started =
      InitialStateInDir(*warm, 40, 30, "", false, store.get());
  const std::string log = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(started.ok()) << started.status();
  EXPECT_TRUE(PlannedItemFactors(*started).isApprox(PlannedItemFactors(*first)));
  EXPECT_THAT(log, HasSubstr("start_model_version=1 start_model_run_id=run-1"));

  absl::StatusOr<StartModel> named = StartItemFactors(warm->spec, store.get());
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(named->version.version(), 1);
  warm->spec.set_start_from_version(2);
  named = StartItemFactors(warm->spec, store.get());
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(named->version.version(), 2);
  warm->spec.set_start_from_version(7);
  const absl::Status missing = InitialStateInDir(*warm, 40, 30, "", false, store.get()).status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.message(), HasSubstr("start_from_version=7: the model store holds no such "
                                           "version (it keeps versions 1, 2)"));
  const absl::Status no_store = InitialStateInDir(*warm, 40, 30, "").status();
  EXPECT_EQ(no_store.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(no_store.message(), HasSubstr("no model store"));
  std::shared_ptr<ModelStore> empty = ModelStore::Open({}).value();
  warm->spec.set_start_from_version(0);
  EXPECT_THAT(StartItemFactors(warm->spec, empty.get()).status().message(),
              HasSubstr("holds no final model (it keeps none)"));
}

// A queued run's directory and the service's model store are parameters, not --state_dir.
TEST_F(CoordinatorSetupTest, ARunInItsOwnDirectoryResumesThereWithTheGivenModelStore) {
  const std::string dir =
      (std::filesystem::path(::testing::TempDir()) / "coordinator_setup_run_dir").string();
  std::filesystem::remove_all(dir);
  absl::SetFlag(&FLAGS_state_dir, dir + "/elsewhere");
  absl::StatusOr<ProcessRun> run = RunOfProcess();
  ASSERT_TRUE(run.ok()) << run.status();
  const std::string run_dir = dir + "/runs/1";
  absl::StatusOr<CoordinatorState> fresh = InitialStateInDir(*run, 40, 30, run_dir);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  ASSERT_TRUE(SaveCheckpoint(run_dir, *fresh).ok());
  testing::internal::CaptureStderr();
  absl::StatusOr<CoordinatorState> resumed = InitialStateInDir(*run, 40, 30, run_dir);
  const std::string log = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_THAT(log, HasSubstr(absl::StrCat("event=resume state_dir=", run_dir)));
  std::shared_ptr<ModelStore> store = ModelStore::Open({}).value();
  absl::StatusOr<CoordinatorOptions> options = CoordinatorOptionsForRun(run->spec, run_dir, store);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->state_dir, run_dir);
  EXPECT_EQ(options->models, store);
  EXPECT_FALSE(std::filesystem::exists(dir + "/elsewhere"));  // --state_dir was not used
  std::filesystem::remove_all(dir);
}

TEST_F(CoordinatorSetupTest, RoundsDefaultToTheAlgorithms) {
  absl::SetFlag(&FLAGS_rounds, std::nullopt);
  absl::StatusOr<CoordinatorState> dpmf = InitialStateFromFlags(40, 30);
  ASSERT_TRUE(dpmf.ok()) << dpmf.status();
  EXPECT_EQ(dpmf->total_rounds, 100);
  absl::SetFlag(&FLAGS_set, {});  // the others have no option `mechanism`
  absl::SetFlag(&FLAGS_algorithm, "dp-als");
  absl::StatusOr<CoordinatorState> als = InitialStateFromFlags(40, 30);
  ASSERT_TRUE(als.ok()) << als.status();
  EXPECT_EQ(als->total_rounds, 2);
  absl::SetFlag(&FLAGS_algorithm, "dp-popularity");
  absl::StatusOr<CoordinatorState> popularity = InitialStateFromFlags(40, 30);
  ASSERT_TRUE(popularity.ok()) << popularity.status();
  EXPECT_EQ(popularity->total_rounds, 1);
}

TEST_F(CoordinatorSetupTest, AlgorithmWithoutANewRunFactoryCannotStart) {
  absl::SetFlag(&FLAGS_algorithm, kOther);
  const absl::Status status = InitialStateFromFlags(40, 30).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("cannot start a run"));
}

TEST_F(CoordinatorSetupTest, ResumesOnlyTheCheckpointsAlgorithm) {
  absl::StatusOr<CoordinatorState> fresh = InitialStateFromFlags(40, 30);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  fresh->algorithm = kOther;
  fresh->options.clear();  // kOther has no options
  const std::string dir =
      (std::filesystem::path(::testing::TempDir()) / "coordinator_setup_resume").string();
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(SaveCheckpoint(dir, *fresh).ok());
  absl::SetFlag(&FLAGS_state_dir, dir);

  const absl::Status refused = InitialStateFromFlags(40, 30).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(),
              HasSubstr("is a run of algorithm 'setup-test-other', not of --algorithm=dpmf-rp; "
                        "resume it with --algorithm=setup-test-other"));

  absl::SetFlag(&FLAGS_algorithm, kOther);
  absl::StatusOr<CoordinatorState> resumed = InitialStateFromFlags(40, 30);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(resumed->algorithm, kOther);
  EXPECT_EQ(resumed->updater->SerializeState().value(), fresh->updater->SerializeState().value());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fedmf::server
