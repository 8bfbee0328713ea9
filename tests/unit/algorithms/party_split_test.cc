#include "common/algorithms/party_split.h"

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/data/splits.h"
#include "common/data/synthetic.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms {
namespace {

using data::RatingsDataset;
// (global user, global item) -> (rating, timestamp)
using RatingMap = std::map<std::pair<int32_t, int32_t>, std::pair<float, int64_t>>;

RatingMap AllRatings(const RatingsDataset& d) {
  RatingMap out;
  for (int64_t k = 0; k < d.num_ratings(); ++k) {
    const data::Rating r = d.rating(k);
    out[{r.user, r.item}] = {r.rating, r.timestamp};
  }
  return out;
}

// Adds the ratings of `local` (a shard's train or test) to `merged` in global indices, expecting
// each to be new there.
void AddGlobal(const PartyShard& shard, const RatingsDataset& local, RatingMap& merged) {
  for (int64_t k = 0; k < local.num_ratings(); ++k) {
    const data::Rating r = local.rating(k);
    const std::pair<int32_t, int32_t> global = {shard.global_users[static_cast<size_t>(r.user)],
                                                shard.global_items[static_cast<size_t>(r.item)]};
    EXPECT_TRUE(merged.emplace(global, std::make_pair(r.rating, r.timestamp)).second)
        << "rating of user " << global.first << ", item " << global.second << " in two shards";
  }
}

std::vector<int32_t> Range(int32_t begin, int32_t end) {
  std::vector<int32_t> out;
  for (int32_t i = begin; i < end; ++i) out.push_back(i);
  return out;
}

struct Split {
  RatingsDataset all;
  data::TrainTest parts;
};

// 50 users x 37 items with timestamps (user u rates the items i with (u + 2 i) % 3 != 0), split
// 25% per user.
Split SmallSplit() {
  data::RatingsBuilder b;
  for (int32_t u = 0; u < 50; ++u) {
    for (int32_t i = 0; i < 37; ++i) {
      if ((u + 2 * i) % 3 != 0) {
        b.Add(absl::StrCat("u", u), absl::StrCat("m", i), static_cast<float>(1 + (u * i) % 5),
              1000 + u * 37 + i);
      }
    }
  }
  Split s{.all = std::move(b).Build().value(), .parts = {}};
  s.parts = data::SplitHoldoutPerUser(s.all, 0.25, 3).value();
  return s;
}

using MakeParty = std::function<absl::StatusOr<PartyShard>(
    const RatingsDataset&, const RatingsDataset*, int32_t, int32_t)>;

// Every rating of train and test lands in exactly one party's shard, with its value and
// timestamp; local ids keep the original ids; the shards pass Validate.
void ExpectPartition(const Split& s, const MakeParty& make, int32_t num_parties) {
  RatingMap train, test;
  for (int32_t k = 0; k < num_parties; ++k) {
    absl::StatusOr<PartyShard> shard = make(s.parts.train, &s.parts.test, k, num_parties);
    ASSERT_TRUE(shard.ok()) << shard.status();
    EXPECT_TRUE(shard->Validate().ok()) << shard->Validate();
    AddGlobal(*shard, *shard->train, train);
    AddGlobal(*shard, *shard->test, test);
    for (size_t u = 0; u < shard->global_users.size(); ++u) {
      EXPECT_EQ(shard->train->user_id(static_cast<int32_t>(u)),
                s.all.user_id(shard->global_users[u]));
    }
    for (size_t i = 0; i < shard->global_items.size(); ++i) {
      EXPECT_EQ(shard->test->item_id(static_cast<int32_t>(i)),
                s.all.item_id(shard->global_items[i]));
    }
  }
  EXPECT_EQ(train, AllRatings(s.parts.train)) << num_parties << " parties";
  EXPECT_EQ(test, AllRatings(s.parts.test)) << num_parties << " parties";
}

TEST(PartySplitTest, EveryRatingLandsInExactlyOneParty) {
  const Split s = SmallSplit();
  for (int32_t n : {1, 2, 3, 7, 37}) {
    ExpectPartition(s, HorizontalParty, n);
    ExpectPartition(s, VerticalParty, n);
  }
  ExpectPartition(s, HorizontalParty, 50);  // one user per party
  const std::vector<int32_t> owners = [] {
    std::vector<int32_t> o;
    for (int32_t i = 0; i < 37; ++i) o.push_back((i * 7) % 4);
    return o;
  }();
  ExpectPartition(
      s,
      [&](const RatingsDataset& train, const RatingsDataset* test, int32_t k, int32_t n) {
        return VerticalPartyOf(train, test, owners, k, n);
      },
      4);
}

// HFL: contiguous blocks of users, sizes within one of each other, every item; VFL the same on
// items, every user.
TEST(PartySplitTest, ShapesAndMaps) {
  const Split s = SmallSplit();
  const RatingsDataset& train = s.parts.train;
  // 50 users among 3 parties: [0, 16), [16, 33), [33, 50).
  const int32_t user_bounds[] = {0, 16, 33, 50};
  // 37 items among 3 parties: [0, 12), [12, 24), [24, 37).
  const int32_t item_bounds[] = {0, 12, 24, 37};
  for (int32_t k = 0; k < 3; ++k) {
    const PartyShard h = HorizontalParty(train, &s.parts.test, k, 3).value();
    EXPECT_EQ(h.global_users, Range(user_bounds[k], user_bounds[k + 1]));
    EXPECT_EQ(h.global_items, Range(0, 37));
    EXPECT_EQ(h.train->num_users(), user_bounds[k + 1] - user_bounds[k]);
    EXPECT_EQ(h.train->num_items(), 37);
    EXPECT_EQ(h.test->num_users(), h.train->num_users());
    EXPECT_EQ(h.test->num_items(), 37);
    EXPECT_TRUE(h.train->has_timestamps());

    const PartyShard v = VerticalParty(train, &s.parts.test, k, 3).value();
    EXPECT_EQ(v.global_users, Range(0, 50));
    EXPECT_EQ(v.global_items, Range(item_bounds[k], item_bounds[k + 1]));
    EXPECT_EQ(v.train->num_users(), 50);
    EXPECT_EQ(v.train->num_items(), item_bounds[k + 1] - item_bounds[k]);
    EXPECT_EQ(v.test->num_items(), v.train->num_items());
    // Local rows are the global rows restricted to the party's items.
    const data::RatingRow local = v.train->user(4);
    const data::RatingRow global = train.user(4);
    std::vector<int32_t> expected;
    for (int32_t item : global.indices) {
      if (item >= item_bounds[k] && item < item_bounds[k + 1]) expected.push_back(item);
    }
    std::vector<int32_t> mapped;
    for (int32_t item : local.indices) mapped.push_back(v.global_items[static_cast<size_t>(item)]);
    EXPECT_EQ(mapped, expected);
  }
}

TEST(PartySplitTest, VerticalPartyOfTakesTheItemsItOwns) {
  const Split s = SmallSplit();
  std::vector<int32_t> owners(37, 1);
  owners[3] = owners[20] = owners[36] = 0;
  const PartyShard p = VerticalPartyOf(s.parts.train, nullptr, owners, 0, 2).value();
  EXPECT_EQ(p.global_items, (std::vector<int32_t>{3, 20, 36}));
  EXPECT_EQ(p.test, nullptr);
  EXPECT_EQ(p.train->num_items(), 3);
}

TEST(PartySplitTest, WithoutTestRatingsTheShardsHaveNone) {
  const Split s = SmallSplit();
  EXPECT_EQ(HorizontalParty(s.all, nullptr, 1, 2).value().test, nullptr);
  EXPECT_EQ(VerticalParty(s.all, nullptr, 1, 2).value().test, nullptr);
}

void ExpectRefused(const absl::StatusOr<PartyShard>& shard, absl::string_view message) {
  EXPECT_EQ(shard.status().code(), absl::StatusCode::kInvalidArgument) << shard.status();
  EXPECT_EQ(shard.status().message(), message);
}

TEST(PartySplitTest, Refusals) {
  const Split s = SmallSplit();
  const RatingsDataset& train = s.parts.train;
  const RatingsDataset* test = &s.parts.test;
  for (const MakeParty& make : {MakeParty(HorizontalParty), MakeParty(VerticalParty)}) {
    ExpectRefused(make(train, test, 2, 2), "party 2 is outside [0, 2)");
    ExpectRefused(make(train, test, -1, 2), "party -1 is outside [0, 2)");
    ExpectRefused(make(train, test, 0, 0), "number of parties must be >= 1, got 0");
    ExpectRefused(make(train, test, 0, -3), "number of parties must be >= 1, got -3");
  }
  ExpectRefused(HorizontalParty(train, test, 0, 51),
                "51 parties but only 50 users to split among them");
  ExpectRefused(VerticalParty(train, test, 0, 38),
                "38 parties but only 37 items to split among them");
  data::SyntheticConfig c;
  c.num_users = 50;
  c.num_items = 30;
  c.ratings_per_user = 5;
  c.min_ratings_per_user = 2;
  const RatingsDataset other = data::GenerateSynthetic(c).value();
  ExpectRefused(HorizontalParty(train, &other, 0, 2),
                "test ratings are 50 x 30, train ratings 50 x 37: not one split");
  std::vector<int32_t> owners(37, 0);
  ExpectRefused(VerticalPartyOf(train, test, owners, 1, 2),
                "item parties: party 1 of 2 owns no item");
  owners[5] = 2;
  ExpectRefused(VerticalPartyOf(train, test, owners, 0, 2),
                "item parties: item 5 has party 2, outside [0, 2)");
  owners.pop_back();
  ExpectRefused(VerticalPartyOf(train, test, owners, 0, 2), "item parties: 36 given for 37 items");
}

}  // namespace
}  // namespace fedmf::algorithms
