#include "common/data/loaders.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/common/rating_rows.h"
#include "tests/unit/common/test_files.h"

namespace fedmf::data {
namespace {

using ::fedmf::testing::WriteTestFile;
using ::testing::ElementsAre;

using test_util::Ratings;

// Expects InvalidArgument with exactly "<path><suffix>".
void ExpectError(const absl::StatusOr<RatingsDataset>& d, const std::string& path,
                 absl::string_view suffix) {
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(d.status().message(), absl::StrCat(path, suffix));
}

TEST(LoadersTest, MovieLens100K) {
  const std::string path = WriteTestFile(
      "u.data", "196\t242\t3\t881250949\n186\t302\t3\t891717742\n196\t377\t1\t878887116\n");
  absl::StatusOr<RatingsDataset> d = LoadMovieLens100K(path);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_users(), 2);
  EXPECT_EQ(d->num_items(), 3);
  EXPECT_EQ(d->num_ratings(), 3);
  ASSERT_TRUE(d->has_timestamps());
  const int32_t u196 = *d->FindUser("196");
  EXPECT_THAT(Ratings(d->user(u196)), ElementsAre(3, 1));  // items 242, 377
  EXPECT_THAT(
      std::vector<int64_t>(d->user(u196).timestamps.begin(), d->user(u196).timestamps.end()),
      ElementsAre(881250949, 878887116));
  EXPECT_EQ(d->item_id(d->user(u196).indices[1]), "377");
}

TEST(LoadersTest, MovieLensCsvHalfStars) {
  const std::string path =
      WriteTestFile("ratings.csv",
                    "userId,movieId,rating,timestamp\n1,31,2.5,1260759144\n1,1029,3.0,1260759179\n"
                    "2,31,0.5,1260759182\n");
  absl::StatusOr<RatingsDataset> d = LoadMovieLensCsv(path);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_ratings(), 3);
  EXPECT_THAT(Ratings(d->item(*d->FindItem("31"))), ElementsAre(2.5, 0.5));
}

TEST(LoadersTest, MovieLensDat) {
  const std::string path = WriteTestFile(
      "ratings.dat", "1::1193::5::978300760\n1::661::3::978302109\n2::1193::4.5::978298413\n");
  absl::StatusOr<RatingsDataset> d = LoadMovieLensDat(path);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_users(), 2);
  EXPECT_EQ(d->num_items(), 2);
  EXPECT_THAT(Ratings(d->item(*d->FindItem("1193"))), ElementsAre(5, 4.5));
  EXPECT_EQ(d->rating(0).timestamp, 978300760);
}

TEST(LoadersTest, DelimitedWithChosenColumnsAndExtraFields) {
  const std::string path =
      WriteTestFile("r.txt", "item;user;note;score\nx;alice;hi;4;more\ny;bob;;2\n");
  DelimitedFormat f;
  f.delimiter = ";";
  f.has_header = true;
  f.user_column = 1;
  f.item_column = 0;
  f.rating_column = 3;
  f.num_columns = 4;
  f.allow_extra_columns = true;
  absl::StatusOr<RatingsDataset> d = LoadDelimited(path, f);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_FALSE(d->has_timestamps());
  EXPECT_EQ(d->user_id(0), "alice");
  EXPECT_EQ(d->item_id(1), "y");
  EXPECT_THAT(Ratings(d->user(1)), ElementsAre(2));
}

TEST(LoadersTest, DelimitedExactColumnCountByDefault) {
  const std::string path = WriteTestFile("r.txt", "a,b,1\na,c,2,extra\n");
  ExpectError(LoadDelimited(path, DelimitedFormat()), path,
              ":2: expected 3 comma-separated fields, found 4");
}

TEST(LoadersTest, WrongColumnCount) {
  const std::string path = WriteTestFile("u.data", "1\t2\t3\t4\n1\t3\t3\n");
  ExpectError(LoadMovieLens100K(path), path, ":2: expected 4 tab-separated fields, found 3");
}

TEST(LoadersTest, WrongColumnCountMultiCharDelimiter) {
  const std::string path = WriteTestFile("ratings.dat", "1::2::3\n");
  ExpectError(LoadMovieLensDat(path), path, ":1: expected 4 '::'-separated fields, found 3");
}

TEST(LoadersTest, NonNumericRating) {
  const std::string path =
      WriteTestFile("ratings.csv", "userId,movieId,rating,timestamp\n1,2,3,4\n1,3,abc,5\n");
  ExpectError(LoadMovieLensCsv(path), path, ":3: field 'rating' is not a number: \"abc\"");
}

