#include "common/data/dataset_source.h"

#include <string>

#include "common/data/synthetic_shapes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/common/test_files.h"

namespace fedmf::data {
namespace {

using ::fedmf::testing::WriteTestFile;

void ExpectSpecError(absl::string_view spec, absl::string_view message) {
  const absl::StatusOr<DataSpec> parsed = ParseDataSpec(spec);
  ASSERT_FALSE(parsed.ok()) << spec;
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(parsed.status().message(), message);
  EXPECT_EQ(LoadDataset(spec).status(), parsed.status());
}

TEST(DatasetSourceTest, PlainSyntheticIsTheDefaultConfig) {
  absl::StatusOr<DataSpec> spec = ParseDataSpec("synthetic");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->kind, DataSpec::Kind::kSynthetic);
  EXPECT_EQ(spec->synthetic.num_users, 943);
  absl::StatusOr<RatingsDataset> d = LoadDataset("synthetic");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_items(), 1682);
}

TEST(DatasetSourceTest, EverySyntheticKeyIsSettable) {
  absl::StatusOr<DataSpec> spec = ParseDataSpec(
      "synthetic:users=500,items=800,rank=8,per_user=50,item_exp=1.2,item_offset=4,user_exp=0.5,"
      "user_offset=7,min_per_user=10,clusters=9,taste=1.5,spread=0.25,pop_share=0.5,implicit=1,"
      "stars=1/2/3.5/6,noise=0.3,mean=3.2,user_bias=0.1,item_bias=0.2,interaction=0.4,seed=3");
  ASSERT_TRUE(spec.ok()) << spec.status();
  const SyntheticConfig& c = spec->synthetic;
  EXPECT_EQ(c.num_users, 500);
  EXPECT_EQ(c.num_items, 800);
  EXPECT_EQ(c.rank, 8);
  EXPECT_EQ(c.ratings_per_user, 50);
  EXPECT_EQ(c.density, std::nullopt);
  EXPECT_EQ(c.item_popularity_exponent, 1.2);
  EXPECT_EQ(c.item_popularity_offset, 4);
  EXPECT_EQ(c.user_activity_exponent, 0.5);
  EXPECT_EQ(c.user_activity_offset, 7);
  EXPECT_EQ(c.min_ratings_per_user, 10);
  EXPECT_EQ(c.taste_clusters, 9);
  EXPECT_EQ(c.taste_strength, 1.5);
  EXPECT_EQ(c.taste_spread, 0.25);
  EXPECT_EQ(c.popularity_share, 0.5);
  EXPECT_TRUE(c.implicit);
  EXPECT_THAT(c.star_cuts, ::testing::ElementsAre(1, 2, 3.5, 6));
  EXPECT_EQ(c.noise_std, 0.3);
  EXPECT_EQ(c.mean_score, 3.2);
  EXPECT_EQ(c.user_bias_std, 0.1);
  EXPECT_EQ(c.item_bias_std, 0.2);
  EXPECT_EQ(c.interaction_std, 0.4);
  EXPECT_EQ(c.seed, 3u);
  absl::StatusOr<DataSpec> dense = ParseDataSpec("synthetic:density=0.1");
  ASSERT_TRUE(dense.ok()) << dense.status();
  EXPECT_EQ(dense->synthetic.density, 0.1);
}

TEST(DatasetSourceTest, SyntheticShapesAreNamedFirstAndOverriddenByKeys) {
  for (const std::string& name : SyntheticShapeNames()) {
    absl::StatusOr<DataSpec> spec = ParseDataSpec("synthetic:" + name);
    ASSERT_TRUE(spec.ok()) << name << ": " << spec.status();
    absl::StatusOr<SyntheticConfig> shape = SyntheticShape(name);
    ASSERT_TRUE(shape.ok()) << shape.status();
    EXPECT_EQ(spec->synthetic.num_users, shape->num_users) << name;
    EXPECT_EQ(spec->synthetic.taste_clusters, shape->taste_clusters) << name;
  }
  absl::StatusOr<DataSpec> gowalla = ParseDataSpec("synthetic:gowalla,users=100,seed=4");
  ASSERT_TRUE(gowalla.ok()) << gowalla.status();
  EXPECT_EQ(gowalla->synthetic.num_users, 100);
  EXPECT_EQ(gowalla->synthetic.num_items, 40981);
  EXPECT_TRUE(gowalla->synthetic.implicit);
  EXPECT_EQ(gowalla->synthetic.seed, 4u);
  absl::StatusOr<DataSpec> plain = ParseDataSpec("synthetic:ml-100k");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->synthetic.taste_clusters, SyntheticConfig().taste_clusters);
  absl::StatusOr<DataSpec> legacy = ParseDataSpec("synthetic:legacy");
  ASSERT_TRUE(legacy.ok()) << legacy.status();
  EXPECT_EQ(legacy->synthetic.taste_clusters, 0);
  EXPECT_EQ(ParseDataSpec("synthetic:ml-20m")->synthetic.num_users, 138493);
}

