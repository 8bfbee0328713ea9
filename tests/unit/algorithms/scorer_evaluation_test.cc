// EvaluateScorer (blocks of users through Scorer::ScoresBatch) against common/metrics' own
// evaluation of the same model, user by user.
#include "common/algorithms/scorer_evaluation.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "Eigen/Core"
#include "common/algorithms/factor_scorer.h"
#include "common/algorithms/lib/graph_filter/build.h"
#include "common/algorithms/lib/graph_filter/scorer.h"
#include "common/data/splits.h"
#include "common/data/synthetic.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/item_item_filter.h"

namespace fedmf::algorithms {
namespace {

data::TrainTest SyntheticSplit() {
  data::SyntheticConfig config;
  config.num_users = 60;
  config.num_items = 45;
  config.ratings_per_user = 12;
  config.min_ratings_per_user = 4;
  const data::RatingsDataset data = data::GenerateSynthetic(config).value();
  return data::SplitHoldoutPerUser(data, 0.25, 3).value();
}

// metrics' evaluation of `model`: each user scored alone from their train row.
metrics::UserScorer Ranks(const Scorer& model, const data::RatingsDataset& train) {
  return [&model, &train](int32_t user, absl::Span<double> out) {
    const Eigen::VectorXd scores = model.Scores(train.user(user)).value();
    std::copy(scores.begin(), scores.end(), out.begin());
  };
}
metrics::UserScorer Predicts(const Scorer& model, const data::RatingsDataset& train) {
  return [&model, &train](int32_t user, absl::Span<double> out) {
    const Eigen::VectorXd predicted =
        model.PredictRatings(train.user(user), train.MeanRating()).value();
    std::copy(predicted.begin(), predicted.end(), out.begin());
  };
}

void ExpectSameRanking(const metrics::RankingMetrics& a, const metrics::RankingMetrics& b) {
  EXPECT_EQ(a.num_users, b.num_users);
  EXPECT_EQ(a.num_skipped_users, b.num_skipped_users);
  EXPECT_DOUBLE_EQ(a.precision, b.precision);
  EXPECT_DOUBLE_EQ(a.recall, b.recall);
  EXPECT_DOUBLE_EQ(a.map, b.map);
  EXPECT_DOUBLE_EQ(a.map_at_n, b.map_at_n);
  EXPECT_DOUBLE_EQ(a.ndcg, b.ndcg);
}

TEST(ScorerEvaluationTest, BlocksGiveMetricsOwnFiguresForAnyBlockSize) {
  const data::TrainTest split = SyntheticSplit();
  const metrics::RankingOptions rankings[] = {{.top_n = 5, .relevance_threshold = 4},
                                              {.top_n = 20, .relevance_threshold = 1}};
  // A factor model (rating predictions, default ScoresBatch) and a graph filter (no ratings,
  // its own ScoresBatch).
  const FactorScorer factors(Eigen::MatrixXd::Random(split.train.num_items(), 3), 0.5, 2);
  graph_filter::GraphFilterConfig config = graph_filter::PublishedConfig("gf-cf").value();
  config.rank = 5;
  const graph_filter::GraphFilterScorer filter(
      graph_filter::BuildCentralFilter(split.train, config).value());
  for (const Scorer* model : std::vector<const Scorer*>{&factors, &filter}) {
    for (int32_t block : {1, 7, 1000}) {
      SCOPED_TRACE(block);
      int64_t last_done = 0, last_total = 0;
      ScorerEvaluationOptions options;
      options.block_users = block;
      options.progress = [&](int64_t done, int64_t total) {
        EXPECT_GT(done, last_done);
        last_done = done;
        last_total = total;
      };
      absl::StatusOr<std::vector<metrics::MetricSums>> sums =
          EvaluateScorer(*model, split, rankings, options);
      ASSERT_TRUE(sums.ok()) << sums.status();
      ASSERT_EQ(sums->size(), 2u);
      EXPECT_EQ(last_done, last_total);
      for (int r = 0; r < 2; ++r) {
        ExpectSameRanking((*sums)[r].Ranking(),
                          metrics::EvaluateRanking(split.train, split.test,
                                                   Ranks(*model, split.train), rankings[r]));
        EXPECT_EQ((*sums)[r].errors_absent(), !model->predicts_ratings());
      }
      if (model->predicts_ratings()) {
        const metrics::ErrorMetrics expected =
            metrics::EvaluateErrors(split.test, Predicts(*model, split.train));
        EXPECT_DOUBLE_EQ((*sums)[0].Errors().rmse, expected.rmse);
        EXPECT_DOUBLE_EQ((*sums)[1].Errors().mae, expected.mae);
        EXPECT_DOUBLE_EQ((*sums)[0].Errors().per_user_rmse, expected.per_user_rmse);
      }
    }
  }
}

TEST(ScorerEvaluationTest, Errors) {
  const data::TrainTest split = SyntheticSplit();
  const metrics::RankingOptions rankings[] = {{.top_n = 5, .relevance_threshold = 4}};
  const test_util::ItemItemFilter small = test_util::FiveItemFilter();
  EXPECT_EQ(EvaluateScorer(small, split, rankings).status().message(),
            "the model scores 5 items, the data has 45");
  const FactorScorer factors(Eigen::MatrixXd::Random(split.train.num_items(), 2), 0.5, 2);
  ScorerEvaluationOptions options;
  options.block_users = 0;
  EXPECT_FALSE(EvaluateScorer(factors, split, rankings, options).ok());
  const metrics::RankingOptions bad[] = {{.top_n = 0, .relevance_threshold = 4}};
  EXPECT_FALSE(EvaluateScorer(factors, split, bad).ok());
}

}  // namespace
}  // namespace fedmf::algorithms
