#include "common/data/split_spec.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace fedmf::data {
namespace {

// 4 users x 5 items, all rated, with timestamps.
RatingsDataset FullyRated() {
  RatingsBuilder builder;
  for (int u = 0; u < 4; ++u) {
    for (int i = 0; i < 5; ++i) builder.Add(absl::StrCat(u), absl::StrCat(i), 3, 100 * u + i);
  }
  return std::move(builder).Build().value();
}

TEST(SplitSpecTest, KFoldGivesKPairs) {
  const auto splits = MakeSplits(FullyRated(), "kfold:4", 1);
  ASSERT_TRUE(splits.ok()) << splits.status();
  ASSERT_EQ(splits->size(), 4u);
  for (const TrainTest& s : *splits) EXPECT_EQ(s.train.num_ratings() + s.test.num_ratings(), 20);
}

TEST(SplitSpecTest, OneFoldIsThatFoldOfKFold) {
  const auto all = MakeSplits(FullyRated(), "kfold:4", 7);
  ASSERT_TRUE(all.ok()) << all.status();
  for (int i = 1; i <= 4; ++i) {
    const auto one = MakeSplits(FullyRated(), absl::StrCat("fold:", i, "/4"), 7);
    ASSERT_TRUE(one.ok()) << one.status();
    ASSERT_EQ(one->size(), 1u);
    const TrainTest& expected = (*all)[i - 1];
    const TrainTest& got = (*one)[0];
    ASSERT_EQ(got.test.num_ratings(), expected.test.num_ratings());
    for (int32_t u = 0; u < expected.test.num_users(); ++u) {
      const data::RatingRow a = expected.test.user(u), b = got.test.user(u);
      EXPECT_TRUE(
          std::equal(a.indices.begin(), a.indices.end(), b.indices.begin(), b.indices.end()))
          << "fold " << i << " user " << u;
    }
  }
}

TEST(SplitSpecTest, PerUserSplitsGiveOnePair) {
  for (const char* spec : {"holdout:0.2", "leave:1", "leave-latest:2"}) {
    const auto splits = MakeSplits(FullyRated(), spec, 1);
    ASSERT_TRUE(splits.ok()) << spec << ": " << splits.status();
    EXPECT_EQ(splits->size(), 1u) << spec;
  }
  // leave-latest:2 holds out items 3 and 4 of every user (the latest timestamps).
  const auto latest = MakeSplits(FullyRated(), "leave-latest:2", 1);
  EXPECT_EQ((*latest)[0].test.num_ratings(), 8);
}

// "+train:F" keeps max(1, round(F c)) of each user's c training ratings, a subset of the
// unsubsampled split's, and leaves its test side alone.
TEST(SplitSpecTest, TrainSubsampleKeepsAFractionOfEachUsersTrainRatings) {
  const auto base = MakeSplits(FullyRated(), "leave:1", 3);
  ASSERT_TRUE(base.ok()) << base.status();
  for (const auto& [spec, kept] :
       {std::pair{"leave:1+train:0.5", 2}, std::pair{"leave:1+train:0.01", 1},
        std::pair{"leave:1+train:1", 4}}) {
    const auto sub = MakeSplits(FullyRated(), spec, 3);
    ASSERT_TRUE(sub.ok()) << spec << ": " << sub.status();
    const TrainTest& b = (*base)[0];
    const TrainTest& s = (*sub)[0];
    EXPECT_EQ(s.test.num_ratings(), b.test.num_ratings()) << spec;
    for (int32_t u = 0; u < 4; ++u) {
      const RatingRow sub_row = s.train.user(u), base_row = b.train.user(u);
      EXPECT_EQ(sub_row.size(), kept) << spec << " user " << u;
      EXPECT_TRUE(std::includes(base_row.indices.begin(), base_row.indices.end(),
                                sub_row.indices.begin(), sub_row.indices.end()))
          << spec << " user " << u;
      EXPECT_TRUE(std::equal(s.test.user(u).indices.begin(), s.test.user(u).indices.end(),
                             b.test.user(u).indices.begin(), b.test.user(u).indices.end()));
    }
  }
  EXPECT_FALSE(MakeSplits(FullyRated(), "leave:1+train:0", 3).ok());
  EXPECT_FALSE(MakeSplits(FullyRated(), "leave:1+train:x", 3).ok());
}

TEST(SplitSpecTest, MalformedSpecsNameTheProblem) {
  const std::pair<const char*, const char*> cases[] = {
      {"kfold:x", "'x' is not a fold count"},
      {"holdout:", "'' is not a fraction"},
      {"leave:1.5", "'1.5' is not a rating count"},
      {"fold:3", "'3' is not I/K (fold I of K)"},
      {"fold:5/4", "'5/4' is not I/K with I in [1, K]"},
      {"fold:0/4", "'0/4' is not I/K with I in [1, K]"},
      {"random",
       "expected kfold:K, fold:I/K, holdout:FRACTION, leave:N, leave-latest:N or predefined"},
  };
  for (const auto& [spec, message] : cases) {
    const absl::Status s = MakeSplits(FullyRated(), spec, 1).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << spec;
    EXPECT_NE(s.message().find(message), std::string::npos) << spec << ": " << s;
  }
}

TEST(SplitSpecTest, InvalidParametersAreRejectedBySplits) {
  EXPECT_FALSE(MakeSplits(FullyRated(), "kfold:1", 1).ok());
  EXPECT_FALSE(MakeSplits(FullyRated(), "holdout:1.5", 1).ok());
}

}  // namespace
}  // namespace fedmf::data
