// The options of hdpmf, ldp-gd, ldp-gd-dr, probe, dp-popularity, privirec and privirec-k
// (<algorithm>/new_run.cc): resolved as the runtime resolves them (options.h: registered
// defaults, --config, --set) and started through the new-run registry (new_run.h).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/hdpmf/updater.h"
#include "common/algorithms/new_run.h"
#include "common/algorithms/options.h"
#include "gmock/gmock.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;

RunSettings Settings(int64_t rounds, double epsilon, std::optional<double> delta) {
  return {.num_users = 40,
          .num_items = 60,
          .rounds = rounds,
          .participation = 1,
          .min_clients = 0,
          .secure_aggregation = true,
          .epsilon = epsilon,
          .delta = delta,
          .seed = 7};
}

// The run `algorithm` starts on `settings` with its defaults and `overrides` (--set).
absl::StatusOr<NewRun> Start(absl::string_view algorithm, const RunSettings& settings,
                             const std::vector<std::string>& overrides) {
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> options =
      ResolveOptions(algorithm, "", overrides);
  if (!options.ok()) return options.status();
  return StartNewRun(algorithm, settings, **options);
}

std::string Field(const NewRun& run, absl::string_view key) {
  for (const auto& [k, v] : run.log_fields) {
    if (k == key) return v;
  }
  return "<absent>";
}

// configs/<algorithm>/default.textproto is every option at its registered default.
TEST(AlgorithmOptionsTest, ShippedDefaultsAreTheRegisteredDefaults) {
  for (absl::string_view algorithm : {"hdpmf", "ldp-gd", "ldp-gd-dr", "probe", "dp-popularity",
                                      "privirec", "privirec-k"}) {
    SCOPED_TRACE(algorithm);
    const std::string path = absl::StrCat(FEDMF_CONFIGS_DIR, "/", algorithm, "/default.textproto");
    absl::StatusOr<std::unique_ptr<google::protobuf::Message>> from_file =
        ResolveOptions(algorithm, path, {});
    ASSERT_TRUE(from_file.ok()) << from_file.status();
    absl::StatusOr<const google::protobuf::Message*> defaults = RegisteredDefaultOptions(algorithm);
    ASSERT_TRUE(defaults.ok()) << defaults.status();
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(**from_file, **defaults))
        << OptionsText(**from_file) << "\nagainst\n" << OptionsText(**defaults);
  }
}

