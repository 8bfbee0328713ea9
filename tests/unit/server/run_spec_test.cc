#include "server/run_spec.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/options.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "server/checkpoint.h"
#include "server/coordinator_setup.h"

ABSL_DECLARE_FLAG(std::string, run);
ABSL_DECLARE_FLAG(std::string, algorithm);
ABSL_DECLARE_FLAG(std::string, state_dir);
ABSL_DECLARE_FLAG(std::vector<std::string>, set);
ABSL_DECLARE_FLAG(std::optional<int64_t>, rounds);
ABSL_DECLARE_FLAG(std::optional<double>, delta);
ABSL_DECLARE_FLAG(double, epsilon);
ABSL_DECLARE_FLAG(double, dropout_fraction);
ABSL_DECLARE_FLAG(int64_t, min_clients);
ABSL_DECLARE_FLAG(int64_t, wait_for_users);
ABSL_DECLARE_FLAG(std::string, eval_every);
ABSL_DECLARE_FLAG(std::string, run_id);
ABSL_DECLARE_FLAG(std::string, secagg_graph);
ABSL_DECLARE_FLAG(int32_t, secagg_degree);
ABSL_DECLARE_FLAG(bool, secagg_signatures);
ABSL_DECLARE_FLAG(uint64_t, seed);

namespace fedmf::server {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

// Every test starts from the flags' defaults.
class RunSpecTest : public ::testing::Test {
 protected:
  // Writes `text` to a fresh file named `name` in the test's temporary directory.
  static std::string WriteFile(const std::string& name, const std::string& text) {
    const std::string path = (std::filesystem::path(::testing::TempDir()) / name).string();
    std::ofstream(path) << text;
    return path;
  }

  // A small run on the command line: no noise (fast), and a value for most kinds of flag.
  static void SetRunFlags() {
    absl::SetFlag(&FLAGS_set, {"mechanism=none", "rank=3"});
    absl::SetFlag(&FLAGS_rounds, 4);
    absl::SetFlag(&FLAGS_delta, 1e-6);
    absl::SetFlag(&FLAGS_epsilon, 2.5);
    absl::SetFlag(&FLAGS_dropout_fraction, 0.4);
    absl::SetFlag(&FLAGS_min_clients, 5);
    absl::SetFlag(&FLAGS_wait_for_users, 30);
    absl::SetFlag(&FLAGS_eval_every, "3");
    absl::SetFlag(&FLAGS_run_id, "run-7");
    absl::SetFlag(&FLAGS_secagg_graph, "harary");
    absl::SetFlag(&FLAGS_secagg_degree, 8);
    absl::SetFlag(&FLAGS_secagg_signatures, false);
    absl::SetFlag(&FLAGS_seed, 11);
  }

  // The flags' defaults again (what --run needs besides itself).
  static void ResetRunFlags() {
    for (const std::string& name : RunFlagNames()) {
      absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
      ASSERT_NE(flag, nullptr) << name;
      std::string error;
      ASSERT_TRUE(flag->ParseFrom(flag->DefaultValue(), &error)) << name << ": " << error;
    }
  }

  absl::FlagSaver restore_flags_after_test_;
};

// The flags make a spec whose text reads back as the same spec and whose coordinator options are
// the flags' values.
TEST_F(RunSpecTest, FlagsMakeASpecThatRoundTrips) {
  SetRunFlags();
  absl::StatusOr<v1::RunSpec> spec = RunSpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->algorithm(), "dpmf-rp");
  EXPECT_THAT(spec->options(), HasSubstr("mechanism: MECHANISM_NONE"));
  EXPECT_THAT(spec->options(), HasSubstr("rank: 3"));
  EXPECT_TRUE(spec->set().empty());
  EXPECT_EQ(spec->rounds(), 4);
  EXPECT_FALSE(spec->has_participation());
  EXPECT_EQ(spec->secagg_graph(), v1::RunSpec::SECAGG_GRAPH_HARARY);
  EXPECT_TRUE(ValidateRunSpec(*spec).ok());

  absl::StatusOr<v1::RunSpec> read =
      ReadRunSpec(WriteFile("round_trip.textproto", RunSpecText(*spec)));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(MessageDifferencer::Equals(*read, *spec)) << RunSpecText(*read);

