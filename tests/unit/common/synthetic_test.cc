#include "common/data/synthetic.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/data/dataset_shape.h"
#include "common/data/splits.h"
#include "common/data/synthetic_shapes.h"
#include "common/metrics/metrics.h"
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

SyntheticConfig Shape(absl::string_view name) {
  absl::StatusOr<SyntheticConfig> c = SyntheticShape(name);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : SyntheticConfig();
}

// FNV-1a over every rating's fields, in dataset order.
uint64_t Digest(const RatingsDataset& d) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t v) {
    for (int b = 0; b < 8; ++b) {
      h ^= (v >> (8 * b)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  mix(d.num_users());
  mix(d.num_items());
  for (int64_t k = 0; k < d.num_ratings(); ++k) {
    const Rating r = d.rating(k);
    mix(static_cast<uint64_t>(r.user));
    mix(static_cast<uint64_t>(r.item));
    mix(static_cast<uint64_t>(static_cast<int64_t>(r.rating * 2)));
    mix(static_cast<uint64_t>(r.timestamp));
  }
  return h;
}

// Results measured before taste clusters stay reproducible: the digests were printed by this
// Digest over the generator of commit 04bc25b (popularity-only exposure) with these configs.
TEST(SyntheticTest, LegacyShapeIsTheOldGeneratorByteForByte) {
  SyntheticConfig small = Shape("legacy");
  small.num_users = 60;
  small.num_items = 80;
  small.ratings_per_user = 12;
  small.min_ratings_per_user = 5;
  small.seed = 3;
  SyntheticConfig dense = Shape("legacy");
  dense.num_users = 300;
  dense.num_items = 200;
  dense.min_ratings_per_user = 10;
  dense.density = 0.2;
  dense.seed = 7;
  EXPECT_EQ(Digest(Generate(Shape("legacy"))), 666894433427653294u);
  EXPECT_EQ(Digest(Generate(small)), 16807735377852429228u);
  EXPECT_EQ(Digest(Generate(dense)), 8698605151484911340u);
}

// Pins the taste shapes' data, so that a change of the generator (or of its arithmetic under
// another build preset or compiler: the test runs in the release and the sanitizer builds) shows
// here and in the docs' figures at once. Update the digests only with the calibration doc.
TEST(SyntheticTest, ShapesAreIdenticalOnEveryBuild) {
  SyntheticConfig gowalla = Shape("gowalla");
  gowalla.num_users /= 10;
  gowalla.num_items /= 10;
  gowalla.taste_clusters /= 10;
  EXPECT_EQ(Digest(Generate(Shape("ml-100k"))), 4259235176270345266u);
  EXPECT_EQ(Digest(Generate(gowalla)), 2105963598904809117u);
}

TEST(SyntheticTest, DifferentSeedsDiffer) {
  SyntheticConfig a, b;
  a.seed = 1;
  b.seed = 2;
  EXPECT_FALSE(Identical(Generate(a), Generate(b)));
}

// Defaults: counts c_u = round(share_u) with shares summing to n * mean exactly (header), each
// share >= min_ratings_per_user, the largest share 20 + 86 * n * (1 - v_min) / sum_r(v_r - v_min)
// with v_r = (r + 20)^-0.5 (r = 0..n-1) computed below; if it is below num_items nothing is
// capped, so |total - n * mean| <= n / 2.
TEST(SyntheticTest, DefaultActivityMatchesTheDerivedBounds) {
  const SyntheticConfig c;
  const RatingsDataset d = Generate(c);
  EXPECT_EQ(d.num_users(), 943);
  EXPECT_EQ(d.num_items(), 1682);
  const double n = 943, b = 0.5, offset = 20;
  const double v_min = std::pow(n - 1 + offset, -b);
  double sum = 0;
  for (int r = 0; r < 943; ++r) sum += std::pow(r + offset, -b) - v_min;
  const double max_share = 20 + 86.0 * n * (std::pow(offset, -b) - v_min) / sum;
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

// The ml-100k shape against real MovieLens 100K (u.data: 100,000 ratings; per user min 20,
// median 65, max 737; per item median 27, max 583; the most-rated tenth of items holds 42.9%;
// stars 1-5: 6.1, 11.4, 27.2, 34.2, 21.2%), within the calibration goal of 15% (stars: 3 points).
TEST(SyntheticTest, MovieLens100KShapeIsCloseToTheRealOne) {
  const DatasetShape shape = MeasureShape(Generate(Shape("ml-100k")));
  EXPECT_NEAR(static_cast<double>(shape.ratings), 100000, 1000);
  EXPECT_EQ(shape.per_user.min, 20);
  EXPECT_NEAR(shape.per_user.median, 65, 0.15 * 65);
  EXPECT_NEAR(static_cast<double>(shape.per_user.max), 737, 0.15 * 737);
  EXPECT_NEAR(shape.per_item.median, 27, 0.15 * 27);
  EXPECT_NEAR(static_cast<double>(shape.per_item.max), 583, 0.15 * 583);
  EXPECT_NEAR(shape.top_tenth_item_share, 0.429, 0.15 * 0.429);
  const double real_stars[] = {0.061, 0.114, 0.272, 0.342, 0.212};
  ASSERT_EQ(shape.rating_shares.size(), 5u);
  for (int s = 0; s < 5; ++s) {
    EXPECT_EQ(shape.rating_shares[s].first, s + 1.0f);
    EXPECT_NEAR(shape.rating_shares[s].second, real_stars[s], 0.03) << "stars " << s + 1;
  }
}

// The gowalla shape at a tenth of its users and items: implicit, Gowalla's per-user counts (its
// split: at least 10 per user, median 20) and mean (34.4).
TEST(SyntheticTest, GowallaShapeIsImplicitWithGowallasActivity) {
  SyntheticConfig c = Shape("gowalla");
  c.num_users /= 10;
  c.num_items /= 10;
  c.taste_clusters /= 10;
  const DatasetShape shape = MeasureShape(Generate(c));
  ASSERT_EQ(shape.rating_shares.size(), 1u);
  EXPECT_EQ(shape.rating_shares[0].first, 1.0f);
  EXPECT_EQ(shape.per_user.min, 10);
  EXPECT_NEAR(shape.per_user.median, 20, 0.15 * 20);
  EXPECT_NEAR(static_cast<double>(shape.ratings), 34.4 * c.num_users, c.num_users / 2.0);
}

// Item-item collaborative filtering (cosine similarity of the items' rater sets, a user's score
// for an item the sum of its similarities to the user's training items) against popularity
// (training rating count), F1@10 on a 20% per-user holdout.
struct F1s {
  double item_item;
  double popularity;
};
F1s ItemItemAndPopularityF1(const RatingsDataset& d) {
  absl::StatusOr<TrainTest> split = SplitHoldoutPerUser(d, 0.2, 1);
  EXPECT_TRUE(split.ok()) << split.status();
  const RatingsDataset& train = split->train;
  const int32_t m = train.num_items();
  std::vector<double> co(static_cast<size_t>(m) * m, 0);
  for (int32_t u = 0; u < train.num_users(); ++u) {
    const RatingRow row = train.user(u);
    for (int32_t a : row.indices) {
      for (int32_t b : row.indices) co[static_cast<size_t>(a) * m + b] += 1;
    }
  }
  std::vector<double> similarity(co.size(), 0);
  for (int32_t a = 0; a < m; ++a) {
    for (int32_t i = 0; i < m; ++i) {
      const double norm =
          std::sqrt(co[static_cast<size_t>(a) * m + a] * co[static_cast<size_t>(i) * m + i]);
      if (norm > 0)
        similarity[static_cast<size_t>(a) * m + i] = co[static_cast<size_t>(a) * m + i] / norm;
    }
  }
  auto item_item = [&](int32_t u, absl::Span<double> scores) {
    std::fill(scores.begin(), scores.end(), 0.0);
    for (int32_t a : train.user(u).indices) {
      const double* row = &similarity[static_cast<size_t>(a) * m];
      for (int32_t i = 0; i < m; ++i) scores[i] += row[i];
    }
  };
  auto popularity = [&](int32_t, absl::Span<double> scores) {
    for (int32_t i = 0; i < m; ++i) scores[i] = static_cast<double>(train.item(i).size());
  };
  return {metrics::EvaluateRanking(train, split->test, item_item).f1,
          metrics::EvaluateRanking(train, split->test, popularity).f1};
}

// Users choose what they like, so a personal ranker beats popularity, as on real data (central
// DPMF-RP 1.9x on ML-100K); popularity-only exposure (legacy) leaves nothing personal to find.
// Measured at these seeds: item-item / popularity 1.32 on ml-100k, 0.96 on legacy; plain cosine
// item-item is a weaker ranker than MF, hence the margins 1.2 and 1.05.
TEST(SyntheticTest, PersonalRankingBeatsPopularity) {
  const F1s shaped = ItemItemAndPopularityF1(Generate(Shape("ml-100k")));
  EXPECT_GT(shaped.item_item, 1.2 * shaped.popularity)
      << "item-item " << shaped.item_item << ", popularity " << shaped.popularity;
  const F1s legacy = ItemItemAndPopularityF1(Generate(Shape("legacy")));
  EXPECT_LT(legacy.item_item, 1.05 * legacy.popularity)
      << "item-item " << legacy.item_item << ", popularity " << legacy.popularity;
}

TEST(SyntheticTest, PopularItemsHoldMostRatingsUnderPopularityExposure) {
  const RatingsDataset d = Generate(Shape("legacy"));
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

TEST(SyntheticTest, UniformPopularityHasNoSkewUnderPopularityExposure) {
  SyntheticConfig c = Shape("legacy");
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
