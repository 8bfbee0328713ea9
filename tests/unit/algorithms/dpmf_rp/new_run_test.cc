// DPMF-RP's options and new-run factory (common/algorithms/dpmf_rp/new_run.cc), through the
// options resolution and the new-run registry as the coordinator starts a run.
#include "common/algorithms/new_run.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/algorithms/dpmf_rp/config.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "common/algorithms/options.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms::dpmf_rp {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

const RunSettings kSettings{.num_users = 40,
                                .num_items = 30,
                                .rounds = 5,
                                .participation = 0.5,
                                .min_clients = 15,
                                .secure_aggregation = true,
                                .epsilon = 2,
                                .delta = 0,
                                .seed = 7};

// The shipped configuration files (configs/ in the source tree).
std::string Config(absl::string_view name) {
  return absl::StrCat(FEDMF_CONFIGS_DIR, "/dpmf-rp/", name, ".textproto");
}

// The run of `settings` with the options of `config_path` (empty: the defaults) and `overrides`.
absl::StatusOr<NewRun> Start(const RunSettings& settings, const std::vector<std::string>& overrides,
                             const std::string& config_path = "") {
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> options =
      ResolveOptions(kAlgorithmName, config_path, overrides);
  if (!options.ok()) return options.status();
  return StartNewRun(kAlgorithmName, settings, **options);
}

// What the default options (fedmf's configuration, docs/results/privacy-utility.md) and kSettings
// make, written out here rather than taken from the code under test.
DpmfRpConfig ExpectedConfig() {
  DpmfRpConfig c;
  c.num_users = 40;
  c.num_items = 30;
  c.rounds = 5;
  c.participation = 0.5;
  c.min_clients = 15;
  c.epsilon = 2;
  c.delta = 0;
  c.seed = 7;
  c.rating_scale = {.min = 1, .max = 5};  // RunSettings' default
  c.mechanism = Mechanism::kGaussian;
  c.item_model = ItemModel::kFull;
  c.mu = 0.01;
  c.adam.learning_rate = 0.2;
  c.ranking_kappa = 5;
  c.contribution_clip = 0.016;
  c.pbm_geometry = PbmGeometry::kRotatedL2;
  c.pbm_accounting = PbmAccounting::kL2;
  return c;
}

const DpmfRpUpdater& AsDpmfRp(const NewRun& run) {
  return dynamic_cast<const DpmfRpUpdater&>(*run.updater);
}

TEST(DpmfRpNewRunTest, DefaultOptionsStartFedmfsConfiguration) {
  absl::StatusOr<NewRun> run = Start(kSettings, {});
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
      ElementsAre(Pair("mechanism", "gaussian"), Pair("item_model", "full"),
                  Pair("secure_aggregation", "on"), Pair("noise", "per_user"),
                  Pair("epsilon", "2"), Pair("delta", "0"), Pair("participation", "0.5"),
                  Pair("rounds", "5"), Pair("cohort", "20"), Pair("n_min", "15"),
                  Pair("pbm_geometry", "rotated_l2"), Pair("pbm_accounting", "l2"),
                  Pair("pbm_theta", "0"), Pair("pbm_q", "0"),
                  Pair("gaussian_noise_std", absl::StrFormat("%.6g", m.gaussian_noise_std())),
                  Pair("noise_schedule", "constant"), Pair("ddg_noise_std", "0"),
                  Pair("ddg_scale", "0"),
                  // p k = 10 * 14 fixed-point values of the codec's width.
                  Pair("upload_length", absl::StrCat(10 * 14)),
                  Pair("client_bits", absl::StrCat(plan.bits())),
                  Pair("sum_bits", absl::StrCat(plan.bits()))));
}

// configs/dpmf-rp/fedmf.textproto is the defaults, field for field.
TEST(DpmfRpNewRunTest, TheFedmfFileIsTheDefaults) {
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> file =
      ResolveOptions(kAlgorithmName, Config("fedmf"), {});
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<const google::protobuf::Message*> defaults =
      RegisteredDefaultOptions(kAlgorithmName);
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ((*file)->SerializeAsString(), (*defaults)->SerializeAsString());
  EXPECT_EQ(OptionsText(**file), OptionsText(**defaults));
}

// configs/dpmf-rp/paper.textproto is the paper's configuration, which DpmfRpConfig's own defaults
// (what the library's callers get) also are.
TEST(DpmfRpNewRunTest, ThePaperFileIsTheLibrarysDefaults) {
  RunSettings settings = kSettings;
  settings.participation.reset();
  settings.delta.reset();
  settings.min_clients = 3;  // the paper's cohort is 4 of 40
  absl::StatusOr<NewRun> run = Start(settings, {}, Config("paper"));
  ASSERT_TRUE(run.ok()) << run.status();
  DpmfRpConfig defaults;
  defaults.num_users = 40;
  defaults.num_items = 30;
  defaults.rounds = 5;
  defaults.min_clients = 3;
  defaults.epsilon = 2;
  defaults.seed = 7;
  defaults.rating_scale = {.min = 1, .max = 5};
  EXPECT_EQ(ToProto(AsDpmfRp(*run).config()).SerializeAsString(),
            ToProto(defaults).SerializeAsString());
  const DpmfRpConfig& paper = AsDpmfRp(*run).config();
  EXPECT_EQ(paper.participation, 0.1);
  EXPECT_EQ(Budget(paper).kind, dp::PrivacyBudget::Kind::kRdp);
  EXPECT_EQ(Budget(paper).order, 2);
}