TEST(LoadersTest, RatingWithTrailingGarbageIsNotANumber) {
  const std::string path = WriteTestFile("u.data", "1\t2\t3x\t4\n");
  ExpectError(LoadMovieLens100K(path), path, ":1: field 'rating' is not a number: \"3x\"");
}

TEST(LoadersTest, NanAndInfinityRejected) {
  const std::string nan_path = WriteTestFile("nan.csv", "a,b,nan\n");
  ExpectError(LoadDelimited(nan_path, DelimitedFormat()), nan_path,
              ":1: field 'rating' is not a number: \"nan\"");
  const std::string inf_path = WriteTestFile("inf.csv", "a,b,inf\n");
  ExpectError(LoadDelimited(inf_path, DelimitedFormat()), inf_path,
              ":1: field 'rating' is not a number: \"inf\"");
}

TEST(LoadersTest, RatingBeyondFloatRange) {
  const std::string path = WriteTestFile("big.csv", "a,b,1e300\n");
  ExpectError(LoadDelimited(path, DelimitedFormat()), path,
              ":1: field 'rating' is too large: \"1e300\"");
}

TEST(LoadersTest, NonIntegerTimestamp) {
  const std::string path = WriteTestFile("u.data", "1\t2\t3\t12.5\n");
  ExpectError(LoadMovieLens100K(path), path, ":1: field 'timestamp' is not an integer: \"12.5\"");
}

TEST(LoadersTest, EmptyUserField) {
  const std::string path = WriteTestFile("u.data", "\t2\t3\t4\n");
  ExpectError(LoadMovieLens100K(path), path, ":1: field 'user' is empty");
}

TEST(LoadersTest, RatingOutsideDefaultRange) {
  const std::string path = WriteTestFile("u.data",
                                         "1\t1\t1\t1\n1\t2\t2\t1\n1\t3\t3\t1\n1\t4\t4\t1\n"
                                         "1\t5\t5\t1\n1\t6\t5\t1\n1\t7\t4\t1\n1\t8\t1\t1\n"
                                         "1\t9\t7\t1\n");
  ExpectError(LoadMovieLens100K(path), path, ":9: rating 7 outside declared range [1, 5]");
}

TEST(LoadersTest, HalfStarOutsideIntegerRange) {
  const std::string path = WriteTestFile("u.data", "1\t1\t0.5\t1\n");
  ExpectError(LoadMovieLens100K(path), path, ":1: rating 0.5 outside declared range [1, 5]");
}

TEST(LoadersTest, DeclaredRangeOverridesDefault) {
  const std::string path = WriteTestFile("ratings.dat", "1::1::9::1\n1::2::10::1\n");
  LoadOptions options;
  options.range = RatingRange{0, 10};
  absl::StatusOr<RatingsDataset> d = LoadMovieLensDat(path, options);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(Ratings(d->user(0)), ElementsAre(9, 10));
  options.range = RatingRange{1, 5};
  ExpectError(LoadMovieLensDat(path, options), path, ":1: rating 9 outside declared range [1, 5]");
}

TEST(LoadersTest, EmptyFile) {
  const std::string path = WriteTestFile("u.data", "");
  ExpectError(LoadMovieLens100K(path), path, ": file is empty");
}

TEST(LoadersTest, OnlyBlankLinesIsEmpty) {
  const std::string path = WriteTestFile("u.data", "\n\r\n");
  ExpectError(LoadMovieLens100K(path), path, ": file is empty");
}

TEST(LoadersTest, HeaderWithoutRatings) {
  const std::string path = WriteTestFile("ratings.csv", "userId,movieId,rating,timestamp\n");
  ExpectError(LoadMovieLensCsv(path), path, ": no ratings after the header");
}

TEST(LoadersTest, MissingFileIsNotFound) {
  const std::string path = fedmf::testing::TestDir() + "/nope/u.data";
  absl::StatusOr<RatingsDataset> d = LoadMovieLens100K(path);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(d.status().message(), ::testing::HasSubstr(path));
}

TEST(LoadersTest, DuplicateUnderErrorNamesBothLines) {
  const std::string path = WriteTestFile("u.data", "1\t2\t3\t10\n1\t5\t4\t11\n1\t2\t5\t12\n");
  ExpectError(LoadMovieLens100K(path), path,
              ":3: duplicate rating for user '1' item '2' (first at line 1)");
}