  absl::StatusOr<CoordinatorOptions> options = CoordinatorOptionsForRun(*read);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->dropout_fraction, 0.4);
  EXPECT_EQ(options->wait_for_users, 30);
  EXPECT_EQ(options->eval_every, 3);
  EXPECT_EQ(options->run_id, "run-7");
  EXPECT_EQ(options->secagg_graph, GraphMode::kHarary);
  EXPECT_EQ(options->harary_degree, 8);
  EXPECT_FALSE(options->signatures);
  EXPECT_TRUE(options->consistency_check);
  EXPECT_EQ(options->corrupt_fraction, 0.05);
  EXPECT_EQ(options->report_delta, 1e-6);
  const algorithms::RunSettings settings = RunSettingsOf(*read, 40, 30);
  EXPECT_EQ(settings.rounds, 4);
  EXPECT_EQ(settings.epsilon, 2.5);
  EXPECT_EQ(settings.delta, 1e-6);
  EXPECT_EQ(settings.min_clients, 5);
  EXPECT_EQ(settings.seed, 11u);
  EXPECT_FALSE(settings.participation.has_value());
}

// A flag value the spec cannot hold is refused naming the flag.
TEST_F(RunSpecTest, FlagsThatDoNotParseAreNamed) {
  absl::SetFlag(&FLAGS_secagg_graph, "sparse");
  absl::Status status = RunSpecFromFlags().status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("--secagg_graph: secagg graph 'sparse' is not one of auto, complete"));
  absl::SetFlag(&FLAGS_secagg_graph, "complete");
  absl::SetFlag(&FLAGS_eval_every, "often");
  status = RunSpecFromFlags().status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("--eval_every must be auto or a whole number"));
  absl::SetFlag(&FLAGS_eval_every, "auto");
  absl::StatusOr<v1::RunSpec> spec = RunSpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(SecAggGraphMode(*spec), GraphMode::kComplete);
  EXPECT_FALSE(spec->has_eval_every());
}

// An empty file is the defaults of every field but the algorithm, which is required.
TEST_F(RunSpecTest, UnsetFieldsAreTheFlagsDefaults) {
  v1::RunSpec spec;
  spec.set_algorithm("dpmf-rp");
  absl::StatusOr<CoordinatorOptions> from_spec = CoordinatorOptionsForRun(spec);
  absl::StatusOr<CoordinatorOptions> from_flags = CoordinatorOptionsFromFlags();
  ASSERT_TRUE(from_spec.ok()) << from_spec.status();
  ASSERT_TRUE(from_flags.ok()) << from_flags.status();
  EXPECT_EQ(from_spec->dropout_fraction, from_flags->dropout_fraction);
  EXPECT_EQ(from_spec->eval_every, CoordinatorOptions::kEvalEveryAuto);
  EXPECT_EQ(from_spec->run_id, "fedmf");
  EXPECT_EQ(from_spec->corrupt_fraction, from_flags->corrupt_fraction);
  EXPECT_EQ(from_spec->signatures, from_flags->signatures);
  EXPECT_EQ(from_spec->consistency_check, from_flags->consistency_check);
  const algorithms::RunSettings settings = RunSettingsOf(spec, 40, 30);
  EXPECT_EQ(settings.epsilon, 1);
  EXPECT_EQ(settings.seed, 1u);
  EXPECT_EQ(settings.rounds, 100);
  EXPECT_TRUE(settings.secure_aggregation);
  EXPECT_EQ(settings.rating_scale.min, 1);
  EXPECT_EQ(settings.rating_scale.max, 5);

  const absl::Status empty = ValidateRunSpec(v1::RunSpec(), "empty.textproto");
  EXPECT_EQ(empty.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.message(), HasSubstr("empty.textproto: algorithm is required"));
}

// A file that does not parse is named with the line and column; so is an unknown field, by name.
TEST_F(RunSpecTest, FileErrorsNameLineAndColumn) {
  const std::string syntax =
      WriteFile("syntax.textproto", "algorithm: \"dpmf-rp\"\nrounds: 3\nepsilon 2 }\n");
  absl::Status status = ReadRunSpec(syntax).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(absl::StrCat(syntax, ":3:")));

  const std::string unknown =
      WriteFile("unknown.textproto", "algorithm: \"dpmf-rp\"\n  no_such_field: 3\n");
  status = ReadRunSpec(unknown).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(absl::StrCat(unknown, ":2:16: ")));
  EXPECT_THAT(status.message(), HasSubstr("no_such_field"));

  const std::string type = WriteFile("type.textproto", "rounds: \"many\"\n");
  status = ReadRunSpec(type).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(absl::StrCat(type, ":1:9: ")));

  EXPECT_EQ(ReadRunSpec("/nonexistent/run.textproto").status().code(), absl::StatusCode::kNotFound);
}

