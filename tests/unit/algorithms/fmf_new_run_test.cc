// The fresh runs of the FMF privacy paper's algorithms (vfl-sgdmf, hfl-sgdmf, lfl-sgdmf; their
// new_run.cc) as the coordinator starts them: options resolved from the registered defaults and
// --set overrides (algorithms::ResolveOptions), the nested noisy-step block `sgd`
// (fedmf.v1.FmfSgdOptions) included, reach the config; the defaults are the former flags'; a bad
// option is refused naming it and its value.
#include <memory>
#include <string>
#include <vector>

#include "common/algorithms/hfl_sgdmf/updater.h"
#include "common/algorithms/lfl_sgdmf/updater.h"
#include "common/algorithms/new_run.h"
#include "common/algorithms/options.h"
#include "common/algorithms/vfl_sgdmf/updater.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Pair;

RunSettings Settings(int64_t rounds) {
  RunSettings run;
  run.num_users = 30;
  run.num_items = 20;
  run.rounds = rounds;
  run.epsilon = 0;
  run.seed = 3;
  return run;
}

absl::StatusOr<NewRun> Start(absl::string_view algorithm, const std::vector<std::string>& overrides,
                             const RunSettings& run) {
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> options =
      ResolveOptions(algorithm, "", overrides);
  if (!options.ok()) return options.status();
  return StartNewRun(algorithm, run, **options);
}

template <typename Updater>
const Updater& UpdaterOf(const NewRun& run) {
  const auto* updater = dynamic_cast<const Updater*>(run.updater.get());
  EXPECT_NE(updater, nullptr);
  return *updater;
}

TEST(FmfNewRunTest, VflDefaultsAreTheFormerFlagDefaults) {
  absl::StatusOr<NewRun> run = Start("vfl-sgdmf", {}, Settings(3));
  ASSERT_TRUE(run.ok()) << run.status();
  const v1::VflSgdmfConfig& c = UpdaterOf<vfl_sgdmf::VflSgdmfUpdater>(*run).config();
  EXPECT_EQ(c.num_parties(), 2);
  EXPECT_FALSE(c.local_only());
  EXPECT_EQ(c.syncs(), 2);
  EXPECT_EQ(c.local_steps(), 10);
  EXPECT_EQ(c.item_only_steps(), 0);
  EXPECT_FALSE(c.per_user());
  EXPECT_EQ(c.max_ratings_per_user(), 5);
  EXPECT_EQ(c.rank(), 20);
  EXPECT_EQ(c.sampling_rate(), 0.01);
  EXPECT_EQ(c.noise_multiplier(), 0);  // negative and no budget: no noise
  EXPECT_EQ(c.learning_rate(), 1);
  EXPECT_EQ(c.final_learning_rate_fraction(), 0.5);
  EXPECT_EQ(c.init_prediction(), 3);
}

TEST(FmfNewRunTest, VflNestedSgdOptionsReachTheConfig) {
  absl::StatusOr<NewRun> run =
      Start("vfl-sgdmf",
            {"sgd.rank=8", "sgd.sampling_rate=0.5", "sgd.noise_multiplier=0.3",
             "sgd.learning_rate=0.05", "sgd.final_learning_rate_fraction=0.25",
             "sgd.init_prediction=2", "parties=3", "unit=user", "theta=4", "item_only_steps=2"},
            Settings(3));
  ASSERT_TRUE(run.ok()) << run.status();
  const v1::VflSgdmfConfig& c = UpdaterOf<vfl_sgdmf::VflSgdmfUpdater>(*run).config();
  EXPECT_EQ(c.rank(), 8);
  EXPECT_EQ(c.sampling_rate(), 0.5);
  EXPECT_EQ(c.noise_multiplier(), 0.3);
  EXPECT_EQ(c.learning_rate(), 0.05);
  EXPECT_EQ(c.final_learning_rate_fraction(), 0.25);
  EXPECT_EQ(c.init_prediction(), 2);
  EXPECT_EQ(c.num_parties(), 3);
  EXPECT_TRUE(c.per_user());
  EXPECT_EQ(c.max_ratings_per_user(), 4);
  EXPECT_EQ(c.item_only_steps(), 2);
  EXPECT_THAT(run->log_fields, Contains(Pair("parties", "3")));
  EXPECT_THAT(run->log_fields, Contains(Pair("unit", "user")));
}

TEST(FmfNewRunTest, VflLocalOnlyRunsOneRound) {
  absl::StatusOr<NewRun> run =
      Start("vfl-sgdmf", {"mode=local-only", "local_steps=50"}, Settings(1));
  ASSERT_TRUE(run.ok()) << run.status();
  const v1::VflSgdmfConfig& c = UpdaterOf<vfl_sgdmf::VflSgdmfUpdater>(*run).config();
  EXPECT_TRUE(c.local_only());
  EXPECT_EQ(c.local_steps(), 50);
  EXPECT_THAT(run->log_fields, Contains(Pair("vfl_mode", "local-only")));
  EXPECT_THAT(Start("vfl-sgdmf", {"mode=local-only"}, Settings(3)).status().message(),
              HasSubstr("mode=local-only runs one round"));
}