TEST(LoadersTest, DuplicateKeepFirstAndKeepLast) {
  const std::string path = WriteTestFile("u.data", "1\t2\t3\t10\n1\t5\t4\t11\n1\t2\t5\t12\n");
  LoadOptions options;
  options.duplicates = DuplicatePolicy::kKeepFirst;
  absl::StatusOr<RatingsDataset> first = LoadMovieLens100K(path, options);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->num_ratings(), 2);
  EXPECT_THAT(Ratings(first->user(0)), ElementsAre(3, 4));
  EXPECT_EQ(first->user(0).timestamps[0], 10);
  options.duplicates = DuplicatePolicy::kKeepLast;
  absl::StatusOr<RatingsDataset> last = LoadMovieLens100K(path, options);
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_THAT(Ratings(last->user(0)), ElementsAre(5, 4));
  EXPECT_EQ(last->user(0).timestamps[0], 12);
}

TEST(LoadersTest, BadHeaderNamesExpected) {
  const std::string path = WriteTestFile("ratings.csv", "user,item,rating,ts\n1,2,3,4\n");
  ExpectError(LoadMovieLensCsv(path), path,
              ":1: bad header: expected \"userId,movieId,rating,timestamp\", found "
              "\"user,item,rating,ts\"");
}

TEST(LoadersTest, CrlfLineEndings) {
  const std::string path =
      WriteTestFile("ratings.csv", "userId,movieId,rating,timestamp\r\n1,2,3.5,4\r\n1,3,4,5\r\n");
  absl::StatusOr<RatingsDataset> d = LoadMovieLensCsv(path);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(Ratings(d->user(0)), ElementsAre(3.5, 4));
  EXPECT_EQ(d->user(0).timestamps[1], 5);
}

TEST(LoadersTest, Utf8BomBeforeHeader) {
  const std::string path =
      WriteTestFile("ratings.csv", "\xEF\xBB\xBFuserId,movieId,rating,timestamp\n1,2,3,4\n");
  absl::StatusOr<RatingsDataset> d = LoadMovieLensCsv(path);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_ratings(), 1);
}

TEST(LoadersTest, Utf8BomBeforeFirstRating) {
  const std::string path = WriteTestFile("u.data",
                                         "\xEF\xBB\xBF"
                                         "7\t2\t3\t4\n");
  absl::StatusOr<RatingsDataset> d = LoadMovieLens100K(path);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->user_id(0), "7");
}

TEST(LoadersTest, TrailingBlankLinesAndNoFinalNewline) {
  const std::string trailing = WriteTestFile("a.data", "1\t2\t3\t4\n1\t3\t3\t4\n\n\r\n");
  absl::StatusOr<RatingsDataset> d = LoadMovieLens100K(trailing);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_ratings(), 2);
  const std::string unterminated = WriteTestFile("b.data", "1\t2\t3\t4\n1\t3\t3\t4");
  d = LoadMovieLens100K(unterminated);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_ratings(), 2);
}

TEST(LoadersTest, BlankLineInTheMiddle) {
  const std::string path = WriteTestFile("u.data", "1\t2\t3\t4\n\n1\t3\t3\t4\n");
  ExpectError(LoadMovieLens100K(path), path, ":2: empty line before the end of the file");
}

TEST(LoadersTest, InvalidFormatRejectedBeforeReading) {
  DelimitedFormat f;
  f.item_column = 0;  // same as user_column
  const std::string path = WriteTestFile("r.txt", "a,b,1\n");
  ExpectError(LoadDelimited(path, f), path, ": column 0 is used for two fields");
  f = DelimitedFormat();
  f.delimiter = "";
  ExpectError(LoadDelimited(path, f), path, ": delimiter must not be empty");
}

// The real MovieLens 100K, if the shared data directory has it.
TEST(LoadersTest, RealMovieLens100K) {
  const char* env = std::getenv("FEDMF_DATA_DIR");
  const std::string dir = env != nullptr ? env : FEDMF_DEFAULT_DATA_DIR;
  const std::string path = dir + "/ml-100k/u.data";
  if (!std::filesystem::exists(path)) {
    GTEST_SKIP() << "MovieLens 100K not found at " << path
                 << " (set FEDMF_DATA_DIR to the directory holding ml-100k/)";
  }
  absl::StatusOr<RatingsDataset> d = LoadMovieLens100K(path);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_users(), 943);
  EXPECT_EQ(d->num_items(), 1682);
  EXPECT_EQ(d->num_ratings(), 100000);
  EXPECT_TRUE(d->has_timestamps());
}

}  // namespace
}  // namespace fedmf::data