TEST(AlgorithmOptionsTest, Hdpmf) {
  const RunSettings run = Settings(3, 3, std::nullopt);
  absl::StatusOr<NewRun> sound = Start("hdpmf", run, {});
  ASSERT_TRUE(sound.ok()) << sound.status();
  EXPECT_EQ(Field(*sound, "mode"), "sound");
  EXPECT_EQ(Field(*sound, "variant"), "hdpmf");
  EXPECT_EQ(Field(*sound, "spec_seed"), "7");  // spec_seed 0: the run's seed
  // The flag's value hdpmf-r is a variant: the hdpmf variant without rescaling.
  absl::StatusOr<NewRun> r = Start("hdpmf", run, {"mode=paper", "variant=hdpmf-r", "spec_seed=9"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Field(*r, "mode"), "paper");
  EXPECT_EQ(Field(*r, "variant"), "hdpmf-r");
  EXPECT_EQ(Field(*r, "spec_seed"), "9");
  const auto& updater = dynamic_cast<const hdpmf::HdpmfUpdater&>(*r->updater);
  EXPECT_TRUE(updater.config().skip_rescaling());
  EXPECT_EQ(updater.config().variant(), v1::HDPMF_VARIANT_HDPMF);
  EXPECT_THAT(Start("hdpmf", run, {"rank=0"}).status().message(),
              HasSubstr("hdpmf: rank=0 must be in [1, 1000]"));
  EXPECT_THAT(Start("hdpmf", run, {"f_uc=0.8", "f_um=0.3"}).status().message(),
              HasSubstr("hdpmf: f_um=0.3 must be in [0, 1 - f_uc]"));
  EXPECT_THAT(Start("hdpmf", run, {"eps_uc=0.6"}).status().message(),
              HasSubstr("hdpmf: eps_um=0.5 must be in [eps_uc, 1]"));

  // fedmf-sim --summed_noise: honoured and logged by the noisy variants; variant mf has no noise,
  // so its run says it does not honour it (the runtime refuses it then).
  EXPECT_EQ(Field(*sound, "noise_draw"), "per_user");
  EXPECT_FALSE(sound->summed_noise);
  RunSettings summed = run;
  summed.simulation_summed_noise = true;
  for (const std::vector<std::string>& set : std::vector<std::vector<std::string>>{
           {}, {"mode=paper", "variant=dpmf"}, {"mode=paper", "variant=pdpmf"}}) {
    absl::StatusOr<NewRun> noisy = Start("hdpmf", summed, set);
    ASSERT_TRUE(noisy.ok()) << noisy.status();
    EXPECT_TRUE(noisy->summed_noise);
    EXPECT_EQ(Field(*noisy, "noise_draw"), "summed");
    EXPECT_TRUE(dynamic_cast<const hdpmf::HdpmfUpdater&>(*noisy->updater)
                    .config()
                    .simulation_summed_noise());
  }
  absl::StatusOr<NewRun> mf = Start("hdpmf", summed, {"mode=paper", "variant=mf"});
  ASSERT_TRUE(mf.ok()) << mf.status();
  EXPECT_FALSE(mf->summed_noise);
  EXPECT_EQ(Field(*mf, "noise_draw"), "per_user");
}

TEST(AlgorithmOptionsTest, LdpGdSharesItsOptionsWithLdpGdDr) {
  const RunSettings run = Settings(3, 0.9, std::nullopt);
  absl::StatusOr<NewRun> gd = Start("ldp-gd", run, {"rank=4", "correction=false"});
  ASSERT_TRUE(gd.ok()) << gd.status();
  EXPECT_EQ(Field(*gd, "correction"), "off");
  EXPECT_EQ(Field(*gd, "projection_mode"), "<absent>");
  // ldp-gd has no projection: a projection choice is refused, its default accepted.
  EXPECT_THAT(Start("ldp-gd", run, {"projection_mode=unbiased"}).status().message(),
              HasSubstr("ldp-gd: projection_mode=unbiased must be paper, its default (ldp-gd-dr only)"));
  EXPECT_TRUE(Start("ldp-gd", run, {"projection_mode=paper"}).ok());
  absl::StatusOr<NewRun> dr = Start("ldp-gd-dr", run, {"rank=4"});
  ASSERT_TRUE(dr.ok()) << dr.status();
  EXPECT_EQ(Field(*dr, "projection_dim"), "6");  // m / 10
  EXPECT_EQ(Field(*dr, "projection_mode"), "paper");
  EXPECT_EQ(Field(*dr, "correction"), "k^2");
  absl::StatusOr<NewRun> unbiased = Start(
      "ldp-gd-dr", run, {"projection_mode=unbiased", "projection_dim=8", "secure_sum=true"});
  ASSERT_TRUE(unbiased.ok()) << unbiased.status();
  EXPECT_EQ(Field(*unbiased, "projection_mode"), "unbiased");
  EXPECT_EQ(Field(*unbiased, "projection_dim"), "8");
  EXPECT_EQ(Field(*unbiased, "combination"), "secure-sum");
  EXPECT_THAT(Start("ldp-gd-dr", run, {"projection_dim=60"}).status().message(),
              HasSubstr("ldp-gd-dr: projection_dim=60 must be in [1, num_items = 60)"));
  EXPECT_THAT(Start("ldp-gd-dr", run, {"learning_rate=0"}).status().message(),
              HasSubstr("ldp-gd-dr: learning_rate=0 must be > 0"));
}

TEST(AlgorithmOptionsTest, Probe) {
  const RunSettings run = Settings(2, 10, std::nullopt);
  absl::StatusOr<NewRun> sampled = Start("probe", run, {});
  ASSERT_TRUE(sampled.ok()) << sampled.status();
  EXPECT_EQ(Field(*sampled, "report_epsilon"), "0.5");
  EXPECT_EQ(Field(*sampled, "cohort"), "40");
  absl::StatusOr<NewRun> fixed = Start("probe", run, {"fixed_population=true"});
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  EXPECT_EQ(Field(*fixed, "cohort"), "population");
  EXPECT_THAT(Start("probe", run, {"report_epsilon=0"}).status().message(),
              HasSubstr("probe: report_epsilon=0 must be > 0"));
}

TEST(AlgorithmOptionsTest, DpPopularity) {
  const RunSettings run = Settings(1, 2, 1e-5);
  absl::StatusOr<NewRun> noisy = Start("dp-popularity", run, {});
  ASSERT_TRUE(noisy.ok()) << noisy.status();
  EXPECT_EQ(Field(*noisy, "noise"), "ddg");
  EXPECT_EQ(Field(*noisy, "max_items"), "60");  // 64, capped by the catalogue
  EXPECT_EQ(Field(*noisy, "scale"), "16");
  absl::StatusOr<NewRun> exact = Start("dp-popularity", run, {"noise=false", "max_items=0"});
  ASSERT_TRUE(exact.ok()) << exact.status();
  EXPECT_EQ(Field(*exact, "noise"), "none");
  EXPECT_EQ(Field(*exact, "max_items"), "0");
  EXPECT_THAT(Start("dp-popularity", run, {"max_items=0"}).status().message(),
              HasSubstr("dp-popularity: max_items=0 must be >= 1 with noise"));
  EXPECT_THAT(Start("dp-popularity", run, {"scale=0"}).status().message(),
              HasSubstr("dp-popularity: scale=0 must be in [1, 2^20]"));
}

TEST(AlgorithmOptionsTest, PriviRec) {
  const RunSettings run = Settings(1, 1, std::nullopt);
  absl::StatusOr<NewRun> plain = Start("privirec", run, {});
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(Field(*plain, "filter"), "gf-cf");
  EXPECT_EQ(Field(*plain, "epsilon"), "<absent>");
  absl::StatusOr<NewRun> turbo = Start("privirec", run, {"filter=turbo-cf", "frac_bits=20"});
  ASSERT_TRUE(turbo.ok()) << turbo.status();
  EXPECT_EQ(Field(*turbo, "filter"), "turbo-cf");
  EXPECT_EQ(Field(*turbo, "frac_bits"), "20");
  absl::StatusOr<NewRun> noisy = Start("privirec", run, {"epsilon=5", "noise_parties=5"});
  ASSERT_TRUE(noisy.ok()) << noisy.status();
  EXPECT_EQ(Field(*noisy, "epsilon"), "5");
  EXPECT_EQ(Field(*noisy, "noise_parties"), "5");
  EXPECT_THAT(Start("privirec", run, {"frac_bits=-1"}).status().message(),
              HasSubstr("privirec: frac_bits=-1 must be >= 0"));
  EXPECT_THAT(Start("privirec", run, {"noise_parties=3"}).status().message(),
              HasSubstr("noise_parties=3 (option noise_parties) needs option epsilon > 0"));
}

TEST(AlgorithmOptionsTest, PriviRecK) {
  const RunSettings run = Settings(1, 1, std::nullopt);
  absl::StatusOr<NewRun> run16 = Start("privirec-k", run, {"rank=16", "rayleigh_ritz=false"});
  ASSERT_TRUE(run16.ok()) << run16.status();
  EXPECT_EQ(Field(*run16, "rank"), "16");
  EXPECT_EQ(Field(*run16, "power_sums"), "2");
  EXPECT_EQ(Field(*run16, "rayleigh_ritz"), "no");
  // The default k = 256 exceeds these 60 items.
  EXPECT_THAT(Start("privirec-k", run, {}).status().message(),
              HasSubstr("privirec-k: rank=256 must be in [1, num_items = 60]"));
  EXPECT_THAT(Start("privirec-k", run, {"rank=16", "power_sums=0"}).status().message(),
              HasSubstr("privirec-k: power_sums=0 must be >= 1"));
  absl::StatusOr<NewRun> noisy = Start("privirec-k", run, {"rank=16", "epsilon=5"});
  ASSERT_TRUE(noisy.ok()) << noisy.status();
  EXPECT_EQ(Field(*noisy, "degree_clip"), "100");
}

}  // namespace
}  // namespace fedmf::algorithms