// Every bad value is named with its field, all in one error; flags are named as flags.
TEST_F(RunSpecTest, ValidationNamesEveryBadFieldAndValue) {
  v1::RunSpec spec;
  spec.set_algorithm("dpmf-rp");
  spec.set_rounds(0);
  spec.set_epsilon(-1);
  spec.set_delta(1);
  spec.set_participation(0);
  spec.set_min_clients(-2);
  spec.set_dropout_fraction(1.5);
  spec.set_max_failed_rounds(-1);
  spec.set_wait_for_users(-3);
  spec.set_num_users(-4);
  spec.set_num_items(-5);
  spec.set_eval_every(-6);
  spec.set_eval_participation(2);
  spec.set_publish_every(-7);
  spec.set_secagg_graph(static_cast<v1::RunSpec::SecAggGraph>(9));
  spec.set_corrupt_fraction(1);
  spec.set_secagg_degree(3);
  spec.set_rating_min(5);
  spec.set_rating_max(1);
  spec.set_options("rank: \"three\"");
  spec.set_start_from_version(-1);
  const absl::Status status = ValidateRunSpec(spec, "bad.textproto");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  for (const char* complaint : {"bad.textproto: ",
                                "rounds=0 (need >= 1)",
                                "epsilon=-1 (need >= 0)",
                                "delta=1 (need [0, 1))",
                                "participation=0 (need (0, 1])",
                                "min_clients=-2 (need >= 0)",
                                "dropout_fraction=1.5 (need [0, 1))",
                                "max_failed_rounds=-1 (need >= 0)",
                                "wait_for_users=-3 (need >= 0)",
                                "num_users=-4 (need >= 0)",
                                "num_items=-5 (need >= 0)",
                                "eval_every=-6 (need >= 0)",
                                "eval_participation=2 (need [0, 1])",
                                "publish_every=-7 (need >= 0)",
                                "secagg_graph=9 ",
                                "corrupt_fraction=1 (need [0, 1))",
                                "secagg_degree=3 (need 0 or an even number >= 2)",
                                "rating_min=5, rating_max=1 (need rating_min < rating_max)",
                                "options: options:1:7: ",
                                "start_from_version=-1 (need >= 0)"}) {
    EXPECT_THAT(status.message(), HasSubstr(complaint));
  }

  spec.Clear();
  spec.set_algorithm("dpmf-rp");
  spec.add_set("no_such_option=2");
  EXPECT_THAT(ValidateRunSpec(spec).message(), HasSubstr("options: --set no_such_option=2: "));
  spec.clear_set();
  spec.set_rounds(-1);
  EXPECT_THAT(ValidateRunSpec(spec).message(), HasSubstr("--rounds=-1 (need >= 1)"));

  // Only an algorithm whose model is item factors starts from a published model.
  spec.Clear();
  spec.set_algorithm("dp-popularity");
  spec.set_start_from_version(0);
  EXPECT_THAT(ValidateRunSpec(spec, "warm.textproto").message(),
              HasSubstr("start_from_version=0: algorithm 'dp-popularity' cannot start from a "
                        "published model; these can: dp-als, dpmf-rp"));
  spec.set_algorithm("dp-als");
  EXPECT_TRUE(ValidateRunSpec(spec).ok());
}

// The options of a spec: the whole message (a field left out is zero), then the overrides.
TEST_F(RunSpecTest, OptionsAreTheWholeMessageThenTheOverrides) {
  v1::RunSpec spec;
  spec.set_algorithm("dpmf-rp");
  spec.add_set("rank=5");
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> defaults = RunOptions(spec);
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_THAT(algorithms::OptionsText(**defaults), HasSubstr("mechanism: MECHANISM_GAUSSIAN"));
  EXPECT_THAT(algorithms::OptionsText(**defaults), HasSubstr("rank: 5"));
  spec.set_options("mechanism: MECHANISM_NONE");
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> whole = RunOptions(spec);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(algorithms::OptionsText(**whole), "mechanism: MECHANISM_NONE rank: 5");
}

// --run=FILE with a run flag that is not at its default is refused naming the flag.
TEST_F(RunSpecTest, RunFileExcludesRunFlags) {
  absl::SetFlag(&FLAGS_run,
                WriteFile("alone.textproto", "algorithm: \"dpmf-rp\" set: \"mechanism=none\"\n"));
  EXPECT_TRUE(RunOfProcess().ok()) << RunOfProcess().status();
  absl::SetFlag(&FLAGS_rounds, 3);
  absl::SetFlag(&FLAGS_set, {"rank=2"});
  const absl::Status status = RunOfProcess().status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("--rounds=3"));
  EXPECT_THAT(status.message(), HasSubstr("--set=rank=2"));
  absl::SetFlag(&FLAGS_run, "/nonexistent/run.textproto");
  ResetRunFlags();
  EXPECT_EQ(RunOfProcess().status().code(), absl::StatusCode::kNotFound);
}

