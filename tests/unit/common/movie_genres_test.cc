#include "common/data/movie_genres.h"

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/data/loaders.h"
#include "gtest/gtest.h"
#include "tests/unit/common/test_files.h"

namespace fedmf::data {
namespace {

using fedmf::testing::WriteTestFile;

// A u.item line of movie `id` with the given genres.
std::string Line(absl::string_view id, std::vector<int> genres, absl::string_view title = "T") {
  std::vector<int> flags(kMovieLens100KGenres, 0);
  for (int g : genres) flags[static_cast<size_t>(g)] = 1;
  return absl::StrCat(id, "|", title, "|01-Jan-1995||http://x|", absl::StrJoin(flags, "|"), "\n");
}

uint32_t Mask(std::vector<int> genres) {
  uint32_t m = 0;
  for (int g : genres) m |= 1u << g;
  return m;
}

TEST(MovieGenresTest, LoadsTheFlags) {
  const std::string path = WriteTestFile(
      "u.item", Line("1", {3, 4, 5}) + Line("2", {}, "A | B (1990)") + Line("10", {0}) + "\n");
  absl::StatusOr<MovieGenres> g = LoadMovieLens100KGenres(path);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(*g, (MovieGenres{{"1", Mask({3, 4, 5})}, {"2", 0}, {"10", Mask({0})}}));
}

void ExpectError(absl::string_view contents, absl::string_view message) {
  const std::string path = WriteTestFile("u.item", contents);
  absl::StatusOr<MovieGenres> g = LoadMovieLens100KGenres(path);
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument) << g.status();
  EXPECT_EQ(g.status().message(), absl::StrCat(path, message));
}

TEST(MovieGenresTest, NamesFileAndLineOfAMalformedLine) {
  ExpectError(Line("1", {1}) + "2|short|line\n",
              ":2: expected at least 24 '|'-separated fields, found 3");
  std::string bad_flag = Line("1", {1});
  bad_flag[bad_flag.size() - 2] = '2';
  ExpectError(Line("7", {}) + bad_flag, ":2: genre flag 18 is \"2\", not 0 or 1");
  ExpectError(Line("", {1}), ":1: field 'id' is empty");
  ExpectError(Line("4", {1}) + Line("5", {2}) + Line("4", {3}), ":3: movie id '4' given twice");
  ExpectError(Line("4", {1}) + "\n" + Line("5", {2}), ":2: empty line before the end");
  ExpectError("", ": file is empty");
  EXPECT_EQ(LoadMovieLens100KGenres("/nonexistent/u.item").status().code(),
            absl::StatusCode::kNotFound);
}

// Items m1..m`count` rated by one user, in that order (dense item k - 1 is mk).
RatingsDataset Items(int count) {
  RatingsBuilder b;
  for (int i = 1; i <= count; ++i) b.Add("u", absl::StrCat("m", i), 3, std::nullopt);
  return std::move(b).Build().value();
}

// Genre counts over the 8 items: 1 -> 4 items, 2 -> 3, 5 -> 2, 0 -> 3 (m6 with no flag, m8 not
// in the file, m7 "unknown"). Primary genres: m1 {1,2} -> 2 (3 < 4), m2 {1,5} -> 5, m3 {1} -> 1,
// m4 {1,2,5} -> 5, m5 {2} -> 2, m6 -> 0, m7 -> 0, m8 -> 0. Sizes: 0: 3, 2: 2, 5: 2, 1: 1.
MovieGenres SomeGenres() {
  return {{"m1", Mask({1, 2})},    {"m2", Mask({1, 5})}, {"m3", Mask({1})},
          {"m4", Mask({1, 2, 5})}, {"m5", Mask({2})},    {"m6", 0},
          {"m7", Mask({0})},       {"other", Mask({4})}};
}

TEST(MovieGenresTest, EachItemGoesToItsRarestGenre) {
  const RatingsDataset data = Items(8);
  // Four parties: one genre each, largest first: 0 -> party 0, 2 -> 1, 5 -> 2, 1 -> 3.
  EXPECT_EQ(AssignItemsByGenre(data, SomeGenres(), 4).value(),
            (std::vector<int32_t>{1, 2, 3, 2, 1, 0, 0, 0}));
  // Two: 0 (3 items) -> party 0, 2 (2) -> 1, 5 (2) -> 1 (it holds 2 < 3), 1 (1) -> 0 (3 < 4).
  EXPECT_EQ(AssignItemsByGenre(data, SomeGenres(), 2).value(),
            (std::vector<int32_t>{1, 1, 0, 1, 1, 0, 0, 0}));
  EXPECT_EQ(AssignItemsByGenre(data, SomeGenres(), 1).value(), std::vector<int32_t>(8, 0));
}

TEST(MovieGenresTest, TieOfGenreSizesGoesToTheLowerGenre) {
  const RatingsDataset data = Items(2);
  const MovieGenres genres = {{"m1", Mask({3, 7})}, {"m2", Mask({7, 3})}};
  // Genres 3 and 7 carry two items each: both items take genre 3, the one primary genre.
  EXPECT_EQ(AssignItemsByGenre(data, genres, 1).value(), (std::vector<int32_t>{0, 0}));
  const absl::StatusOr<std::vector<int32_t>> two = AssignItemsByGenre(data, genres, 2);
  EXPECT_EQ(two.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(two.status().message(),
            "genre split: only 1 genres are some item's primary genre, too few for 2 parties");
}

TEST(MovieGenresTest, Refusals) {
  const RatingsDataset data = Items(8);
  EXPECT_EQ(AssignItemsByGenre(data, SomeGenres(), 0).status().message(),
            "genre split: number of parties must be >= 1, got 0");
  EXPECT_EQ(AssignItemsByGenre(data, SomeGenres(), 5).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(AssignItemsByGenre(data, {{"x", 1}}, 1).status().message(),
            "genre split: none of the dataset's 8 items is in the genre file (a genre file of "
            "another dataset?)");
}

// The real MovieLens 100K, if the shared data directory has it: every genre that is some movie's
// primary genre makes one party, and the split is balanced with fewer.
TEST(MovieGenresTest, RealMovieLens100K) {
  const char* env = std::getenv("FEDMF_DATA_DIR");
  const std::string dir = absl::StrCat(env != nullptr ? env : FEDMF_DEFAULT_DATA_DIR, "/ml-100k");
  if (!std::filesystem::exists(dir + "/u.item") || !std::filesystem::exists(dir + "/u.data")) {
    GTEST_SKIP() << "MovieLens 100K (u.data, u.item) not found in " << dir
                 << " (set FEDMF_DATA_DIR to the directory holding ml-100k/)";
  }
  const MovieGenres genres = LoadMovieLens100KGenres(dir + "/u.item").value();
  EXPECT_EQ(genres.size(), 1682u);
  const RatingsDataset data = LoadMovieLens100K(dir + "/u.data").value();
  int32_t primary_genres = 1;
  while (AssignItemsByGenre(data, genres, primary_genres + 1).ok()) ++primary_genres;
  EXPECT_GE(primary_genres, 10);
  EXPECT_LE(primary_genres, kMovieLens100KGenres);
  for (int32_t n : {2, 5, primary_genres}) {
    const std::vector<int32_t> party = AssignItemsByGenre(data, genres, n).value();
    ASSERT_EQ(party.size(), 1682u);
    std::vector<int32_t> size(static_cast<size_t>(n), 0);
    for (int32_t p : party) ++size[static_cast<size_t>(p)];
    for (int32_t k = 0; k < n; ++k) EXPECT_GT(size[static_cast<size_t>(k)], 0) << k << " of " << n;
    // One genre per party at n = primary_genres: a party's movies share a genre.
    if (n == primary_genres) {
      for (int32_t k = 0; k < n; ++k) {
        uint32_t common = ~0u;
        for (size_t i = 0; i < party.size(); ++i) {
          if (party[i] != k) continue;
          const uint32_t mask = genres.at(data.item_id(static_cast<int32_t>(i)));
          common &= mask == 0 ? 1u : mask;
        }
        EXPECT_NE(common, 0u) << "party " << k;
      }
    }
  }
}

}  // namespace
}  // namespace fedmf::data
