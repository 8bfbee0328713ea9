#include "common/metrics/metrics.h"

#include <omp.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace fedmf::metrics {
namespace {

constexpr double kTol = 1e-12;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// One rating of a hand-written example, in the example's own user/item numbering.
struct Entry {
  int user;
  int item;
  float rating;
  bool test;  // true: held out in the test set; false: training set
};

// A train/test pair over one index space plus a scorer reading a score table written in the
// example's numbering (scores[user][item]); the builder's dense indices are mapped back to it.
struct Split {
  data::RatingsDataset train;
  data::RatingsDataset test;
  std::vector<std::vector<double>> dense_scores;  // [dense user][dense item]

  UserScorer Scorer() const {
    return [this](int32_t u, absl::Span<double> scores) {
      ASSERT_EQ(scores.size(), dense_scores[u].size());
      std::copy(dense_scores[u].begin(), dense_scores[u].end(), scores.begin());
    };
  }
};

Split MakeSplit(const std::vector<Entry>& entries, const std::vector<std::vector<double>>& scores) {
  data::RatingsBuilder builder;
  std::map<std::pair<int, int>, bool> is_test;
  for (const Entry& e : entries) {
    builder.Add(absl::StrCat(e.user), absl::StrCat(e.item), e.rating, std::nullopt);
    is_test[{e.user, e.item}] = e.test;
  }
  absl::StatusOr<data::RatingsDataset> all = std::move(builder).Build();
  EXPECT_TRUE(all.ok()) << all.status();
  if (!all.ok()) return {};
  std::vector<int64_t> train_idx, test_idx;
  for (int64_t k = 0; k < all->num_ratings(); ++k) {
    const data::Rating r = all->rating(k);
    const int user = std::stoi(all->user_id(r.user));
    const int item = std::stoi(all->item_id(r.item));
    (is_test.at({user, item}) ? test_idx : train_idx).push_back(k);
  }
  Split split{all->Subset(train_idx), all->Subset(test_idx), {}};
  split.dense_scores.assign(all->num_users(), std::vector<double>(all->num_items(), 0.0));
  for (int32_t u = 0; u < all->num_users(); ++u) {
    for (int32_t i = 0; i < all->num_items(); ++i) {
      split.dense_scores[u][i] =
          scores.at(std::stoi(all->user_id(u))).at(std::stoi(all->item_id(i)));
    }
  }
  return split;
}

TEST(MetricsTest, ErrorsWeightRatingsVersusUsers) {
  // User 0 has 3 test ratings with errors 1, -2, 0.5; user 1 has one with error 2; user 2 only
  // trains. Squared errors 1 + 4 + 0.25 + 4 = 9.25 over 4 ratings; absolute 1 + 2 + 0.5 + 2 = 5.5.
  // Per-user RMSE: user 0 sqrt(5.25 / 3) = sqrt(1.75), user 1 sqrt(4 / 1) = 2.
  const Split s = MakeSplit({{0, 0, 3, true},
                             {0, 1, 4, true},
                             {0, 2, 2, true},
                             {1, 3, 1, true},
                             {1, 4, 3, false},
                             {2, 0, 5, false}},
                            {{4, 2, 2.5, 9, 9}, {9, 9, 9, 3, 9}, {9, 9, 9, 9, 9}});
  std::atomic<int> calls{0};
  const UserScorer scorer = s.Scorer();
  const ErrorMetrics m = EvaluateErrors(s.test, [&](int32_t u, absl::Span<double> out) {
    ++calls;
    scorer(u, out);
  });
  EXPECT_NEAR(m.rmse, std::sqrt(9.25 / 4), kTol);  // 1.5207...
  EXPECT_NEAR(m.mae, 5.5 / 4, kTol);
  EXPECT_NEAR(m.per_user_rmse, (std::sqrt(1.75) + 2.0) / 2, kTol);  // 1.6614..., not the RMSE
  EXPECT_EQ(m.num_ratings, 4);
  EXPECT_EQ(m.num_users, 2);
  EXPECT_EQ(calls.load(), 2);  // user 2 has no test ratings
}

TEST(MetricsTest, TrainingItemsAreNeverRecommended) {
  // Items 0 and 1 are training items with the highest scores. Candidates 2, 3, 4 rank as
  // 3 (8), 4 (5), 2 (1); top 2 = [3, 4], relevant {2, 4}: tp = 1. Without the exclusion the
  // list would be [0, 1] with tp = 0.
  const Split s = MakeSplit(
      {{0, 0, 5, false}, {0, 1, 5, false}, {0, 2, 5, true}, {0, 3, 2, true}, {0, 4, 4, true}},
      {{10, 9, 1, 8, 5}});
  const RankingMetrics m = EvaluateRanking(s.train, s.test, s.Scorer(), {.top_n = 2});
  EXPECT_NEAR(m.precision, 1.0 / 2, kTol);
  EXPECT_NEAR(m.recall, 1.0 / 2, kTol);
  EXPECT_NEAR(m.map, 1.0 / 2, kTol);  // (1/1) * P(2) = 1/2
  EXPECT_EQ(m.num_users, 1);
}

TEST(MetricsTest, EnumeratedRankingOfTwoUsers) {
  // N = 3, threshold 4.
  // User 0: train {0}; test 1 (5), 2 (3), 3 (4), 5 (1); relevant {1, 3}.
  //   Candidates ranked: 4 (.95), 2 (.9), 1 (.8), 3 (.7), 5 (.1) -> list [4, 2, 1], rel [0, 0, 1].
  //   P = 1/3, R = 1/2, AP = (1/1) * P(3) = 1/3, DCG = 1/log2(4) = 1/2, IDCG = 1 + 1/log2(3).
  // User 1: train {4, 5}; test 0 (4), 1 (2), 2 (5), 3 (4); relevant {0, 2, 3}.
  //   Candidates ranked: 0 (3), 2 (2.5), 1 (2), 3 (1) -> list [0, 2, 1], rel [1, 1, 0].
  //   P = 2/3, R = 2/3, AP = (1/2)(1/1 + 2/2) = 1, DCG = 1 + 1/log2(3),
  //   IDCG = 1 + 1/log2(3) + 1/log2(4).
  // Means: P = 1/2, R = (1/2 + 2/3)/2 = 7/12, F1 = 2 (1/2)(7/12) / (13/12) = 7/13, mAP = 2/3.
  const Split s = MakeSplit({{0, 0, 5, false},
                             {0, 1, 5, true},
                             {0, 2, 3, true},
                             {0, 3, 4, true},
                             {0, 5, 1, true},
                             {1, 4, 4, false},
                             {1, 5, 2, false},
                             {1, 0, 4, true},
                             {1, 1, 2, true},
                             {1, 2, 5, true},
                             {1, 3, 4, true}},
                            {{9, 0.8, 0.9, 0.7, 0.95, 0.1}, {3, 2, 2.5, 1, 5, 4}});
  const RankingMetrics m = EvaluateRanking(s.train, s.test, s.Scorer(), {.top_n = 3});
  const double inv_log3 = 1 / std::log2(3.0);
  const double ndcg0 = 0.5 / (1 + inv_log3);
  const double ndcg1 = (1 + inv_log3) / (1.5 + inv_log3);
  EXPECT_NEAR(m.precision, 1.0 / 2, kTol);
  EXPECT_NEAR(m.recall, 7.0 / 12, kTol);
  EXPECT_NEAR(m.f1, 7.0 / 13, kTol);
  EXPECT_NEAR(m.map, 2.0 / 3, kTol);
  EXPECT_NEAR(m.ndcg, (ndcg0 + ndcg1) / 2, kTol);
  EXPECT_EQ(m.num_users, 2);
  EXPECT_EQ(m.num_skipped_users, 0);
}

// One user, no training items, test ratings 5, 1, 4, 1, 1 on items 0..4 and scores that rank
// the items 0, 1, 2, 3, 4: with N = 3 the list is [0, 1, 2], relevant at positions 1 and 3.
std::vector<Entry> RelevantAtOneAndThree(int user) {
  return {{user, 0, 5, true},
          {user, 1, 1, true},
          {user, 2, 4, true},
          {user, 3, 1, true},
          {user, 4, 1, true}};
}

TEST(MetricsTest, AveragePrecisionAndNdcgWithRelevantAtOneAndThree) {
  const Split s = MakeSplit(RelevantAtOneAndThree(0), {{5, 4, 3, 2, 1}});
  const RankingMetrics m = EvaluateRanking(s.train, s.test, s.Scorer(), {.top_n = 3});
  EXPECT_NEAR(m.map, 0.5 * (1.0 / 1 + 2.0 / 3), kTol);  // 5/6
  EXPECT_NEAR(m.precision, 2.0 / 3, kTol);
  EXPECT_NEAR(m.recall, 1.0, kTol);
  EXPECT_NEAR(m.f1, 2 * (2.0 / 3) / (2.0 / 3 + 1), kTol);  // 4/5
  // DCG = 1/log2(2) + 1/log2(4) = 1.5; IDCG over min(3, 2) = 2 positions = 1 + 1/log2(3).
  EXPECT_NEAR(m.ndcg, 1.5 / (1 + 1 / std::log2(3.0)), kTol);
}

TEST(MetricsTest, ApAtNAlsoChargesRelevantItemsTheListMissed) {
  // Relevant items 0, 2 and 4; N = 3 and the list is [0, 1, 2]: rel = [1, 0, 1], tp = 2.
  // Eq. 56: AP = (1/2)(1/1 + 2/3) = 5/6. AP@N divides the same sum by min(3, 3): (5/3)/3 = 5/9.
  const Split s = MakeSplit(
      {{0, 0, 5, true}, {0, 1, 1, true}, {0, 2, 4, true}, {0, 3, 2, true}, {0, 4, 5, true}},
      {{5, 4, 3, 2, 1}});
  const RankingMetrics m = EvaluateRanking(s.train, s.test, s.Scorer(), {.top_n = 3});
  EXPECT_NEAR(m.map, 5.0 / 6, kTol);
  EXPECT_NEAR(m.map_at_n, 5.0 / 9, kTol);
}

TEST(MetricsTest, PerfectRankingHasNdcgOne) {
  // Relevant items 0 and 2 score highest: list [0, 2, 1], DCG = IDCG = 1 + 1/log2(3).
  const Split s = MakeSplit(RelevantAtOneAndThree(0), {{5, 3, 4, 2, 1}});
  const RankingMetrics m = EvaluateRanking(s.train, s.test, s.Scorer(), {.top_n = 3});
  EXPECT_NEAR(m.ndcg, 1.0, kTol);
  EXPECT_NEAR(m.map, 1.0, kTol);  // (1/2)(1/1 + 2/2)
}

TEST(MetricsTest, MoreRelevantItemsThanN) {
  // All 5 test items relevant, N = 2: list [0, 1], rel [1, 1]. P = 1, R = 2/5, AP = 1,
  // DCG = 1 + 1/log2(3) = IDCG over min(2, 5) = 2 positions, so NDCG = 1.
  const Split s = MakeSplit(
      {{0, 0, 5, true}, {0, 1, 4, true}, {0, 2, 5, true}, {0, 3, 4, true}, {0, 4, 5, true}},
      {{5, 4, 3, 2, 1}});
  const RankingMetrics m = EvaluateRanking(s.train, s.test, s.Scorer(), {.top_n = 2});
  EXPECT_NEAR(m.precision, 1.0, kTol);
  EXPECT_NEAR(m.recall, 2.0 / 5, kTol);
  EXPECT_NEAR(m.f1, 2 * 0.4 / 1.4, kTol);  // 4/7
  EXPECT_NEAR(m.map, 1.0, kTol);
  EXPECT_NEAR(m.ndcg, 1.0, kTol);
}

TEST(MetricsTest, UsersWithoutRelevantItemsAreSkippedAndCounted) {
  // User 0 as in the positions-1-and-3 case; user 1 has test ratings 3 and 2 (none relevant);
  // user 2 only has a training rating. Means are user 0's values alone.
  std::vector<Entry> entries = RelevantAtOneAndThree(0);
  entries.push_back({1, 0, 3, true});
  entries.push_back({1, 1, 2, true});
  entries.push_back({2, 3, 5, false});
  const Split s = MakeSplit(entries, {{5, 4, 3, 2, 1}, {1, 2, 3, 4, 5}, {1, 2, 3, 4, 5}});
  const RankingMetrics m = EvaluateRanking(s.train, s.test, s.Scorer(), {.top_n = 3});
  EXPECT_EQ(m.num_users, 1);
  EXPECT_EQ(m.num_skipped_users, 1);
  EXPECT_NEAR(m.map, 5.0 / 6, kTol);
  EXPECT_NEAR(m.recall, 1.0, kTol);
}

TEST(MetricsTest, TiesAreBrokenByAscendingItemIndex) {
  // All scores equal: the list is [0, 1] (by index), relevant {1, 4}: rel [0, 1].
  // P = 1/2, R = 1/2, AP = (1/1) * P(2) = 1/2, NDCG = (1/log2(3)) / (1 + 1/log2(3)).
  // (Descending indices would give [4, 3] with AP = 1.)
  const Split s = MakeSplit(
      {{0, 0, 1, true}, {0, 1, 4, true}, {0, 2, 1, true}, {0, 3, 1, true}, {0, 4, 5, true}},
      {{0, 0, 0, 0, 0}});
  const RankingMetrics m = EvaluateRanking(s.train, s.test, s.Scorer(), {.top_n = 2});
  const double inv_log3 = 1 / std::log2(3.0);
  EXPECT_NEAR(m.precision, 0.5, kTol);
  EXPECT_NEAR(m.recall, 0.5, kTol);
  EXPECT_NEAR(m.map, 0.5, kTol);
  EXPECT_NEAR(m.ndcg, inv_log3 / (1 + inv_log3), kTol);
}

TEST(MetricsTest, NanScoresRankAsMinusInfinity) {
  // Scores [NaN, .5, -inf, .2, .1] rank as 1, 3, 4, then 0 and 2 (both -inf, index order).
  // Relevant {0}: with N = 4 it is at position 4: P = 1/4, R = 1, AP = P(4) = 1/4,
  // NDCG = (1/log2(5)) / 1.
  const Split s = MakeSplit(
      {{0, 0, 5, true}, {0, 1, 1, true}, {0, 2, 1, true}, {0, 3, 1, true}, {0, 4, 1, true}},
      {{kNaN, 0.5, -kInf, 0.2, 0.1}});
  const RankingMetrics m = EvaluateRanking(s.train, s.test, s.Scorer(), {.top_n = 4});
  EXPECT_NEAR(m.precision, 0.25, kTol);
  EXPECT_NEAR(m.recall, 1.0, kTol);
  EXPECT_NEAR(m.map, 0.25, kTol);
  EXPECT_NEAR(m.ndcg, 1 / std::log2(5.0), kTol);
  // With N = 1 the list is [1]: the NaN-scored relevant item 0 must not take the top.
  const RankingMetrics top1 = EvaluateRanking(s.train, s.test, s.Scorer(), {.top_n = 1});
  EXPECT_EQ(top1.precision, 0);
  EXPECT_EQ(top1.ndcg, 0);
  EXPECT_EQ(top1.map, 0);
  EXPECT_EQ(top1.f1, 0);  // P + R = 0: defined as 0, not NaN
}

TEST(MetricsTest, TopNLargerThanCandidates) {
  // Train {0}; candidates 1 (3), 2 (2), 3 (1) -> list [1, 2, 3] of length 3 < N = 10,
  // relevant {1, 3}: rel [1, 0, 1], tp = 2. P = 2/10 (divided by N), R = 1,
  // AP = (1/2)(1/1 + 2/3) = 5/6, DCG = 1 + 1/log2(4) = 1.5, IDCG over min(10, 2) = 2 positions.
  const Split s = MakeSplit({{0, 0, 5, false}, {0, 1, 5, true}, {0, 2, 2, true}, {0, 3, 4, true}},
                            {{10, 3, 2, 1}});
  const RankingMetrics m = EvaluateRanking(s.train, s.test, s.Scorer(), {.top_n = 10});
  EXPECT_NEAR(m.precision, 0.2, kTol);
  EXPECT_NEAR(m.recall, 1.0, kTol);
  EXPECT_NEAR(m.f1, 2 * 0.2 / 1.2, kTol);  // 1/3
  EXPECT_NEAR(m.map, 5.0 / 6, kTol);
  EXPECT_NEAR(m.ndcg, 1.5 / (1 + 1 / std::log2(3.0)), kTol);
}

TEST(MetricsTest, PriviRecRecallAndNdcgAtTwenty) {
  // 25 items, no training items, item i scores 25 - i so the ranking is 0, 1, ..., 24.
  // Relevant {4, 21}: position 5 is in the top 20, position 22 is not.
  // Recall@20 = 1/2; NDCG@20 = (1/log2(6)) / (1 + 1/log2(3)).
  std::vector<Entry> entries;
  std::vector<double> scores;
  for (int i = 0; i < 25; ++i) {
    entries.push_back({0, i, (i == 4 || i == 21) ? 4.0f : 2.0f, true});
    scores.push_back(25 - i);
  }
  const Split s = MakeSplit(entries, {scores});
  EXPECT_EQ(kPriviRecRanking.top_n, 20);
  const RankingMetrics m = EvaluateRanking(s.train, s.test, s.Scorer(), kPriviRecRanking);
  EXPECT_NEAR(m.recall, 0.5, kTol);
  EXPECT_NEAR(m.ndcg, (1 / std::log2(6.0)) / (1 + 1 / std::log2(3.0)), kTol);
  EXPECT_NEAR(m.precision, 1.0 / 20, kTol);
}

TEST(MetricsTest, EmptyTestSetGivesZeros) {
  const Split s = MakeSplit({{0, 0, 5, false}, {1, 1, 4, false}}, {{1, 2}, {3, 4}});
  ASSERT_EQ(s.test.num_ratings(), 0);
  const ErrorMetrics e = EvaluateErrors(s.test, s.Scorer());
  EXPECT_EQ(e.rmse, 0);
  EXPECT_EQ(e.mae, 0);
  EXPECT_EQ(e.per_user_rmse, 0);
  EXPECT_EQ(e.num_ratings, 0);
  EXPECT_EQ(e.num_users, 0);
  const RankingMetrics r = EvaluateRanking(s.train, s.test, s.Scorer());
  for (double v : {r.precision, r.recall, r.f1, r.map, r.ndcg}) EXPECT_EQ(v, 0);
  EXPECT_EQ(r.num_users, 0);
  EXPECT_EQ(r.num_skipped_users, 0);

  const data::RatingsDataset none;  // no users, no items at all
  EXPECT_EQ(EvaluateErrors(none, s.Scorer()).num_users, 0);
  EXPECT_EQ(EvaluateRanking(none, none, s.Scorer()).num_users, 0);
}

TEST(MetricsTest, OptionsValidation) {
  EXPECT_TRUE(RankingOptions{}.Validate().ok());
  EXPECT_TRUE(kDpmfRpRanking.Validate().ok());
  EXPECT_TRUE(kPriviRecRanking.Validate().ok());
  EXPECT_EQ(kDpmfRpRanking.top_n, 10);
  EXPECT_EQ(kDpmfRpRanking.relevance_threshold, 4.0);
  EXPECT_EQ(RankingOptions{.top_n = 0}.Validate().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RankingOptions{.top_n = -3}.Validate().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RankingOptions{.relevance_threshold = kNaN}.Validate().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RankingOptions{.relevance_threshold = kInf}.Validate().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(MetricsTest, ResultsDoNotDependOnThreadCount) {
  // 300 users x 200 items, ~30 ratings per user (1..5 stars, a fifth held out), scores on a
  // half-star grid so that ties are frequent. Fixed seed.
  constexpr int kUsers = 300, kItems = 200;
  std::mt19937_64 rng(20240611);
  std::uniform_int_distribution<int> star(1, 5), grid(0, 10), pick(0, 99);
  std::vector<Entry> entries;
  std::vector<std::vector<double>> scores(kUsers, std::vector<double>(kItems));
  for (int u = 0; u < kUsers; ++u) {
    for (int i = 0; i < kItems; ++i) {
      scores[u][i] = 0.5 * grid(rng) + 1.0 / 3;  // ties, but inexact (order-sensitive) errors
      const int p = pick(rng);
      if (p < 15 || (u == 0)) entries.push_back({u, i, static_cast<float>(star(rng)), p < 3});
    }
  }
  const Split s = MakeSplit(entries, scores);
  ASSERT_EQ(s.test.num_items(), kItems);

  const int saved = omp_get_max_threads();
  std::vector<ErrorMetrics> errors;
  std::vector<RankingMetrics> rankings;
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    errors.push_back(EvaluateErrors(s.test, s.Scorer()));
    rankings.push_back(EvaluateRanking(s.train, s.test, s.Scorer(), {.top_n = 10}));
  }
  omp_set_num_threads(saved);

  ASSERT_GT(errors[0].num_users, 100);
  ASSERT_GT(rankings[0].num_users, 50);
  ASSERT_GT(rankings[0].num_skipped_users, 0);
  for (size_t k = 1; k < errors.size(); ++k) {
    // Bitwise equality, not closeness: sums run in user order whatever the schedule.
    EXPECT_EQ(errors[k].rmse, errors[0].rmse);
    EXPECT_EQ(errors[k].mae, errors[0].mae);
    EXPECT_EQ(errors[k].per_user_rmse, errors[0].per_user_rmse);
    EXPECT_EQ(errors[k].num_ratings, errors[0].num_ratings);
    EXPECT_EQ(rankings[k].precision, rankings[0].precision);
    EXPECT_EQ(rankings[k].recall, rankings[0].recall);
    EXPECT_EQ(rankings[k].f1, rankings[0].f1);
    EXPECT_EQ(rankings[k].map, rankings[0].map);
    EXPECT_EQ(rankings[k].ndcg, rankings[0].ndcg);
    EXPECT_EQ(rankings[k].num_users, rankings[0].num_users);
    EXPECT_EQ(rankings[k].num_skipped_users, rankings[0].num_skipped_users);
  }
}

}  // namespace
}  // namespace fedmf::metrics
