// DP-ALS's options and new-run factory (common/algorithms/dp_als/new_run.cc), as the coordinator
// starts a run: options resolved from the registered defaults and --set overrides
// (algorithms::ResolveOptions) reach the config, the defaults are the old flags' defaults, and a
// bad option or run setting is refused naming it and its value.
#include "common/algorithms/new_run.h"

#include <memory>
#include <string>
#include <vector>

#include "common/algorithms/dp_als/updater.h"
#include "common/algorithms/options.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms::dp_als {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Pair;

RunSettings Settings() {
  RunSettings run;
  run.num_users = 40;
  run.num_items = 30;
  run.rounds = 2;
  run.epsilon = 5;
  run.seed = 3;
  return run;
}

absl::StatusOr<NewRun> Start(const std::vector<std::string>& overrides,
                             const RunSettings& run = Settings()) {
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> options =
      ResolveOptions("dp-als", "", overrides);
  if (!options.ok()) return options.status();
  return StartNewRun("dp-als", run, **options);
}

const v1::DpAlsConfig& ConfigOf(const NewRun& run) {
  const auto* updater = dynamic_cast<const DpAlsUpdater*>(run.updater.get());
  EXPECT_NE(updater, nullptr);
  return updater->model().config();
}

TEST(DpAlsNewRunTest, DefaultsAreTheFormerFlagDefaults) {
  absl::StatusOr<NewRun> run = Start({});
  ASSERT_TRUE(run.ok()) << run.status();
  const v1::DpAlsConfig& c = ConfigOf(*run);
  EXPECT_EQ(c.rank(), 5);
  EXPECT_EQ(c.lambda(), 0.05);
  EXPECT_EQ(c.mu(), 1);
  EXPECT_EQ(c.kappa(), 5);
  EXPECT_EQ(c.item_cap(), 100);
  EXPECT_EQ(c.factor_bound(), 0.01);
  EXPECT_EQ(c.rating_clip(), 1);
  EXPECT_EQ(c.gram_share(), 0.05);
  EXPECT_EQ(c.item_gram(), v1::DpAlsConfig::ITEM_GRAM_NONE);
  EXPECT_EQ(c.linear_shrinkage(), 1);
  EXPECT_EQ(c.mechanism(), v1::DpAlsConfig::MECHANISM_DDG);
  EXPECT_EQ(c.init_scale(), 0.1);
  EXPECT_FALSE(c.init_constant_column());
  EXPECT_TRUE(c.scale_to_cap());
  EXPECT_EQ(c.fixed_point_bits(), 30);
  EXPECT_EQ(c.ddg_bits(), 24);
  EXPECT_THAT(run->log_fields, Contains(Pair("mechanism", "ddg")));
  EXPECT_THAT(run->log_fields, Contains(Pair("item_gram", "none")));
}

TEST(DpAlsNewRunTest, OptionsReachTheConfig) {
  absl::StatusOr<NewRun> run =
      Start({"rank=3", "item_gram=count", "shrinkage=0", "mechanism=gaussian"});
  ASSERT_TRUE(run.ok()) << run.status();
  const v1::DpAlsConfig& c = ConfigOf(*run);
  EXPECT_EQ(c.rank(), 3);
  EXPECT_EQ(c.item_gram(), v1::DpAlsConfig::ITEM_GRAM_COUNT);
  EXPECT_EQ(c.linear_shrinkage(), 0);
  EXPECT_EQ(c.mechanism(), v1::DpAlsConfig::MECHANISM_GAUSSIAN);
  EXPECT_EQ(c.iterations(), 2);
  EXPECT_EQ(c.num_users(), 40);
  EXPECT_EQ(c.delta(), kDefaultDelta);
  EXPECT_THAT(run->log_fields, Contains(Pair("item_gram", "count")));
  EXPECT_THAT(run->log_fields, Contains(Pair("mechanism", "gaussian")));
  EXPECT_THAT(run->log_fields, Contains(Pair("rank", "3")));
}

TEST(DpAlsNewRunTest, BadOptionsAndSettingsAreNamed) {
  EXPECT_THAT(Start({"item_gram=unspecified"}).status().message(),
              HasSubstr("item_gram=ITEM_GRAM_UNSPECIFIED"));
  EXPECT_THAT(Start({"mechanism=unspecified"}).status().message(),
              HasSubstr("mechanism=MECHANISM_UNSPECIFIED"));
  EXPECT_THAT(Start({"shrinkage=-1"}).status().message(), HasSubstr("shrinkage=-1"));
  EXPECT_THAT(Start({"rank=0"}).status().message(), HasSubstr("rank=0"));
  RunSettings sampled = Settings();
  sampled.participation = 0.5;
  EXPECT_THAT(Start({}, sampled).status().message(), HasSubstr("--participation=0.5"));
  RunSettings clear = Settings();
  clear.secure_aggregation = false;  // ddg needs secure sums
  EXPECT_THAT(Start({}, clear).status().message(), HasSubstr("secure_aggregation"));
}

}  // namespace
}  // namespace fedmf::algorithms::dp_als
