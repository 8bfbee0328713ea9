#include "common/data/synthetic.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::data {
namespace {

RatingsDataset Generate(const SyntheticConfig& c) {
  absl::StatusOr<RatingsDataset> d = GenerateSynthetic(c);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.ok() ? *std::move(d) : RatingsDataset();
}

bool Identical(const RatingsDataset& a, const RatingsDataset& b) {
  if (a.num_users() != b.num_users() || a.num_ratings() != b.num_ratings()) return false;
  for (int64_t k = 0; k < a.num_ratings(); ++k) {
    const Rating x = a.rating(k);
    const Rating y = b.rating(k);
    if (x.user != y.user || x.item != y.item || x.rating != y.rating ||
        x.timestamp != y.timestamp) {
      return false;
    }
  }
  return true;
}

TEST(SyntheticTest, SameSeedSameDataset) {
  SyntheticConfig c;
  c.seed = 42;
  EXPECT_TRUE(Identical(Generate(c), Generate(c)));
}

TEST(SyntheticTest, DifferentSeedsDiffer) {
  SyntheticConfig a, b;
  a.seed = 1;
  b.seed = 2;
  EXPECT_FALSE(Identical(Generate(a), Generate(b)));
}

// Defaults: counts c_u = round(share_u) with shares summing to n * mean exactly (header), each
// share >= min_ratings_per_user, the largest share 20 + 86 * n * (1 - n^-b) / sum_r((r+1)^-b -
// n^-b) computed below; if it is below num_items nothing is capped, so |total - n * mean| <= n / 2.
TEST(SyntheticTest, DefaultShapeMatchesTheDerivedBounds) {
  const SyntheticConfig c;
  const RatingsDataset d = Generate(c);
  EXPECT_EQ(d.num_users(), 943);
  EXPECT_EQ(d.num_items(), 1682);
  const double n = 943, b = 0.3;
  double sum = 0;
  for (int r = 1; r <= 943; ++r) sum += std::pow(r, -b) - std::pow(n, -b);
  const double max_share = 20 + 86.0 * n * (1 - std::pow(n, -b)) / sum;
  ASSERT_LT(max_share, 1682);
  EXPECT_NEAR(static_cast<double>(d.num_ratings()), 943 * 106.0, 943 / 2.0);
  int32_t least = 1 << 30, most = 0;
  for (int32_t u = 0; u < d.num_users(); ++u) {
    least = std::min<int32_t>(least, d.user(u).size());
    most = std::max<int32_t>(most, d.user(u).size());
  }
  EXPECT_EQ(least, 20);  // the least active user gets exactly min_ratings_per_user
  EXPECT_LE(most, max_share + 0.5);
  EXPECT_GE(most, max_share - 0.5);
}

TEST(SyntheticTest, RatingsAreWholeStarsWithARealisticHistogram) {
  const RatingsDataset d = Generate(SyntheticConfig());
  std::vector<int64_t> stars(6, 0);
  for (int64_t k = 0; k < d.num_ratings(); ++k) {
    const float r = d.rating(k).rating;
    ASSERT_EQ(r, std::floor(r));
    ASSERT_GE(r, 1);
    ASSERT_LE(r, 5);
    ++stars[static_cast<int>(r)];
  }
  // The documented shape (header), with wide margins: every star is used, 3 and 4 dominate.
  for (int s = 1; s <= 5; ++s) EXPECT_GT(stars[s], d.num_ratings() / 50) << s;
  EXPECT_GT(stars[3] + stars[4], d.num_ratings() * 2 / 5);
  EXPECT_NEAR(d.MeanRating(), 3.5, 0.15);
}

TEST(SyntheticTest, PopularItemsHoldMostRatings) {
  const RatingsDataset d = Generate(SyntheticConfig());
  std::vector<int64_t> counts(d.num_items());
  for (int32_t i = 0; i < d.num_items(); ++i) counts[i] = d.item(i).size();
  std::sort(counts.begin(), counts.end());
  const size_t decile = counts.size() / 10;
  int64_t bottom = 0, top = 0;
  for (size_t k = 0; k < decile; ++k) {
    bottom += counts[k];
    top += counts[counts.size() - 1 - k];
  }
  // Zipf weights (r+1)^-0.9 put ~30x more weight on the top decile than on the bottom one.
  // Without replacement an item gets at most one rating per user, which caps the top decile;
  // assert a conservative 5x, and that the top decile holds more than a quarter of all ratings.
  EXPECT_GT(top, 5 * bottom);
  EXPECT_GT(4 * top, d.num_ratings());
}

TEST(SyntheticTest, UniformPopularityHasNoSkew) {
  SyntheticConfig c;
  c.item_popularity_exponent = 0;
  const RatingsDataset d = Generate(c);
  // Every item then has probability per_user/items = 0.063 per user: a count of mean 59.4 and
  // sd <= 7.7; all 1682 counts within 6 sd (each exceeds it with probability < 1e-8).
  for (int32_t i = 0; i < d.num_items(); ++i) {
    EXPECT_NEAR(static_cast<double>(d.item(i).size()), 943 * 106.0 / 1682, 6 * 7.7) << i;
  }
}

TEST(SyntheticTest, EqualActivityGivesEveryUserTheMean) {
  SyntheticConfig c;
  c.num_users = 50;
  c.num_items = 100;
  c.ratings_per_user = 30;
  c.min_ratings_per_user = 5;
  c.user_activity_exponent = 0;
  const RatingsDataset d = Generate(c);
  for (int32_t u = 0; u < d.num_users(); ++u) EXPECT_EQ(d.user(u).size(), 30);
}

TEST(SyntheticTest, DensityReplacesRatingsPerUser) {
  SyntheticConfig c;
  c.num_users = 100;
  c.num_items = 200;
  c.density = 0.05;  // mean 10 per user
  c.min_ratings_per_user = 2;
  c.ratings_per_user = 1000;  // ignored
  const RatingsDataset d = Generate(c);
  EXPECT_NEAR(static_cast<double>(d.num_ratings()), 1000, 100 / 2.0);
}

TEST(SyntheticTest, EveryUserCanRateTheWholeCatalogue) {
  SyntheticConfig c;
  c.num_users = 5;
  c.num_items = 7;
  c.ratings_per_user = 7;
  c.min_ratings_per_user = 7;
  const RatingsDataset d = Generate(c);
  EXPECT_EQ(d.num_ratings(), 35);
}

TEST(SyntheticTest, IdsAndTimestamps) {
  SyntheticConfig c;
  c.num_users = 20;
  c.num_items = 30;
  c.ratings_per_user = 5;
  c.min_ratings_per_user = 1;
  const RatingsDataset d = Generate(c);
  EXPECT_EQ(d.user_id(17), "u17");
  EXPECT_EQ(d.item_id(29), "i29");
  EXPECT_EQ(d.FindItem("i3"), 3);
  ASSERT_TRUE(d.has_timestamps());
  std::vector<int64_t> stamps;
  for (int64_t k = 0; k < d.num_ratings(); ++k) stamps.push_back(d.rating(k).timestamp);
  std::sort(stamps.begin(), stamps.end());
  for (size_t k = 0; k < stamps.size(); ++k) EXPECT_EQ(stamps[k], static_cast<int64_t>(k) + 1);
}

void ExpectInvalid(const SyntheticConfig& c, absl::string_view message) {
  const absl::Status s = ValidateSyntheticConfig(c);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), message);
  EXPECT_EQ(GenerateSynthetic(c).status(), s);
}

