// DPMF-RP's flags and new-run factory (common/algorithms/dpmf_rp/flags.cc), through the new-run
// registry as the coordinator starts a run.
#include <memory>
#include <optional>
#include <string>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/algorithms/dpmf_rp/config.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "common/algorithms/new_run.h"
#include "common/dp/pbm_calibration.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

ABSL_DECLARE_FLAG(std::optional<std::string>, mechanism);
ABSL_DECLARE_FLAG(std::optional<std::string>, item_model);
ABSL_DECLARE_FLAG(std::optional<int>, rank);
ABSL_DECLARE_FLAG(std::optional<double>, ranking_kappa);
ABSL_DECLARE_FLAG(std::optional<std::string>, pbm_geometry);
ABSL_DECLARE_FLAG(std::optional<std::string>, pbm_accounting);
ABSL_DECLARE_FLAG(std::optional<std::string>, noise_schedule);
ABSL_DECLARE_FLAG(std::string, preset);
ABSL_DECLARE_FLAG(std::optional<double>, mu);
ABSL_DECLARE_FLAG(std::optional<double>, learning_rate);
ABSL_DECLARE_FLAG(std::optional<double>, contribution_clip);

namespace fedmf::algorithms::dpmf_rp {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

constexpr RunSettings kSettings{.num_users = 40,
                                .num_items = 30,
                                .rounds = 5,
                                .participation = 0.5,
                                .min_clients = 15,
                                .secure_aggregation = true,
                                .epsilon = 2,
                                .delta = 0,
                                .seed = 7};

// What the flags' defaults (the fedmf preset) and kSettings make.
DpmfRpConfig ExpectedConfig() {
  DpmfRpConfig c = PresetConfig(Preset::kFedmf);
  c.num_users = 40;
  c.num_items = 30;
  c.rounds = 5;
  c.participation = 0.5;
  c.min_clients = 15;
  c.epsilon = 2;
  c.delta = 0;
  c.seed = 7;
  c.rating_scale = {.min = 1, .max = 5};  // RunSettings' default
  return c;
}

const DpmfRpUpdater& AsDpmfRp(const NewRun& run) {
  return dynamic_cast<const DpmfRpUpdater&>(*run.updater);
}

TEST(DpmfRpFlagsTest, DefaultFlagsStartTheFedmfPreset) {
  absl::StatusOr<NewRun> run = StartNewRun(kAlgorithmName, kSettings);
  ASSERT_TRUE(run.ok()) << run.status();
  const DpmfRpUpdater& updater = AsDpmfRp(*run);
  EXPECT_EQ(ToProto(updater.config()).SerializeAsString(),
            ToProto(ExpectedConfig()).SerializeAsString());
  // Bit-identical to the updater made from the config directly.
  EXPECT_EQ(updater.SerializeState().value(),
            DpmfRpUpdater::Create(ExpectedConfig()).value()->SerializeState().value());
  const v1::DpmfRpMechanism& m = updater.mechanism();
  EXPECT_GT(m.gaussian_noise_std(), 0);
  const v1::RoundPlan plan = updater.Plan().value();
  EXPECT_THAT(
      run->log_fields,
      ElementsAre(Pair("preset", "fedmf"), Pair("overrides", "participation,delta"),
                  Pair("mechanism", "gaussian"), Pair("item_model", "full"),
                  Pair("secure_aggregation", "on"), Pair("noise", "per_user"),
                  Pair("epsilon", "2"), Pair("delta", "0"),
                  Pair("participation", "0.5"), Pair("rounds", "5"), Pair("cohort", "20"),
                  Pair("n_min", "15"), Pair("pbm_geometry", "rotated_l2"),
                  Pair("pbm_accounting", "l2"), Pair("pbm_theta", "0"), Pair("pbm_q", "0"),
                  Pair("gaussian_noise_std", absl::StrFormat("%.6g", m.gaussian_noise_std())),
                  Pair("noise_schedule", "constant"), Pair("ddg_noise_std", "0"),
                  Pair("ddg_scale", "0"),
                  // p k = 10 * 14 fixed-point values of the codec's width.
                  Pair("upload_length", absl::StrCat(10 * 14)),
                  Pair("client_bits", absl::StrCat(plan.bits())),
                  Pair("sum_bits", absl::StrCat(plan.bits()))));
}

// Without --participation and --delta the preset decides: every user every round and
// (epsilon, 1e-5)-DP per user for fedmf; 0.1 and RDP at order 2 for paper.
// fedmf-sim --summed_noise: honoured (and logged) with the Gaussian mechanism, refused otherwise.
TEST(DpmfRpFlagsTest, SummedNoiseNeedsTheGaussianMechanism) {
  RunSettings settings = kSettings;
  settings.simulation_summed_noise = true;
  absl::StatusOr<NewRun> run = StartNewRun(kAlgorithmName, settings);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_TRUE(run->summed_noise);
  EXPECT_THAT(run->log_fields, Contains(Pair("noise", "summed")));
  absl::FlagSaver restore_flags_after_test;
  absl::SetFlag(&FLAGS_mechanism, "pbm");
  EXPECT_EQ(StartNewRun(kAlgorithmName, settings).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(DpmfRpFlagsTest, UnsetRunSettingsAreThePresets) {
  absl::FlagSaver restore_flags_after_test;
  RunSettings settings = kSettings;
  settings.participation.reset();
  settings.delta.reset();
  settings.min_clients = 3;  // the paper's cohort is 4 of 40
  settings.epsilon = 5;
  absl::StatusOr<NewRun> run = StartNewRun(kAlgorithmName, settings);
  ASSERT_TRUE(run.ok()) << run.status();
  const DpmfRpConfig& fedmf = AsDpmfRp(*run).config();
  EXPECT_EQ(fedmf.participation, 1);
  EXPECT_EQ(fedmf.delta, 1e-5);
  EXPECT_EQ(fedmf.delta, kDefaultDelta);
  const dp::PrivacyBudget budget = Budget(fedmf);
  EXPECT_EQ(budget.kind, dp::PrivacyBudget::Kind::kApproxDp);
  EXPECT_EQ(budget.epsilon, 5);
  EXPECT_EQ(budget.delta, 1e-5);
  EXPECT_EQ(budget.unit, dp::PrivacyUnit::kUser);
  EXPECT_THAT(run->log_fields, Contains(Pair("overrides", "none")));

  absl::SetFlag(&FLAGS_preset, "paper");
  run = StartNewRun(kAlgorithmName, settings);
  ASSERT_TRUE(run.ok()) << run.status();
  const DpmfRpConfig& paper = AsDpmfRp(*run).config();
  EXPECT_EQ(paper.participation, 0.1);
  EXPECT_EQ(paper.delta, 0);
  EXPECT_EQ(Budget(paper).kind, dp::PrivacyBudget::Kind::kRdp);
  EXPECT_EQ(Budget(paper).order, 2);
  EXPECT_THAT(run->log_fields, Contains(Pair("preset", "paper")));
}

// --preset=paper is the run the flags' old defaults made: the same run as the fedmf preset with
// every flag whose default changed given its old value explicitly.
TEST(DpmfRpFlagsTest, PaperPresetIsTheOldDefaultConfiguration) {
  RunSettings settings = kSettings;
  settings.participation.reset();
  settings.delta.reset();
  settings.min_clients = 3;  // the paper's cohort is 4 of 40
  std::string paper_config, paper_state;
  {
    absl::FlagSaver restore_flags_after_test;
    absl::SetFlag(&FLAGS_preset, "paper");
    absl::StatusOr<NewRun> run = StartNewRun(kAlgorithmName, settings);
    ASSERT_TRUE(run.ok()) << run.status();
    paper_config = ToProto(AsDpmfRp(*run).config()).SerializeAsString();
    paper_state = AsDpmfRp(*run).SerializeState().value();
  }
  absl::FlagSaver restore_flags_after_test;
  // The old defaults, spelled out as flags (the fedmf preset underneath).
  absl::SetFlag(&FLAGS_mechanism, "pbm");
  absl::SetFlag(&FLAGS_item_model, "compressed");
  absl::SetFlag(&FLAGS_pbm_geometry, "column_l1");
  absl::SetFlag(&FLAGS_pbm_accounting, "l2");
  absl::SetFlag(&FLAGS_mu, 0.9);
  absl::SetFlag(&FLAGS_learning_rate, 0.05);
  absl::SetFlag(&FLAGS_ranking_kappa, -1.0);
  absl::SetFlag(&FLAGS_contribution_clip, 0.0);
  settings.participation = 0.1;
  settings.delta = 0;
  absl::StatusOr<NewRun> run = StartNewRun(kAlgorithmName, settings);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(ToProto(AsDpmfRp(*run).config()).SerializeAsString(), paper_config);
  EXPECT_EQ(AsDpmfRp(*run).SerializeState().value(), paper_state);
  // And the struct's defaults are the paper's too (the library's callers keep them).
  DpmfRpConfig defaults;
  defaults.num_users = 40;
  defaults.num_items = 30;
  defaults.rounds = 5;
  defaults.min_clients = 3;
  defaults.epsilon = 2;
  defaults.seed = 7;
  defaults.rating_scale = {.min = 1, .max = 5};
  EXPECT_EQ(ToProto(defaults).SerializeAsString(), paper_config);
}

// A flag given explicitly overrides the preset's value, whichever the preset; the run names it.
TEST(DpmfRpFlagsTest, ExplicitFlagsOverrideThePreset) {
  absl::FlagSaver restore_flags_after_test;
  absl::SetFlag(&FLAGS_preset, "paper");
  absl::SetFlag(&FLAGS_mu, 0.3);
  absl::SetFlag(&FLAGS_mechanism, "none");
  RunSettings settings = kSettings;
  settings.delta = 1e-6;
  absl::StatusOr<NewRun> run = StartNewRun(kAlgorithmName, settings);
  ASSERT_TRUE(run.ok()) << run.status();
  const DpmfRpConfig& config = AsDpmfRp(*run).config();
  EXPECT_EQ(config.mu, 0.3);
  EXPECT_EQ(config.delta, 1e-6);
  EXPECT_EQ(config.item_model, ItemModel::kCompressed);  // still the paper's
  EXPECT_THAT(run->log_fields, Contains(Pair("overrides", "participation,delta,mechanism,mu")));
  absl::SetFlag(&FLAGS_preset, "best");
  const absl::Status status = StartNewRun(kAlgorithmName, settings).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("unknown preset 'best' (expected fedmf or paper)"));
}

TEST(DpmfRpFlagsTest, ReadsItsOwnFlags) {
  absl::FlagSaver restore_flags_after_test;
  absl::SetFlag(&FLAGS_mechanism, "none");
  absl::SetFlag(&FLAGS_item_model, "full");
  absl::SetFlag(&FLAGS_rank, 5);
  absl::SetFlag(&FLAGS_ranking_kappa, 3.0);
  absl::SetFlag(&FLAGS_pbm_geometry, "rotated_l2");
  absl::SetFlag(&FLAGS_pbm_accounting, "coordinate");
  absl::StatusOr<NewRun> run = StartNewRun(kAlgorithmName, kSettings);
  ASSERT_TRUE(run.ok()) << run.status();
  const DpmfRpConfig& config = AsDpmfRp(*run).config();
  EXPECT_EQ(config.mechanism, Mechanism::kNone);
  EXPECT_EQ(config.item_model, ItemModel::kFull);
  EXPECT_EQ(config.rank, 5);
  EXPECT_EQ(config.ranking_kappa, 3.0);
  EXPECT_EQ(config.pbm_geometry, PbmGeometry::kRotatedL2);
  const v1::RoundPlan plan = AsDpmfRp(*run).Plan().value();
  EXPECT_EQ(config.pbm_accounting, PbmAccounting::kCoordinate);
  EXPECT_THAT(
      run->log_fields,
      ElementsAre(Pair("preset", "fedmf"),
                  Pair("overrides",
                       "participation,delta,mechanism,item_model,pbm_geometry,pbm_accounting,rank,"
                       "ranking_kappa"),
                  Pair("mechanism", "none"), Pair("item_model", "full"),
                  Pair("secure_aggregation", "on"), Pair("noise", "per_user"),
                  Pair("epsilon", "2"), Pair("delta", "0"),
                  Pair("participation", "0.5"), Pair("rounds", "5"), Pair("cohort", "20"),
                  Pair("n_min", "15"), Pair("pbm_geometry", "rotated_l2"),
                  Pair("pbm_accounting", "coordinate"), Pair("pbm_theta", "0"), Pair("pbm_q", "0"),
                  Pair("gaussian_noise_std", "0"), Pair("noise_schedule", "constant"),
                  Pair("ddg_noise_std", "0"), Pair("ddg_scale", "0"),
                  // p k = 10 * 5 fixed-point values of the codec's width.
                  Pair("upload_length", "50"), Pair("client_bits", absl::StrCat(plan.bits())),
                  Pair("sum_bits", absl::StrCat(plan.bits()))));
}

TEST(DpmfRpFlagsTest, BadValuesAreInvalidArguments) {
  absl::FlagSaver restore_flags_after_test;
  absl::SetFlag(&FLAGS_mechanism, "laplace");
  absl::Status status = StartNewRun(kAlgorithmName, kSettings).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("unknown mechanism 'laplace'"));
  absl::SetFlag(&FLAGS_mechanism, "gaussian");
  absl::SetFlag(&FLAGS_noise_schedule, "tree");
  status = StartNewRun(kAlgorithmName, kSettings).status();
  EXPECT_THAT(status.message(), HasSubstr("unknown noise schedule 'tree'"));
  absl::SetFlag(&FLAGS_mechanism, "pbm");
  absl::SetFlag(&FLAGS_noise_schedule, "prefix_sum");
  status = StartNewRun(kAlgorithmName, kSettings).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("noise_schedule=prefix_sum needs mechanism=gaussian"));
  absl::SetFlag(&FLAGS_noise_schedule, std::nullopt);
  absl::SetFlag(&FLAGS_mechanism, "none");
  RunSettings settings = kSettings;
  settings.rounds = 0;
  status = StartNewRun(kAlgorithmName, settings).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("rounds=0"));
}

}  // namespace
}  // namespace fedmf::algorithms::dpmf_rp
