#include "common/metrics/user_metrics.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace fedmf::metrics {
namespace {

constexpr double kHandComputedTol = 1e-12;  // double rounding of values worked out by hand

// A user row from parallel arrays (items ascending).
struct Row {
  std::vector<int32_t> items;
  std::vector<float> ratings;
  data::RatingRow view() const { return {items, ratings, {}}; }
};

TEST(UserMetricsTest, ErrorSumsOfOneUser) {
  // Test ratings: item 0 rated 3 (score 4, e = 1), item 2 rated 5 (score 3.5, e = -1.5).
  // Squared 1 + 2.25 = 3.25, absolute 1 + 1.5 = 2.5, count 2. Item 1 is not a test item.
  const Row test{{0, 2}, {3, 5}};
  const std::vector<double> scores = {4, 100, 3.5};
  const UserErrors e = EvaluateUserErrors(test.view(), scores);
  EXPECT_NEAR(e.squared, 3.25, kHandComputedTol);
  EXPECT_NEAR(e.absolute, 2.5, kHandComputedTol);
  EXPECT_EQ(e.count, 2);
  const UserErrors none = EvaluateUserErrors(Row{}.view(), scores);
  EXPECT_EQ(none.count, 0);
  EXPECT_EQ(none.squared, 0);
}

TEST(UserMetricsTest, RankingValuesOfOneUser) {
  // Six items; item 1 is a training item (never a candidate). Test: item 0 rated 5, item 3 rated
  // 4 (both relevant at threshold 4), item 4 rated 2. Scores rank the candidates 0 (0.9), 2
  // (0.8), 4 (0.7), 5 (0.6), 3 (0.1). Top 2 = [0, 2]: rel = (1, 0), tp = 1, R_u = 2.
  // precision = 1/2, recall = 1/2, P(1) = 1 so AP = 1/1 = 1 and AP@2 = 1/min(2, 2) = 1/2,
  // DCG = 1/log2(2) = 1, IDCG = 1 + 1/log2(3), NDCG = 1 / (1 + 1/log2(3)).
  const Row train{{1}, {5}};
  const Row test{{0, 3, 4}, {5, 4, 2}};
  const std::vector<double> scores = {0.9, 5.0, 0.8, 0.1, 0.7, 0.6};
  const RankingOptions options{.top_n = 2, .relevance_threshold = 4};
  EXPECT_EQ(CountRelevant(test.view(), options), 2);
  std::vector<int32_t> scratch = {7, 7, 7};  // stale contents must not matter
  const UserRanking r = EvaluateUserRanking(train.view(), test.view(), scores, options, &scratch);
  EXPECT_EQ(r.relevant, 2);
  EXPECT_NEAR(r.precision, 0.5, kHandComputedTol);
  EXPECT_NEAR(r.recall, 0.5, kHandComputedTol);
  EXPECT_NEAR(r.ap, 1.0, kHandComputedTol);
  EXPECT_NEAR(r.ap_at_n, 0.5, kHandComputedTol);
  EXPECT_NEAR(r.ndcg, 1.0 / (1.0 + 1.0 / std::log2(3.0)), kHandComputedTol);
  // Without scratch space: the same values.
  const UserRanking again = EvaluateUserRanking(train.view(), test.view(), scores, options);
  EXPECT_EQ(again.precision, r.precision);
  EXPECT_EQ(again.ndcg, r.ndcg);
}

TEST(UserMetricsTest, UserWithoutRelevantTestItemsIsNotEvaluated) {
  const Row test{{0, 1}, {3, 2}};
  const std::vector<double> scores = {1, 2, 3};
  const UserRanking r = EvaluateUserRanking(Row{}.view(), test.view(), scores, kDpmfRpRanking);
  EXPECT_EQ(r.relevant, 0);
  EXPECT_EQ(r.precision, 0);
  EXPECT_EQ(r.ndcg, 0);
}

TEST(UserMetricsTest, SumsAndTheMetricsTheyGive) {
  // User A: squared 3.25 over 2 ratings, absolute 2.5; user B: squared 4 over 1, absolute 2;
  // user C: no test ratings. RMSE = sqrt(7.25 / 3), MAE = 4.5 / 3 = 1.5,
  // per-user RMSE = (sqrt(3.25 / 2) + sqrt(4)) / 2.
  MetricSums s;
  s.Add(UserErrors{.squared = 3.25, .absolute = 2.5, .count = 2});
  s.Add(UserErrors{.squared = 4, .absolute = 2, .count = 1});
  s.Add(UserErrors{});
  EXPECT_EQ(s.num_ratings, 3);
  EXPECT_EQ(s.error_users, 2);
  EXPECT_NEAR(s.user_rmse, std::sqrt(1.625) + 2, kHandComputedTol);
  const ErrorMetrics e = s.Errors();
  EXPECT_NEAR(e.rmse, std::sqrt(7.25 / 3), kHandComputedTol);
  EXPECT_NEAR(e.mae, 1.5, kHandComputedTol);
  EXPECT_NEAR(e.per_user_rmse, (std::sqrt(1.625) + 2) / 2, kHandComputedTol);
  EXPECT_EQ(e.num_ratings, 3);
  EXPECT_EQ(e.num_users, 2);

  // Ranking: A has P = 0.5, R = 0.5; B has P = 0.1, R = 1; C has test ratings but none relevant
  // (skipped); D has no test ratings (ignored). Mean P = 0.3, mean R = 0.75,
  // F1 = 2 * 0.3 * 0.75 / 1.05 = 3/7 (eq. 55: of the means, not the mean of per-user F1).
  s.Add(
      UserRanking{
          .relevant = 2, .precision = 0.5, .recall = 0.5, .ap = 1, .ap_at_n = 0.5, .ndcg = 0.6},
      true);
  s.Add(
      UserRanking{
          .relevant = 1, .precision = 0.1, .recall = 1, .ap = 0.25, .ap_at_n = 0.25, .ndcg = 0.4},
      true);
  s.Add(UserRanking{}, /*has_test=*/true);
  s.Add(UserRanking{}, /*has_test=*/false);
  const RankingMetrics r = s.Ranking();
  EXPECT_EQ(r.num_users, 2);
  EXPECT_EQ(r.num_skipped_users, 1);
  EXPECT_NEAR(r.precision, 0.3, kHandComputedTol);
  EXPECT_NEAR(r.recall, 0.75, kHandComputedTol);
  EXPECT_NEAR(r.f1, 3.0 / 7.0, kHandComputedTol);
  EXPECT_NEAR(r.map, 0.625, kHandComputedTol);
  EXPECT_NEAR(r.map_at_n, 0.375, kHandComputedTol);
  EXPECT_NEAR(r.ndcg, 0.5, kHandComputedTol);
}

TEST(UserMetricsTest, EmptySumsGiveZeros) {
  const MetricSums s;
  EXPECT_EQ(s.Errors().rmse, 0);
  EXPECT_EQ(s.Errors().num_users, 0);
  EXPECT_EQ(s.Ranking().f1, 0);
  EXPECT_EQ(s.Ranking().num_users, 0);
  EXPECT_FALSE(s.errors_absent());  // no user with test ratings: zeros, as before
}

// Users with test ratings whose model predicts no ratings add a ranking part only: the error
// part is then absent, not 0. One user with rating errors makes it present.
TEST(UserMetricsTest, ErrorsAreAbsentWhenUsersWithTestRatingsHaveNoRatingErrors) {
  MetricSums ranked_only;
  ranked_only.Add(UserRanking{.relevant = 1, .precision = 0.1, .recall = 1}, /*has_test=*/true);
  EXPECT_TRUE(ranked_only.errors_absent());
  MetricSums skipped_only;
  skipped_only.Add(UserRanking{}, /*has_test=*/true);
  EXPECT_TRUE(skipped_only.errors_absent());
  MetricSums no_test;
  no_test.Add(UserRanking{}, /*has_test=*/false);
  EXPECT_FALSE(no_test.errors_absent());
  MetricSums rated = ranked_only;
  rated.Add(UserErrors{.squared = 1, .absolute = 1, .count = 1});
  EXPECT_FALSE(rated.errors_absent());
}

}  // namespace
}  // namespace fedmf::metrics
