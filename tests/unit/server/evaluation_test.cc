// server::Evaluate (evaluation.h): the central metrics through the model's Scorer are bit for
// bit those of the factor formulas it used before models were scored through algorithms::Scorer,
// including a user with test ratings but no train ratings (the mean train rating as fallback).
#include "server/evaluation.h"

#include <cstdint>
#include <vector>

#include "common/algorithms/dpmf_rp/contributor.h"
#include "common/algorithms/factor_scorer.h"
#include "common/mf/rating_predictor.h"
#include "gtest/gtest.h"
#include "tests/unit/client/test_round.h"

namespace fedmf::server {
namespace {

// User 0's ratings all in test (no train ratings); every fourth rating of the others in test.
data::TrainTest SplitWithAColdUser() {
  const std::shared_ptr<const data::RatingsDataset> all = client::test_util::SmallData();
  std::vector<int64_t> train, test;
  for (int64_t k = 0; k < all->num_ratings(); ++k) {
    (all->rating(k).user == 0 || k % 4 == 0 ? test : train).push_back(k);
  }
  return {all->Subset(train), all->Subset(test)};
}

TEST(EvaluationTest, EqualsTheFactorFormulasExactly) {
  const data::TrainTest split = SplitWithAColdUser();
  ASSERT_EQ(split.train.user(0).size(), 0);
  ASSERT_GT(split.test.user(0).size(), 0);
  const auto updater = client::test_util::SmallUpdater();
  const absl::StatusOr<Evaluation> e = Evaluate(*updater, split);
  ASSERT_TRUE(e.ok()) << e.status();

  const auto contributor =
      algorithms::dpmf_rp::DpmfRpContributor::Create(updater->Plan().value()).value();
  const algorithms::FactorScorer& model = contributor->scorer();
  const mf::FactorMatrix& items = model.item_factors();
  std::vector<Eigen::VectorXd> factors;
  for (int32_t u = 0; u < split.train.num_users(); ++u) {
    factors.push_back(model.UserFactor(split.train.user(u)).value());
  }
  const std::vector<mf::RatingPredictor> predictors =
      mf::FitRatingPredictors(items, split.train, {}).value();
  const metrics::UserScorer rank_scorer = [&](int32_t user, absl::Span<double> scores) {
    Eigen::Map<Eigen::VectorXd>(scores.data(), static_cast<Eigen::Index>(scores.size())) =
        items * factors[static_cast<size_t>(user)];
  };
  const metrics::UserScorer rating_scorer = [&](int32_t user, absl::Span<double> scores) {
    const mf::RatingPredictor& p = predictors[static_cast<size_t>(user)];
    Eigen::Map<Eigen::VectorXd>(scores.data(), static_cast<Eigen::Index>(scores.size())) =
        ((items * p.weights()).array() + p.mean()).cwiseMax(1).cwiseMin(5);  // the 1-5 scale
  };
  const metrics::ErrorMetrics errors = metrics::EvaluateErrors(split.test, rating_scorer);
  const metrics::RankingMetrics ranking =
      metrics::EvaluateRanking(split.train, split.test, rank_scorer, metrics::kDpmfRpRanking);

  ASSERT_TRUE(e->errors.has_value());
  EXPECT_EQ(e->errors->rmse, errors.rmse);
  EXPECT_EQ(e->errors->mae, errors.mae);
  EXPECT_EQ(e->errors->per_user_rmse, errors.per_user_rmse);
  EXPECT_EQ(e->errors->num_ratings, errors.num_ratings);
  EXPECT_EQ(e->errors->num_users, errors.num_users);
  EXPECT_EQ(e->ranking.precision, ranking.precision);
  EXPECT_EQ(e->ranking.recall, ranking.recall);
  EXPECT_EQ(e->ranking.f1, ranking.f1);
  EXPECT_EQ(e->ranking.map, ranking.map);
  EXPECT_EQ(e->ranking.map_at_n, ranking.map_at_n);
  EXPECT_EQ(e->ranking.ndcg, ranking.ndcg);
  EXPECT_EQ(e->ranking.num_users, ranking.num_users);
  EXPECT_EQ(e->ranking.num_skipped_users, ranking.num_skipped_users);
}

TEST(EvaluationTest, RefusesDataOfAnotherItemCount) {
  data::SyntheticConfig c;
  c.num_users = 40;
  c.num_items = 31;
  c.ratings_per_user = 8;
  c.min_ratings_per_user = 4;
  const data::RatingsDataset other = data::GenerateSynthetic(c).value();
  const data::TrainTest split{other, other};
  EXPECT_EQ(Evaluate(*client::test_util::SmallUpdater(), split).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::server