TEST(FmfNewRunTest, HflOptionsReachTheConfig) {
  absl::StatusOr<NewRun> defaults = Start("hfl-sgdmf", {}, Settings(3));
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  const v1::HflSgdmfConfig& d = UpdaterOf<hfl_sgdmf::HflSgdmfUpdater>(*defaults).config();
  EXPECT_EQ(d.num_parties(), 2);
  EXPECT_EQ(d.mode(), "pretrain-u");
  EXPECT_EQ(d.local_steps(), 10);
  EXPECT_EQ(d.pretrain_steps(), 100);
  EXPECT_EQ(d.finetune_steps(), 100);
  EXPECT_EQ(d.max_ratings_per_user(), 5);
  EXPECT_EQ(d.rank(), 20);
  EXPECT_EQ(d.sampling_rate(), 0.01);
  // syn-sgd: --rounds = T T' + 1 = 2 * 5 + 1.
  absl::StatusOr<NewRun> run = Start(
      "hfl-sgdmf", {"mode=syn-sgd", "local_steps=5", "sgd.rank=4", "parties=3"}, Settings(11));
  ASSERT_TRUE(run.ok()) << run.status();
  const v1::HflSgdmfConfig& c = UpdaterOf<hfl_sgdmf::HflSgdmfUpdater>(*run).config();
  EXPECT_EQ(c.mode(), "syn-sgd");
  EXPECT_EQ(c.syncs(), 2);
  EXPECT_EQ(c.rank(), 4);
  EXPECT_EQ(c.num_parties(), 3);
  EXPECT_THAT(run->log_fields, Contains(Pair("mode", "syn-sgd")));
  EXPECT_THAT(Start("hfl-sgdmf", {"mode=local-only"}, Settings(3)).status().message(),
              HasSubstr("local-only"));
}

TEST(FmfNewRunTest, LflOptionsReachTheConfig) {
  RunSettings settings = Settings(2);
  settings.epsilon = 4;
  absl::StatusOr<NewRun> run =
      Start("lfl-sgdmf", {"noise=single", "omega=0.5", "rank=4", "scale=1024"}, settings);
  ASSERT_TRUE(run.ok()) << run.status();
  const v1::LflSgdmfConfig& c = UpdaterOf<lfl_sgdmf::LflSgdmfUpdater>(*run).config();
  EXPECT_EQ(c.noise(), v1::LFL_NOISE_SINGLE);
  EXPECT_EQ(c.omega(), 0.5);
  EXPECT_EQ(c.rank(), 4);
  EXPECT_EQ(c.scale(), 1024);
  EXPECT_EQ(c.learning_rate(), 1);
  EXPECT_EQ(c.pretrain_epochs(), 20);
  EXPECT_EQ(c.pretrain_learning_rate(), 0.05);
  EXPECT_EQ(c.init_prediction(), 3);
  EXPECT_EQ(c.score_lambda(), 0.25);
  EXPECT_EQ(c.score_kappa(), 5);
  EXPECT_THAT(run->log_fields, Contains(Pair("noise", "single")));
}

TEST(FmfNewRunTest, BadOptionsAreNamedWithTheirValue) {
  EXPECT_THAT(Start("vfl-sgdmf", {"sgd.rank=0"}, Settings(3)).status().message(),
              HasSubstr("vfl-sgdmf: sgd.rank=0 must be >= 1"));
  EXPECT_THAT(Start("hfl-sgdmf", {"sgd.sampling_rate=2"}, Settings(3)).status().message(),
              HasSubstr("hfl-sgdmf: sgd.sampling_rate=2 must be in (0, 1]"));
  EXPECT_THAT(Start("vfl-sgdmf", {"local_steps=0"}, Settings(3)).status().message(),
              HasSubstr("local_steps=0"));
  EXPECT_THAT(Start("hfl-sgdmf", {"theta=0"}, Settings(3)).status().message(),
              HasSubstr("theta=0"));
  EXPECT_THAT(Start("vfl-sgdmf", {"mode=unspecified"}, Settings(3)).status().message(),
              HasSubstr("mode=MODE_UNSPECIFIED"));
  EXPECT_THAT(Start("lfl-sgdmf", {"noise=unspecified"}, Settings(2)).status().message(),
              HasSubstr("noise=LFL_NOISE_UNSPECIFIED"));
  EXPECT_THAT(Start("lfl-sgdmf", {"omega=1"}, Settings(2)).status().message(),
              HasSubstr("omega=1"));
}

}  // namespace
}  // namespace fedmf::algorithms