TEST(SyntheticTest, InvalidConfigs) {
  EXPECT_TRUE(ValidateSyntheticConfig(SyntheticConfig()).ok());
  SyntheticConfig c;
  c.rank = 0;
  ExpectInvalid(c, "synthetic: rank = 0 must be at least 1");
  c = SyntheticConfig();
  c.num_users = 0;
  ExpectInvalid(c, "synthetic: users = 0 must be at least 1");
  c = SyntheticConfig();
  c.ratings_per_user = 2000;
  ExpectInvalid(c, "synthetic: per_user = 2000 exceeds items = 1682");
  c = SyntheticConfig();
  c.min_ratings_per_user = 200;
  ExpectInvalid(c, "synthetic: min_per_user = 200 exceeds the mean ratings per user 106");
  c = SyntheticConfig();
  c.density = 1.5;
  ExpectInvalid(c, "synthetic: density = 1.5 must be in (0, 1]");
  c = SyntheticConfig();
  c.noise_std = -1;
  ExpectInvalid(c, "synthetic: noise = -1 must be finite and >= 0");
  c = SyntheticConfig();
  c.item_popularity_exponent = NAN;
  ExpectInvalid(c, "synthetic: item_exp = nan must be finite and >= 0");
}

}  // namespace
}  // namespace fedmf::data