TEST(DatasetSourceTest, SyntheticSpecLoads) {
  absl::StatusOr<RatingsDataset> d =
      LoadDataset("synthetic:users=30,items=40,rank=2,per_user=5,min_per_user=5,seed=9");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_users(), 30);
  EXPECT_EQ(d->num_items(), 40);
  EXPECT_EQ(d->num_ratings(), 150);  // min = mean: every user exactly 5
}

TEST(DatasetSourceTest, SyntheticErrorsNameKeyAndValue) {
  ExpectSpecError("synthetic:users=abc",
                  "synthetic: bad value for 'users': \"abc\" (expected an integer)");
  ExpectSpecError("synthetic:noise=nan",
                  "synthetic: bad value for 'noise': \"nan\" (expected a number)");
  ExpectSpecError(
      "synthetic:bogus=1",
      "synthetic: unknown option 'bogus' (known: users, items, rank, per_user, density, "
      "item_exp, item_offset, user_exp, user_offset, min_per_user, clusters, taste, spread, "
      "pop_share, implicit, stars, noise, mean, user_bias, item_bias, interaction, seed)");
  ExpectSpecError("synthetic:rank=2,rank=3", "synthetic: option 'rank' given twice");
  ExpectSpecError("synthetic:rank",
                  "synthetic: unknown shape 'rank' (known: ml-100k, ml-20m, gowalla, legacy)");
  ExpectSpecError("synthetic:ml-100k,", "synthetic: option \"\" is not KEY=VALUE");
  ExpectSpecError("synthetic:users=5,ml-20m", "synthetic: option \"ml-20m\" is not KEY=VALUE");
  ExpectSpecError("synthetic:stars=1/2/3",
                  "synthetic: bad value for 'stars': \"1/2/3\" (expected four numbers joined by "
                  "'/')");
  ExpectSpecError("synthetic:stars=1/3/2/4",
                  "synthetic: stars = 2 is not finite and above the cut before it");
  ExpectSpecError("synthetic:pop_share=1.5", "synthetic: pop_share = 1.5 must be in [0, 1]");
  ExpectSpecError("synthetic:", "synthetic: option \"\" is not KEY=VALUE");
  ExpectSpecError("synthetic:per_user=5,density=0.1",
                  "synthetic: give per_user or density, not both");
  ExpectSpecError("synthetic:rank=0", "synthetic: rank = 0 must be at least 1");
  ExpectSpecError("synthetic:items=10,per_user=11", "synthetic: per_user = 11 exceeds items = 10");
}

TEST(DatasetSourceTest, MovieLensKinds) {
  const std::string u_data = WriteTestFile("u.data", "1\t2\t3\t4\n");
  absl::StatusOr<RatingsDataset> d = LoadDataset("ml-100k:" + u_data);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_ratings(), 1);
  const std::string csv =
      WriteTestFile("ratings.csv", "userId,movieId,rating,timestamp\n1,2,0.5,4\n");
  d = LoadDataset("ml-csv:" + csv);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->rating(0).rating, 0.5);
  const std::string dat = WriteTestFile("ratings.dat", "1::2::4.5::4\n1::2::5::5\n");
  d = LoadDataset("ml-dat:" + dat + "?duplicates=last");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->rating(0).rating, 5);
  // Declared range from the spec.
  const absl::Status strict =
      LoadDataset("ml-dat:" + dat + "?min=1&max=4&duplicates=first").status();
  EXPECT_EQ(strict.message(), dat + ":1: rating 4.5 outside declared range [1, 4]");
}

