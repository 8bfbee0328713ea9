// fedmf-central's baselines without factors, against figures computed by hand on a tiny split, and
// its ldp-gd model (the local-DP MF paper's non-private GD) against the algorithm's own central GD,
// and its dp-sgdmf model against fmf_sgd's central DP-SGD at the budget's calibrated noise.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/algorithms/ldp_gd/central_gd.h"
#include "common/algorithms/ldp_gd/ldp_gd.h"
#include "common/algorithms/lib/fmf_sgd/central_dp_sgd.h"
#include "common/algorithms/lib/fmf_sgd/privacy.h"
#include "common/algorithms/lib/graph_filter/config.h"
#include "gtest/gtest.h"
#include "tools/central/trainer.h"

namespace fedmf::central {
namespace {

// Train: a rates i1 = 5, i2 = 3; b rates i1 = 4, i2 = 2, i3 = 1. Test: b's i4 = 1, an item no one
// rated in train.
data::TrainTest Split() {
  data::RatingsBuilder builder;
  builder.Add("a", "i1", 5, std::nullopt);
  builder.Add("a", "i2", 3, std::nullopt);
  builder.Add("b", "i1", 4, std::nullopt);
  builder.Add("b", "i2", 2, std::nullopt);
  builder.Add("b", "i3", 1, std::nullopt);
  builder.Add("b", "i4", 1, std::nullopt);
  const data::RatingsDataset all = std::move(builder).Build().value();
  const int64_t train[] = {0, 1, 2, 3, 4};
  const int64_t test[] = {5};
  return data::TrainTest{all.Subset(train), all.Subset(test)};
}

FoldResult Evaluate(const std::string& model) {
  TrainerConfig c;
  c.model = model;
  c.clip_predictions = false;
  return TrainAndEvaluate(Split(), c, 1).value();
}

TEST(CentralTrainerTest, MeanBaselinesPredictTheirMean) {
  // Train ratings 5, 3, 4, 2, 1: global mean 3; b's mean 7/3; item i4 has no train rating, so
  // the popularity model predicts the global mean there. The one test rating is b's i4 = 1.
  EXPECT_NEAR(Evaluate("global-mean").errors.rmse, 2, 1e-12);
  EXPECT_NEAR(Evaluate("user-mean").errors.rmse, 7.0 / 3 - 1, 1e-12);
  EXPECT_NEAR(Evaluate("popularity").errors.rmse, 2, 1e-12);
}

// Popularity ranks by train rating count through the probe's PopularityScorer: b's only candidate
// is i4 (a's are i3 and i4), so b's relevant i4 is first: recall 1, NDCG 1.
TEST(CentralTrainerTest, PopularityRanksByCount) {
  TrainerConfig c;
  c.model = "popularity";
  c.ranking.relevance_threshold = 1;
  c.long_ranking.relevance_threshold = 1;
  const FoldResult result = TrainAndEvaluate(Split(), c, 1).value();
  EXPECT_EQ(result.long_ranking.num_users, 1);
  EXPECT_DOUBLE_EQ(result.long_ranking.recall, 1);
  EXPECT_DOUBLE_EQ(result.long_ranking.ndcg, 1);
  EXPECT_TRUE(result.rating_errors);
}

// The graph filters rank through their Scorer and predict no ratings. Test: a's i3 (rated by b
// with i1 and i2, which a rated) must beat i4, which no one rated in train.
TEST(CentralTrainerTest, GraphFiltersRankWithoutRatingErrors) {
  data::RatingsBuilder builder;
  builder.Add("a", "i1", 5, std::nullopt);
  builder.Add("a", "i2", 3, std::nullopt);
  builder.Add("b", "i1", 4, std::nullopt);
  builder.Add("b", "i2", 2, std::nullopt);
  builder.Add("b", "i3", 1, std::nullopt);
  builder.Add("a", "i3", 1, std::nullopt);
  builder.AddItem("i4");
  const data::RatingsDataset all = std::move(builder).Build().value();
  const int64_t train[] = {0, 1, 3, 4, 5};  // by-user order: a i1, a i2, a i3, b i1, b i2, b i3
  const int64_t test[] = {2};
  const data::TrainTest split{all.Subset(train), all.Subset(test)};
  for (const std::string model : {"gf-cf", "turbo-cf", "bspm-lm", "bspm-em"}) {
    SCOPED_TRACE(model);
    ASSERT_TRUE(IsGraphFilter(model));
    EXPECT_FALSE(IsFactorModel(model));
    TrainerConfig c;
    c.model = model;
    c.graph_filter = algorithms::graph_filter::PublishedConfig(model).value();
    c.graph_filter.rank = 2;
    c.ranking.relevance_threshold = 1;
    c.long_ranking.relevance_threshold = 1;
    absl::StatusOr<FoldResult> result = TrainAndEvaluate(split, c, 1);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_FALSE(result->rating_errors);
    EXPECT_EQ(result->long_ranking.num_users, 1);
    EXPECT_DOUBLE_EQ(result->long_ranking.ndcg, 1);
  }
}

TEST(CentralTrainerTest, UnknownModelsAreNotFactorModels) {
  for (const char* m : kModels) {
    const std::string model = m;
    EXPECT_EQ(IsFactorModel(model),
              model == "als" || model == "central-mf" || model == "ldp-gd" || model == "dp-sgdmf");
  }
  TrainerConfig c;
  c.model = "user-mean";
  EXPECT_FALSE(Train(Split().train, c, 1).ok());
}

// fedmf-central --model=ldp-gd trains the item factors of algorithms::ldp_gd::TrainCentralGd on
// the same data and settings, without the correction factor.
TEST(CentralTrainerTest, LdpGdIsTheAlgorithmsNonPrivateGd) {
  const data::TrainTest split = Split();
  TrainerConfig c;
  c.model = "ldp-gd";
  c.gd.set_rank(2);
  c.gd.set_rounds(3);
  c.gd.set_seed(4);
  c.gd.set_learning_rate(1);
  c.gd.set_lambda_u(0.01);
  c.gd.set_lambda_v(0.02);
  c.gd.set_init_scale(0.3);
  c.gd.set_score_lambda(0.25);
  c.gd.set_score_kappa(15);
  const mf::FactorModel model = Train(split.train, c, 1).value();
  v1::LdpGdConfig expected = c.gd;
  expected.set_num_users(split.train.num_users());
  expected.set_num_items(split.train.num_items());
  expected.set_epsilon(1);
  expected.set_projection(v1::LDP_PROJECTION_NONE);
  expected.set_cohort_size(split.train.num_users());
  expected.set_min_contributors(1);
  const algorithms::ldp_gd::CentralGdModel gd =
      algorithms::ldp_gd::TrainCentralGd(split.train, expected).value();
  EXPECT_EQ(model.item_factors, gd.item_factors);
  EXPECT_EQ(model.user_factors.rows(), 2);
}

// fedmf-central --model=dp-sgdmf at epsilon 2 is fmf_sgd's central run with the noise multiplier
// calibrated for (2, 1e-5) per user, the same seed and the noise stream 2 of that seed.
TEST(CentralTrainerTest, DpSgdMfIsTheAlgorithmsCentralRun) {
  namespace fmf = algorithms::fmf_sgd;
  const data::TrainTest split = Split();
  TrainerConfig c;
  c.model = "dp-sgdmf";
  c.sgdmf.rank = 3;
  c.sgdmf.unit = dp::PrivacyUnit::kUser;
  c.sgdmf.max_ratings_per_user = 2;
  c.sgdmf.sampling_rate = 0.5;
  c.sgdmf.steps = 20;
  c.sgdmf_epsilon = 2;
  c.sgdmf_seed = 6;
  const mf::FactorModel model = Train(split.train, c, 1).value();
  fmf::DpSgdMfConfig expected = c.sgdmf;
  expected.noise_multiplier =
      fmf::CalibrateNoiseMultiplier(expected,
                                    dp::PrivacyBudget::ApproxDp(2, 1e-5, dp::PrivacyUnit::kUser))
          .value();
  EXPECT_GT(expected.noise_multiplier, 0);
  dp::Rng rng(6, 2);
  const fmf::CentralRun run = fmf::TrainCentralDpSgdMf(split.train, expected, 6, rng).value();
  EXPECT_EQ(model.user_factors, run.model.users);
  EXPECT_EQ(model.item_factors, run.model.items);
  EXPECT_EQ(run.ledger.entries().size(), 20u);
}

}  // namespace
}  // namespace fedmf::central
