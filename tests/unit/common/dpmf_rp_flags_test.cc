// DPMF-RP's flags and new-run factory (common/algorithms/dpmf_rp/flags.cc), through the new-run
// registry as the coordinator starts a run.
#include <memory>
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

ABSL_DECLARE_FLAG(std::string, mechanism);
ABSL_DECLARE_FLAG(std::string, item_model);
ABSL_DECLARE_FLAG(int, rank);
ABSL_DECLARE_FLAG(double, ranking_kappa);
ABSL_DECLARE_FLAG(std::string, pbm_geometry);
ABSL_DECLARE_FLAG(std::string, pbm_accounting);

namespace fedmf::algorithms::dpmf_rp {
namespace {

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

// What the flags' defaults and kSettings make.
DpmfRpConfig ExpectedConfig() {
  DpmfRpConfig c;
  c.num_users = 40;
  c.num_items = 30;
  c.rounds = 5;
  c.participation = 0.5;
  c.min_clients = 15;
  c.epsilon = 2;
  c.seed = 7;
  c.rating_scale = {.min = 1, .max = 5};  // RunSettings' default
  return c;
}

const DpmfRpUpdater& AsDpmfRp(const NewRun& run) {
  return dynamic_cast<const DpmfRpUpdater&>(*run.updater);
}

TEST(DpmfRpFlagsTest, DefaultFlagsStartTheSameRunAsTheConfig) {
  absl::StatusOr<NewRun> run = StartNewRun(kAlgorithmName, kSettings);
  ASSERT_TRUE(run.ok()) << run.status();
  const DpmfRpUpdater& updater = AsDpmfRp(*run);
  EXPECT_EQ(ToProto(updater.config()).SerializeAsString(),
            ToProto(ExpectedConfig()).SerializeAsString());
  // Bit-identical to the updater made from the config directly.
  EXPECT_EQ(updater.SerializeState().value(),
            DpmfRpUpdater::Create(ExpectedConfig()).value()->SerializeState().value());
  const v1::DpmfRpMechanism& m = updater.mechanism();
  EXPECT_GT(m.pbm_q(), 0);
  EXPECT_THAT(
      run->log_fields,
      ElementsAre(Pair("mechanism", "pbm"), Pair("item_model", "compressed"),
                  Pair("secure_aggregation", "on"), Pair("epsilon", "2"), Pair("rounds", "5"),
                  Pair("cohort", "20"), Pair("n_min", "15"), Pair("pbm_geometry", "column_l1"),
                  Pair("pbm_accounting", "l2"),
                  Pair("pbm_theta", absl::StrFormat("%.6g", m.pbm_theta())),
                  Pair("pbm_q", absl::StrCat(m.pbm_q())), Pair("gaussian_noise_std", "0"),
                  Pair("ddg_noise_std", "0"), Pair("ddg_scale", "0"),
                  // p' k = 16 * 14 values of ceil(log2(q + 1)) bits; the sum of 20 needs more.
                  Pair("upload_length", absl::StrCat(16 * 14)),
                  Pair("client_bits", absl::StrCat(dp::BitsFor(m.pbm_q()))),
                  Pair("sum_bits", absl::StrCat(dp::BitsFor(20 * m.pbm_q())))));
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
      ElementsAre(Pair("mechanism", "none"), Pair("item_model", "full"),
                  Pair("secure_aggregation", "on"), Pair("epsilon", "2"), Pair("rounds", "5"),
                  Pair("cohort", "20"), Pair("n_min", "15"), Pair("pbm_geometry", "rotated_l2"),
                  Pair("pbm_accounting", "coordinate"), Pair("pbm_theta", "0"), Pair("pbm_q", "0"),
                  Pair("gaussian_noise_std", "0"), Pair("ddg_noise_std", "0"),
                  Pair("ddg_scale", "0"),
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
  absl::SetFlag(&FLAGS_mechanism, "none");
  RunSettings settings = kSettings;
  settings.rounds = 0;
  status = StartNewRun(kAlgorithmName, settings).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("rounds=0"));
}

}  // namespace
}  // namespace fedmf::algorithms::dpmf_rp
