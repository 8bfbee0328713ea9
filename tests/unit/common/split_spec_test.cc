#include "common/data/split_spec.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace fedmf::data {
namespace {

// 4 users x 5 items, all rated, with timestamps.
RatingsDataset Small() {
  RatingsBuilder builder;
  for (int u = 0; u < 4; ++u) {
    for (int i = 0; i < 5; ++i) builder.Add(absl::StrCat(u), absl::StrCat(i), 3, 100 * u + i);
  }
  return std::move(builder).Build().value();
}

TEST(SplitSpecTest, KFoldGivesKPairs) {
  const auto splits = MakeSplits(Small(), "kfold:4", 1);
  ASSERT_TRUE(splits.ok()) << splits.status();
  ASSERT_EQ(splits->size(), 4u);
  for (const TrainTest& s : *splits) EXPECT_EQ(s.train.num_ratings() + s.test.num_ratings(), 20);
}

TEST(SplitSpecTest, PerUserSplitsGiveOnePair) {
  for (const char* spec : {"holdout:0.2", "leave:1", "leave-latest:2"}) {
    const auto splits = MakeSplits(Small(), spec, 1);
    ASSERT_TRUE(splits.ok()) << spec << ": " << splits.status();
    EXPECT_EQ(splits->size(), 1u) << spec;
  }
  // leave-latest:2 holds out items 3 and 4 of every user (the latest timestamps).
  const auto latest = MakeSplits(Small(), "leave-latest:2", 1);
  EXPECT_EQ((*latest)[0].test.num_ratings(), 8);
}

TEST(SplitSpecTest, MalformedSpecsNameTheProblem) {
  const std::pair<const char*, const char*> cases[] = {
      {"kfold:x", "'x' is not a fold count"},
      {"holdout:", "'' is not a fraction"},
      {"leave:1.5", "'1.5' is not a rating count"},
      {"random", "expected kfold:K, holdout:FRACTION, leave:N or leave-latest:N"},
  };
  for (const auto& [spec, message] : cases) {
    const absl::Status s = MakeSplits(Small(), spec, 1).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << spec;
    EXPECT_NE(s.message().find(message), std::string::npos) << spec << ": " << s;
  }
}

TEST(SplitSpecTest, InvalidParametersAreRejectedBySplits) {
  EXPECT_FALSE(MakeSplits(Small(), "kfold:1", 1).ok());
  EXPECT_FALSE(MakeSplits(Small(), "holdout:1.5", 1).ok());
}

}  // namespace
}  // namespace fedmf::data