// fedmf-sim --summed_noise: honoured (and logged) with the Gaussian mechanism, refused otherwise.
TEST(DpmfRpNewRunTest, SummedNoiseNeedsTheGaussianMechanism) {
  RunSettings settings = kSettings;
  settings.simulation_summed_noise = true;
  absl::StatusOr<NewRun> run = Start(settings, {});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_TRUE(run->summed_noise);
  EXPECT_THAT(run->log_fields, Contains(Pair("noise", "summed")));
  EXPECT_EQ(Start(settings, {"mechanism=pbm"}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Without --participation and --delta the options decide: every user every round and
// (epsilon, 1e-5)-DP per user by default; the flags win when given.
TEST(DpmfRpNewRunTest, RunFlagsWinOverTheOptionsParticipationAndDelta) {
  RunSettings settings = kSettings;
  settings.participation.reset();
  settings.delta.reset();
  settings.epsilon = 5;
  absl::StatusOr<NewRun> run = Start(settings, {});
  ASSERT_TRUE(run.ok()) << run.status();
  const DpmfRpConfig& fedmf = AsDpmfRp(*run).config();
  EXPECT_EQ(fedmf.participation, 1);
  EXPECT_EQ(fedmf.delta, 1e-5);
  const dp::PrivacyBudget budget = Budget(fedmf);
  EXPECT_EQ(budget.kind, dp::PrivacyBudget::Kind::kApproxDp);
  EXPECT_EQ(budget.epsilon, 5);
  EXPECT_EQ(budget.delta, 1e-5);
  EXPECT_EQ(budget.unit, dp::PrivacyUnit::kUser);

  settings.participation = 0.5;
  settings.delta = 1e-6;
  run = Start(settings, {"participation=0.25", "delta=0"});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(AsDpmfRp(*run).config().participation, 0.5);
  EXPECT_EQ(AsDpmfRp(*run).config().delta, 1e-6);
}

// --set over --config over the defaults, later overrides winning.
TEST(DpmfRpNewRunTest, OverridesApplyOverTheFileInOrder) {
  absl::StatusOr<NewRun> run =
      Start(kSettings, {"mu=0.3", "mechanism=none", "mu=0.4"}, Config("paper"));
  ASSERT_TRUE(run.ok()) << run.status();
  const DpmfRpConfig& config = AsDpmfRp(*run).config();
  EXPECT_EQ(config.mu, 0.4);
  EXPECT_EQ(config.mechanism, Mechanism::kNone);
  EXPECT_EQ(config.item_model, ItemModel::kCompressed);  // still the paper's
}

TEST(DpmfRpNewRunTest, ReadsEveryKindOfOption) {
  absl::StatusOr<NewRun> run = Start(
      kSettings, {"mechanism=NONE", "item_model=ITEM_MODEL_FULL", "rank=5", "ranking_kappa=3",
                  "pbm_geometry=rotated-l2", "pbm_accounting=coordinate", "compression=2.5"});
  ASSERT_TRUE(run.ok()) << run.status();
  const DpmfRpConfig& config = AsDpmfRp(*run).config();
  EXPECT_EQ(config.mechanism, Mechanism::kNone);
  EXPECT_EQ(config.item_model, ItemModel::kFull);
  EXPECT_EQ(config.rank, 5);
  EXPECT_EQ(config.ranking_kappa, 3.0);
  EXPECT_EQ(config.pbm_geometry, PbmGeometry::kRotatedL2);
  EXPECT_EQ(config.pbm_accounting, PbmAccounting::kCoordinate);
  EXPECT_EQ(config.compression, 2.5);
  // A negative ranking kappa is kappa's.
  run = Start(kSettings, {"ranking_kappa=-1"});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_FALSE(AsDpmfRp(*run).config().ranking_kappa.has_value());
}

TEST(DpmfRpNewRunTest, BadValuesAreInvalidArgumentsNamingThem) {
  absl::Status status = Start(kSettings, {"mechanism=laplace"}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("--set mechanism=laplace: 'laplace' is not one of MECHANISM_PBM, "
                        "MECHANISM_GAUSSIAN, MECHANISM_NONE, MECHANISM_DDG"));
  status = Start(kSettings, {"rank=many"}).status();
  EXPECT_THAT(status.message(), HasSubstr("--set rank=many: 'many' is not a valid int32"));
  status = Start(kSettings, {"rank=0"}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("rank=0 must be in [1, 1024]"));
  status = Start(kSettings, {"mechanism=pbm", "noise_schedule=prefix_sum"}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("noise_schedule=prefix_sum needs mechanism=gaussian"));
  RunSettings settings = kSettings;
  settings.rounds = 0;
  status = Start(settings, {"mechanism=none"}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("rounds=0"));
}

}  // namespace
}  // namespace fedmf::algorithms::dpmf_rp
