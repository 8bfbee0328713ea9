// DP-ALS's flags and new-run factory (common/algorithms/dp_als/flags.cc), through the new-run
// registry as the coordinator starts a run: the flags reach the config, and a bad flag or run
// setting is refused naming it and its value.
#include <string>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "common/algorithms/dp_als/updater.h"
#include "common/algorithms/new_run.h"
#include "gmock/gmock.h"
#include "google/protobuf/empty.pb.h"
#include "gtest/gtest.h"

ABSL_DECLARE_FLAG(std::string, dpals_item_gram);
ABSL_DECLARE_FLAG(std::string, dpals_mechanism);
ABSL_DECLARE_FLAG(int32_t, dpals_rank);

namespace fedmf::algorithms::dp_als {
namespace {

using ::testing::HasSubstr;

RunSettings Settings() {
  RunSettings run;
  run.num_users = 40;
  run.num_items = 30;
  run.rounds = 2;
  run.epsilon = 5;
  run.seed = 3;
  return run;
}

class DpAlsFlagsTest : public ::testing::Test {
 private:
  absl::FlagSaver saver_;
};

TEST_F(DpAlsFlagsTest, FlagsReachTheConfig) {
  absl::SetFlag(&FLAGS_dpals_rank, 3);
  absl::SetFlag(&FLAGS_dpals_item_gram, "count");
  absl::StatusOr<NewRun> run = StartNewRun("dp-als", Settings(), google::protobuf::Empty());
  ASSERT_TRUE(run.ok()) << run.status();
  const auto* updater = dynamic_cast<const DpAlsUpdater*>(run->updater.get());
  ASSERT_NE(updater, nullptr);
  const v1::DpAlsConfig& c = updater->model().config();
  EXPECT_EQ(c.rank(), 3);
  EXPECT_EQ(c.item_gram(), v1::DpAlsConfig::ITEM_GRAM_COUNT);
  EXPECT_EQ(c.iterations(), 2);
  EXPECT_EQ(c.num_users(), 40);
  EXPECT_EQ(c.delta(), kDefaultDelta);
  EXPECT_GT(updater->model().noise().noise_std(), 0);
}

TEST_F(DpAlsFlagsTest, BadSettingsAreNamed) {
  absl::SetFlag(&FLAGS_dpals_item_gram, "diagonal");
  EXPECT_THAT(StartNewRun("dp-als", Settings(), google::protobuf::Empty()).status().message(),
              HasSubstr("--dpals_item_gram=diagonal"));
  absl::SetFlag(&FLAGS_dpals_item_gram, "none");
  absl::SetFlag(&FLAGS_dpals_mechanism, "pbm");
  EXPECT_THAT(StartNewRun("dp-als", Settings(), google::protobuf::Empty()).status().message(),
              HasSubstr("--dpals_mechanism=pbm"));
  absl::SetFlag(&FLAGS_dpals_mechanism, "ddg");
  RunSettings sampled = Settings();
  sampled.participation = 0.5;
  EXPECT_THAT(StartNewRun("dp-als", sampled, google::protobuf::Empty()).status().message(), HasSubstr("--participation=0.5"));
  RunSettings clear = Settings();
  clear.secure_aggregation = false;  // ddg needs secure sums
  EXPECT_THAT(StartNewRun("dp-als", clear, google::protobuf::Empty()).status().message(), HasSubstr("secure_aggregation"));
}

}  // namespace
}  // namespace fedmf::algorithms::dp_als