TEST(DatasetSourceTest, CsvWithEveryOption) {
  const std::string path =
      WriteTestFile("r.csv", "item;user;stars;when;x\nb;7;2;100;-\nb;7;4;200;-\n");
  const std::string spec = "csv:" + path +
                           "?sep=;&header=1&user=1&item=0&rating=2&timestamp=3&columns=4&extra=1"
                           "&min=1&max=5&duplicates=last";
  absl::StatusOr<DataSpec> parsed = ParseDataSpec(spec);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->kind, DataSpec::Kind::kDelimited);
  EXPECT_EQ(parsed->path, path);
  EXPECT_EQ(parsed->format.delimiter, ";");
  EXPECT_TRUE(parsed->format.has_header);
  EXPECT_EQ(parsed->format.user_column, 1);
  EXPECT_EQ(parsed->format.item_column, 0);
  EXPECT_EQ(parsed->format.rating_column, 2);
  EXPECT_EQ(parsed->format.timestamp_column, 3);
  EXPECT_EQ(parsed->format.num_columns, 4);
  EXPECT_TRUE(parsed->format.allow_extra_columns);
  ASSERT_TRUE(parsed->options.range.has_value());
  EXPECT_EQ(parsed->options.range->min, 1);
  EXPECT_EQ(parsed->options.range->max, 5);
  EXPECT_EQ(parsed->options.duplicates, DuplicatePolicy::kKeepLast);
  absl::StatusOr<RatingsDataset> d = LoadDataset(spec);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->user_id(0), "7");
  EXPECT_EQ(d->rating(0).rating, 4);
  EXPECT_EQ(d->rating(0).timestamp, 200);
}

TEST(DatasetSourceTest, CsvNamedSeparatorsAndNoTimestamp) {
  const std::string path = WriteTestFile("r.tsv", "a\tb\t3\n");
  absl::StatusOr<DataSpec> parsed = ParseDataSpec("csv:" + path + "?sep=tab&timestamp=none");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->format.delimiter, "\t");
  EXPECT_EQ(parsed->format.timestamp_column, std::nullopt);
  absl::StatusOr<RatingsDataset> d = LoadDataset(*parsed);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_FALSE(d->has_timestamps());
}

TEST(DatasetSourceTest, FileSpecErrors) {
  ExpectSpecError("netflix:/x",
                  "unknown data source 'netflix' in \"netflix:/x\" (expected synthetic, "
                  "ml-100k, ml-csv, ml-dat, csv or user-items)");
  ExpectSpecError("ml-100k", "ml-100k: missing path in \"ml-100k\"");
  ExpectSpecError("csv:?sep=;", "csv: missing path in \"csv:?sep=;\"");
  ExpectSpecError("ml-100k:/x?sep=;",
                  "ml-100k: unknown option 'sep' (known: min, max, duplicates)");
  ExpectSpecError("csv:/x?min=1", "csv: min and max must be given together");
  ExpectSpecError("csv:/x?min=5&max=1", "csv: min = 5 exceeds max = 1");
  ExpectSpecError("csv:/x?duplicates=newest",
                  "csv: bad value for 'duplicates': \"newest\" (expected error, first or last)");
  ExpectSpecError("csv:/x?user=-1",
                  "csv: bad value for 'user': \"-1\" (expected a column index >= 0)");
  ExpectSpecError("csv:/x?header=yes", "csv: bad value for 'header': \"yes\" (expected 0 or 1)");
  ExpectSpecError("csv:/x?sep=", "csv: bad value for 'sep': \"\" (expected a non-empty string)");
  ExpectSpecError("csv:/x?columns=0",
                  "csv: bad value for 'columns': \"0\" (expected an integer >= 1)");
}

TEST(DatasetSourceTest, MissingFileIsNotFound) {
  const absl::StatusOr<RatingsDataset> d = LoadDataset("ml-100k:/nonexistent/u.data");
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(d.status().message(), ::testing::HasSubstr("/nonexistent/u.data"));
}

TEST(DatasetSourceTest, DescribeDataset) {
  RatingsBuilder b;
  b.Add("u1", "a", 2, std::nullopt);
  b.Add("u1", "b", 3, std::nullopt);
  b.Add("u2", "c", 4, std::nullopt);
  const RatingsDataset d = *std::move(b).Build();
  // 3 ratings in 2 x 3 cells; mean (2 + 3 + 4) / 3.
  EXPECT_EQ(DescribeDataset(d), "users=2 items=3 ratings=3 density=0.5000 mean_rating=3.000");
  EXPECT_EQ(DescribeDataset(RatingsDataset()),
            "users=0 items=0 ratings=0 density=0.0000 mean_rating=0.000");
}

}  // namespace
}  // namespace fedmf::data
