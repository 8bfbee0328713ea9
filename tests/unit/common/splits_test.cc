#include "common/data/splits.h"

#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "common/data/synthetic.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::data {
namespace {

using Pair = std::pair<int32_t, int32_t>;  // (user, item)

std::map<Pair, float> AllRatings(const RatingsDataset& d) {
  std::map<Pair, float> out;
  for (int64_t k = 0; k < d.num_ratings(); ++k) {
    const Rating r = d.rating(k);
    out[{r.user, r.item}] = r.rating;
  }
  return out;
}

// Train and test share the index space and are disjoint, and their union is the dataset.
void ExpectPartition(const RatingsDataset& data, const TrainTest& split) {
  EXPECT_EQ(split.train.id_maps(), data.id_maps());
  EXPECT_EQ(split.test.id_maps(), data.id_maps());
  std::map<Pair, float> merged = AllRatings(split.train);
  for (const auto& [pair, rating] : AllRatings(split.test)) {
    EXPECT_TRUE(merged.emplace(pair, rating).second)
        << "in both: " << pair.first << "," << pair.second;
  }
  EXPECT_EQ(merged, AllRatings(data));
}

RatingsDataset Synthetic(uint64_t seed = 5) {
  SyntheticConfig c;
  c.num_users = 120;
  c.num_items = 200;
  c.ratings_per_user = 12;
  c.min_ratings_per_user = 1;
  c.seed = seed;
  absl::StatusOr<RatingsDataset> d = GenerateSynthetic(c);
  EXPECT_TRUE(d.ok()) << d.status();
  return *std::move(d);
}

// Users with 1, 2, 3 and 5 ratings; timestamps chosen by hand.
RatingsDataset FewRatingsPerUser() {
  RatingsBuilder b;
  b.Add("one", "a", 1, 10);
  b.Add("two", "a", 2, 10);
  b.Add("two", "b", 3, 20);
  b.Add("three", "a", 4, 30);
  b.Add("three", "b", 5, 10);
  b.Add("three", "c", 1, 20);
  for (const char* item : {"a", "b", "c", "d", "e"}) b.Add("five", item, 3, 7);  // all tied
  absl::StatusOr<RatingsDataset> d = std::move(b).Build();
  EXPECT_TRUE(d.ok()) << d.status();
  return *std::move(d);
}

TEST(SplitsTest, HoldoutPartitionsWithinRoundingBounds) {
  const RatingsDataset data = Synthetic();
  for (double fraction : {0.1, 0.2, 0.5}) {
    absl::StatusOr<TrainTest> split = SplitHoldoutPerUser(data, fraction, 9);
    ASSERT_TRUE(split.ok()) << split.status();
    ExpectPartition(data, *split);
    for (int32_t u = 0; u < data.num_users(); ++u) {
      const double c = static_cast<double>(data.user(u).size());
      const double t = static_cast<double>(split->test.user(u).size());
      EXPECT_GE(split->train.user(u).size(), 1) << u;
      // Rounded to nearest (|t - f c| <= 1/2), or capped at c - 1 when round(f c) = c, i.e.
      // f c >= c - 1/2.
      EXPECT_TRUE(std::fabs(t - fraction * c) <= 0.5 || (t == c - 1 && fraction * c >= c - 0.5))
          << "user " << u << " c=" << c << " t=" << t;
    }
  }
}

TEST(SplitsTest, HoldoutKeepsOneTrainingRatingPerUser) {
  const RatingsDataset data = FewRatingsPerUser();
  absl::StatusOr<TrainTest> split = SplitHoldoutPerUser(data, 0.9, 1);
  ASSERT_TRUE(split.ok()) << split.status();
  // c = 1, 2, 3, 5 -> round(0.9 c) = 1, 2, 3, 5, capped at c - 1 = 0, 1, 2, 4.
  EXPECT_EQ(split->test.user(*data.FindUser("one")).size(), 0);
  EXPECT_EQ(split->test.user(*data.FindUser("two")).size(), 1);
  EXPECT_EQ(split->test.user(*data.FindUser("three")).size(), 2);
  EXPECT_EQ(split->test.user(*data.FindUser("five")).size(), 4);
  absl::StatusOr<TrainTest> none = SplitHoldoutPerUser(data, 0, 1);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->test.num_ratings(), 0);
}

