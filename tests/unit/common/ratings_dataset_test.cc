#include "common/data/ratings_dataset.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/common/rating_rows.h"

namespace fedmf::data {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

using test_util::Indices;
using test_util::Ratings;
using test_util::Timestamps;

// Users first seen in order 10, 20, 30 -> 0, 1, 2; items b, a, c -> 0, 1, 2.
RatingsDataset FirstSeenOrder() {
  RatingsBuilder b("small");
  b.Add("10", "b", 4, std::nullopt, 1);
  b.Add("20", "a", 2, std::nullopt, 2);
  b.Add("10", "a", 5, std::nullopt, 3);
  b.Add("30", "c", 1, std::nullopt, 4);
  b.Add("20", "b", 3, std::nullopt, 5);
  absl::StatusOr<RatingsDataset> d = std::move(b).Build();
  EXPECT_TRUE(d.ok()) << d.status();
  return *std::move(d);
}

TEST(RatingsDatasetTest, DenseIdsInFirstSeenOrder) {
  const RatingsDataset d = FirstSeenOrder();
  EXPECT_EQ(d.num_users(), 3);
  EXPECT_EQ(d.num_items(), 3);
  EXPECT_EQ(d.num_ratings(), 5);
  EXPECT_EQ(d.user_id(0), "10");
  EXPECT_EQ(d.user_id(2), "30");
  EXPECT_EQ(d.item_id(0), "b");
  EXPECT_EQ(d.item_id(1), "a");
  EXPECT_EQ(d.FindUser("20"), 1);
  EXPECT_EQ(d.FindItem("c"), 2);
  EXPECT_EQ(d.FindUser("99"), std::nullopt);
  EXPECT_FALSE(d.has_timestamps());
}

TEST(RatingsDatasetTest, CsrByUserSortedByItem) {
  const RatingsDataset d = FirstSeenOrder();
  EXPECT_THAT(Indices(d.user(0)), ElementsAre(0, 1));  // b=4, a=5
  EXPECT_THAT(Ratings(d.user(0)), ElementsAre(4, 5));
  EXPECT_THAT(Indices(d.user(1)), ElementsAre(0, 1));  // b=3, a=2
  EXPECT_THAT(Ratings(d.user(1)), ElementsAre(3, 2));
  EXPECT_THAT(Indices(d.user(2)), ElementsAre(2));
  EXPECT_THAT(Timestamps(d.user(0)), IsEmpty());
}

TEST(RatingsDatasetTest, CsrByItemSortedByUser) {
  const RatingsDataset d = FirstSeenOrder();
  EXPECT_THAT(Indices(d.item(0)), ElementsAre(0, 1));  // item b: user 10 -> 4, user 20 -> 3
  EXPECT_THAT(Ratings(d.item(0)), ElementsAre(4, 3));
  EXPECT_THAT(Indices(d.item(1)), ElementsAre(0, 1));  // item a: 5, 2
  EXPECT_THAT(Ratings(d.item(1)), ElementsAre(5, 2));
  EXPECT_THAT(Indices(d.item(2)), ElementsAre(2));
  EXPECT_THAT(Ratings(d.item(2)), ElementsAre(1));
}

TEST(RatingsDatasetTest, RatingByIndexFollowsUserOrder) {
  const RatingsDataset d = FirstSeenOrder();
  const Rating r3 = d.rating(3);  // user 1's second rating: item a = 2
  EXPECT_EQ(r3.user, 1);
  EXPECT_EQ(r3.item, 1);
  EXPECT_EQ(r3.rating, 2);
  EXPECT_EQ(d.rating(4).user, 2);
  EXPECT_DOUBLE_EQ(d.MeanRating(), (4 + 5 + 3 + 2 + 1) / 5.0);
}

TEST(RatingsDatasetTest, SubsetKeepsIndexSpaceAndIds) {
  const RatingsDataset d = FirstSeenOrder();
  const RatingsDataset s = d.Subset(std::vector<int64_t>{4, 1});  // 30:c=1 and 10:a=5
  EXPECT_EQ(s.num_users(), 3);
  EXPECT_EQ(s.num_items(), 3);
  EXPECT_EQ(s.num_ratings(), 2);
  EXPECT_EQ(s.id_maps(), d.id_maps());
  EXPECT_THAT(Indices(s.user(0)), ElementsAre(1));
  EXPECT_THAT(Ratings(s.user(0)), ElementsAre(5));
  EXPECT_THAT(Indices(s.user(1)), IsEmpty());
  EXPECT_THAT(Indices(s.item(2)), ElementsAre(2));
  EXPECT_EQ(s.rating(1).user, 2);  // the empty row of user 1 is skipped
  EXPECT_EQ(d.Subset({}).num_ratings(), 0);
  EXPECT_EQ(d.Subset({}).MeanRating(), 0);
}

TEST(RatingsDatasetTest, DuplicateUnderErrorNamesBothLines) {
  RatingsBuilder b("f.txt");
  b.Add("u", "x", 1, std::nullopt, 3);
  b.Add("u", "y", 2, std::nullopt, 5);
  b.Add("u", "x", 4, std::nullopt, 7);
  absl::StatusOr<RatingsDataset> d = std::move(b).Build(DuplicatePolicy::kError);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(d.status().message(),
            "f.txt:7: duplicate rating for user 'u' item 'x' (first at line 3)");
}

RatingsDataset WithTriplicate(DuplicatePolicy policy) {
  RatingsBuilder b;
  b.Add("u", "x", 1, std::nullopt);
  b.Add("v", "x", 2, std::nullopt);
  b.Add("u", "x", 3, std::nullopt);
  b.Add("u", "x", 4, std::nullopt);
  absl::StatusOr<RatingsDataset> d = std::move(b).Build(policy);
  EXPECT_TRUE(d.ok()) << d.status();
  return *std::move(d);
}

TEST(RatingsDatasetTest, DuplicateKeepFirst) {
  const RatingsDataset d = WithTriplicate(DuplicatePolicy::kKeepFirst);
  EXPECT_EQ(d.num_ratings(), 2);
  EXPECT_THAT(Ratings(d.user(0)), ElementsAre(1));
  EXPECT_THAT(Ratings(d.item(0)), ElementsAre(1, 2));
}

TEST(RatingsDatasetTest, DuplicateKeepLast) {
  const RatingsDataset d = WithTriplicate(DuplicatePolicy::kKeepLast);
  EXPECT_EQ(d.num_ratings(), 2);
  EXPECT_THAT(Ratings(d.user(0)), ElementsAre(4));
  EXPECT_THAT(Ratings(d.item(0)), ElementsAre(4, 2));
}

TEST(RatingsDatasetTest, TimestampsStoredBothWays) {
  RatingsBuilder b;
  b.Add("u", "y", 1, 100);
  b.Add("u", "x", 2, 50);
  b.Add("v", "x", 3, 70);
  absl::StatusOr<RatingsDataset> d = std::move(b).Build();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->has_timestamps());
  EXPECT_THAT(Timestamps(d->user(0)), ElementsAre(100, 50));  // items y=0, x=1
  EXPECT_THAT(Timestamps(d->item(1)), ElementsAre(50, 70));
  EXPECT_EQ(d->rating(2).timestamp, 70);
  EXPECT_TRUE(d->Subset(std::vector<int64_t>{0}).has_timestamps());
}