// A run from a file is the run of the flags that make the same spec: same options and state.
TEST_F(RunSpecTest, ARunFromAFileEqualsTheRunFromTheFlags) {
  SetRunFlags();
  absl::StatusOr<CoordinatorOptions> flag_options = CoordinatorOptionsFromFlags();
  absl::StatusOr<CoordinatorState> flag_state = InitialStateFromFlags(40, 30);
  ASSERT_TRUE(flag_options.ok()) << flag_options.status();
  ASSERT_TRUE(flag_state.ok()) << flag_state.status();
  const std::string file = WriteFile("equal.textproto", RunSpecText(RunSpecFromFlags().value()));
  ResetRunFlags();
  absl::SetFlag(&FLAGS_run, file);
  absl::StatusOr<CoordinatorOptions> file_options = CoordinatorOptionsFromFlags();
  absl::StatusOr<CoordinatorState> file_state = InitialStateFromFlags(40, 30);
  ASSERT_TRUE(file_options.ok()) << file_options.status();
  ASSERT_TRUE(file_state.ok()) << file_state.status();

  EXPECT_EQ(file_options->dropout_fraction, flag_options->dropout_fraction);
  EXPECT_EQ(file_options->max_failed_rounds, flag_options->max_failed_rounds);
  EXPECT_EQ(file_options->wait_for_users, flag_options->wait_for_users);
  EXPECT_EQ(file_options->num_users, flag_options->num_users);
  EXPECT_EQ(file_options->run_id, flag_options->run_id);
  EXPECT_EQ(file_options->publish_every, flag_options->publish_every);
  EXPECT_EQ(file_options->secagg_graph, flag_options->secagg_graph);
  EXPECT_EQ(file_options->corrupt_fraction, flag_options->corrupt_fraction);
  EXPECT_EQ(file_options->harary_degree, flag_options->harary_degree);
  EXPECT_EQ(file_options->signatures, flag_options->signatures);
  EXPECT_EQ(file_options->consistency_check, flag_options->consistency_check);
  EXPECT_EQ(file_options->report_delta, flag_options->report_delta);
  EXPECT_EQ(file_options->eval_every, flag_options->eval_every);
  EXPECT_EQ(file_options->eval_participation, flag_options->eval_participation);
  EXPECT_EQ(file_options->eval_ranking.top_n, flag_options->eval_ranking.top_n);

  EXPECT_EQ(file_state->algorithm, flag_state->algorithm);
  EXPECT_EQ(file_state->updater->SerializeState().value(),
            flag_state->updater->SerializeState().value());
  EXPECT_EQ(file_state->sampling_seed, flag_state->sampling_seed);
  EXPECT_EQ(file_state->total_rounds, flag_state->total_rounds);
  EXPECT_EQ(file_state->options, flag_state->options);
  ASSERT_TRUE(file_state->run_spec.has_value());
  ASSERT_TRUE(flag_state->run_spec.has_value());
  EXPECT_TRUE(MessageDifferencer::Equals(*file_state->run_spec, *flag_state->run_spec));
  // The recorded run has the population as trained and no start condition.
  EXPECT_EQ(file_state->run_spec->num_users(), 40);
  EXPECT_EQ(file_state->run_spec->num_items(), 30);
  EXPECT_EQ(file_state->run_spec->wait_for_users(), 0);
}

// A run resumed from a file must be the checkpoint's recorded run; the fields that differ are
// named.
TEST_F(RunSpecTest, AResumedRunFileMustBeTheRecordedRun) {
  const std::string dir =
      (std::filesystem::path(::testing::TempDir()) / "run_spec_resume").string();
  std::filesystem::remove_all(dir);
  const std::string run = "algorithm: \"dpmf-rp\" set: \"mechanism=none\" ";
  absl::SetFlag(&FLAGS_run, WriteFile("first.textproto", run + "rounds: 3 wait_for_users: 40"));
  absl::StatusOr<CoordinatorState> fresh = InitialStateFromFlags(40, 30);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  ASSERT_TRUE(SaveCheckpoint(dir, *fresh).ok());
  absl::SetFlag(&FLAGS_state_dir, dir);
  absl::StatusOr<std::optional<CoordinatorState>> loaded = LoadCheckpoint(dir);
  ASSERT_TRUE(loaded.ok() && loaded->has_value());
  ASSERT_TRUE((*loaded)->run_spec.has_value());
  EXPECT_TRUE(MessageDifferencer::Equals(*(*loaded)->run_spec, *fresh->run_spec));

  // The same run, with another start condition, resumes.
  absl::SetFlag(&FLAGS_run, WriteFile("again.textproto", run + "rounds: 3 wait_for_users: 10"));
  absl::StatusOr<CoordinatorState> resumed = InitialStateFromFlags(40, 30);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(resumed->total_rounds, 3);

  absl::SetFlag(&FLAGS_run, WriteFile("other.textproto", run + "rounds: 5 epsilon: 2"));
  const absl::Status refused = InitialStateFromFlags(40, 30).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("rounds"));
  EXPECT_THAT(refused.message(), HasSubstr("epsilon"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fedmf::server