TEST(SplitsTest, HoldoutIsDeterministicPerSeed) {
  const RatingsDataset data = Synthetic();
  const TrainTest a = *SplitHoldoutPerUser(data, 0.2, 3);
  const TrainTest b = *SplitHoldoutPerUser(data, 0.2, 3);
  const TrainTest c = *SplitHoldoutPerUser(data, 0.2, 4);
  EXPECT_EQ(AllRatings(a.test), AllRatings(b.test));
  EXPECT_NE(AllRatings(a.test), AllRatings(c.test));
}

TEST(SplitsTest, LeaveNOutKeepsSmallUsersInTrain) {
  const RatingsDataset data = FewRatingsPerUser();
  absl::StatusOr<TrainTest> split = SplitLeaveNOut(data, 2, 8);
  ASSERT_TRUE(split.ok()) << split.status();
  ExpectPartition(data, *split);
  EXPECT_EQ(split->test.user(*data.FindUser("one")).size(), 0);  // 1 <= 2
  EXPECT_EQ(split->test.user(*data.FindUser("two")).size(), 0);  // 2 <= 2
  EXPECT_EQ(split->test.user(*data.FindUser("three")).size(), 2);
  EXPECT_EQ(split->test.user(*data.FindUser("five")).size(), 2);
  EXPECT_EQ(split->train.user(*data.FindUser("five")).size(), 3);
}

TEST(SplitsTest, LeaveNOutOnSyntheticIsDeterministic) {
  const RatingsDataset data = Synthetic();
  const TrainTest a = *SplitLeaveNOut(data, 1, 21);
  ExpectPartition(data, a);
  for (int32_t u = 0; u < data.num_users(); ++u) {
    EXPECT_EQ(a.test.user(u).size(), data.user(u).size() > 1 ? 1 : 0) << u;
  }
  EXPECT_EQ(AllRatings(a.test), AllRatings(SplitLeaveNOut(data, 1, 21)->test));
  EXPECT_NE(AllRatings(a.test), AllRatings(SplitLeaveNOut(data, 1, 22)->test));
}

TEST(SplitsTest, TrimPerUserKeepsAtMostNOfEachUsersRatings) {
  const RatingsDataset data = FewRatingsPerUser();
  absl::StatusOr<RatingsDataset> trimmed = TrimPerUser(data, 2, 4);
  ASSERT_TRUE(trimmed.ok()) << trimmed.status();
  EXPECT_EQ(trimmed->id_maps(), data.id_maps());
  const std::map<Pair, float> all = AllRatings(data);
  for (const auto& [pair, rating] : AllRatings(*trimmed)) {
    ASSERT_TRUE(all.contains(pair));
    EXPECT_EQ(all.at(pair), rating);
  }
  EXPECT_EQ(trimmed->user(*data.FindUser("one")).size(), 1);
  EXPECT_EQ(trimmed->user(*data.FindUser("two")).size(), 2);
  EXPECT_EQ(trimmed->user(*data.FindUser("three")).size(), 2);
  EXPECT_EQ(trimmed->user(*data.FindUser("five")).size(), 2);
  EXPECT_FALSE(TrimPerUser(data, 0, 4).ok());
}

// Each of user "five"'s 5 ratings survives trimming to 2 with probability 2/5: over 4000 seeds
// every item's frequency is within 5 CLT standard errors (sqrt(0.24 / 4000) = 0.0077) of 0.4.
TEST(SplitsTest, TrimPerUserChoosesUniformly) {
  const RatingsDataset data = FewRatingsPerUser();
  const int32_t five = *data.FindUser("five");
  std::map<int32_t, int> kept;
  constexpr int kSeeds = 4000;
  for (int seed = 0; seed < kSeeds; ++seed) {
    const RatingsDataset t = *TrimPerUser(data, 2, static_cast<uint64_t>(seed));
    for (int32_t item : t.user(five).indices) ++kept[item];
  }
  ASSERT_EQ(kept.size(), 5u);
  for (const auto& [item, count] : kept) {
    EXPECT_NEAR(count / static_cast<double>(kSeeds), 0.4, 5 * std::sqrt(0.24 / kSeeds)) << item;
  }
}