TEST(RatingsDatasetTest, TimestampsAllOrNone) {
  RatingsBuilder b("mixed");
  b.Add("u", "x", 1, 100);
  b.Add("u", "y", 1, std::nullopt);
  b.Add("v", "y", 1, 5);
  absl::StatusOr<RatingsDataset> d = std::move(b).Build();
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().message(),
            "mixed: 2 of 3 ratings have a timestamp; either all or none must");
}

TEST(RatingsDatasetTest, RegisteredIdsWithoutRatingsHaveEmptyRows) {
  RatingsBuilder b;
  b.AddUser("a");
  b.AddItem("p");
  b.AddItem("q");
  b.Add("b", "q", 2, std::nullopt);
  b.AddItem("p");  // already known: keeps index 0
  absl::StatusOr<RatingsDataset> d = std::move(b).Build();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_users(), 2);
  EXPECT_EQ(d->num_items(), 2);
  EXPECT_EQ(d->FindItem("p"), 0);
  EXPECT_THAT(Indices(d->user(0)), IsEmpty());
  EXPECT_THAT(Indices(d->item(0)), IsEmpty());
  EXPECT_THAT(Indices(d->user(1)), ElementsAre(1));
  EXPECT_EQ(d->rating(0).user, 1);
}

TEST(RatingsDatasetTest, DefaultConstructedIsEmpty) {
  const RatingsDataset d;
  EXPECT_EQ(d.num_users(), 0);
  EXPECT_EQ(d.num_items(), 0);
  EXPECT_EQ(d.num_ratings(), 0);
  EXPECT_EQ(d.FindUser("x"), std::nullopt);
}

}  // namespace
}  // namespace fedmf::data