TEST(SplitsTest, LeaveLatestNOutTakesTheNewestAndBreaksTiesByItem) {
  const RatingsDataset data = FewRatingsPerUser();
  absl::StatusOr<TrainTest> split = SplitLeaveLatestNOut(data, 1);
  ASSERT_TRUE(split.ok()) << split.status();
  ExpectPartition(data, *split);
  const std::map<Pair, float> test = AllRatings(split->test);
  const auto user = [&](const char* id) { return *data.FindUser(id); };
  const auto item = [&](const char* id) { return *data.FindItem(id); };
  // two: b@20 is newest; three: a@30; five: all at 7, so the largest item index (e) counts latest.
  EXPECT_EQ(test, (std::map<Pair, float>{{{user("two"), item("b")}, 3},
                                         {{user("three"), item("a")}, 4},
                                         {{user("five"), item("e")}, 3}}));
  const std::map<Pair, float> test2 = AllRatings(SplitLeaveLatestNOut(data, 2)->test);
  EXPECT_EQ(test2.count({user("three"), item("c")}), 1u);  // c@20 is second newest of three
  EXPECT_EQ(test2.count({user("five"), item("d")}), 1u);
  EXPECT_EQ(test2.size(), 4u);  // "two" has only 2 ratings: stays in train
}

TEST(SplitsTest, LeaveLatestNeedsTimestamps) {
  RatingsBuilder b;
  b.Add("u", "a", 1, std::nullopt);
  b.Add("u", "b", 1, std::nullopt);
  const RatingsDataset data = *std::move(b).Build();
  const absl::StatusOr<TrainTest> split = SplitLeaveLatestNOut(data, 1);
  EXPECT_EQ(split.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(split.status().message(), "leave-latest-n-out: the dataset has no timestamps");
}

TEST(SplitsTest, KFoldIsAPartitionOfAllRatings) {
  const RatingsDataset data = Synthetic();
  constexpr int kFolds = 5;
  absl::StatusOr<std::vector<TrainTest>> folds = SplitKFold(data, kFolds, 13);
  ASSERT_TRUE(folds.ok()) << folds.status();
  ASSERT_EQ(folds->size(), static_cast<size_t>(kFolds));
  std::map<Pair, int> times_in_test;
  const int64_t n = data.num_ratings();
  for (const TrainTest& fold : *folds) {
    ExpectPartition(data, fold);
    // Sizes floor(n/k) or ceil(n/k).
    EXPECT_GE(fold.test.num_ratings(), n / kFolds);
    EXPECT_LE(fold.test.num_ratings(), (n + kFolds - 1) / kFolds);
    for (const auto& entry : AllRatings(fold.test)) ++times_in_test[entry.first];
  }
  EXPECT_EQ(static_cast<int64_t>(times_in_test.size()), n);
  for (const auto& [pair, times] : times_in_test) EXPECT_EQ(times, 1);
}

TEST(SplitsTest, KFoldIsDeterministicPerSeed) {
  const RatingsDataset data = Synthetic();
  const std::vector<TrainTest> a = *SplitKFold(data, 3, 1);
  const std::vector<TrainTest> b = *SplitKFold(data, 3, 1);
  const std::vector<TrainTest> c = *SplitKFold(data, 3, 2);
  for (int f = 0; f < 3; ++f) EXPECT_EQ(AllRatings(a[f].test), AllRatings(b[f].test));
  EXPECT_NE(AllRatings(a[0].test), AllRatings(c[0].test));
}

TEST(SplitsTest, InvalidParameters) {
  const RatingsDataset data = FewRatingsPerUser();
  EXPECT_EQ(SplitHoldoutPerUser(data, 1.5, 0).status().message(),
            "holdout: test fraction 1.5 must be in [0, 1]");
  EXPECT_EQ(SplitHoldoutPerUser(data, NAN, 0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SplitLeaveNOut(data, 0, 0).status().message(), "leave-n-out: n = 0 must be >= 1");
  EXPECT_EQ(SplitLeaveLatestNOut(data, -1).status().message(), "leave-n-out: n = -1 must be >= 1");
  EXPECT_EQ(SplitKFold(data, 1, 0).status().message(),
            "k-fold: k = 1 must be in [2, 11] (the number of ratings)");
  EXPECT_EQ(SplitKFold(data, 12, 0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(SplitKFold(data, 11, 0).ok());
}

}  // namespace
}  // namespace fedmf::data
