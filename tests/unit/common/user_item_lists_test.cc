#include "common/data/user_item_lists.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/data/dataset_source.h"
#include "common/data/split_spec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/common/rating_rows.h"
#include "tests/unit/common/test_files.h"

namespace fedmf::data {
namespace {

using ::fedmf::testing::WriteTestFile;
using ::testing::ElementsAre;

using test_util::Indices;

// The dataset's ratings in the file format, one line per user (original ids), `part` choosing
// the ratings: the writer of the round trip.
std::string Write(const RatingsDataset& d) {
  std::string out;
  for (int32_t u = 0; u < d.num_users(); ++u) {
    std::vector<std::string> fields = {d.user_id(u)};
    for (int32_t i : d.user(u).indices) fields.push_back(d.item_id(i));
    absl::StrAppend(&out, absl::StrJoin(fields, " "), "\n");
  }
  return out;
}

void ExpectError(const absl::StatusOr<RatingsDataset>& d, const std::string& message) {
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(d.status().message(), message);
}

TEST(UserItemListsTest, DenseIdsAreTheIndicesAndTestIsThePredefinedPart) {
  const std::string train = WriteTestFile("train.txt", "0 0 1 2\n1 1 3\n2 0\n");
  const std::string test = WriteTestFile("test.txt", "0 3\n1 0\n2 2 1\n");
  absl::StatusOr<RatingsDataset> d = LoadUserItemLists(train, test);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_users(), 3);
  EXPECT_EQ(d->num_items(), 4);
  EXPECT_EQ(d->num_ratings(), 10);
  EXPECT_FALSE(d->has_timestamps());
  for (int32_t id = 0; id < 3; ++id) EXPECT_EQ(d->user_id(id), std::to_string(id));
  for (int32_t id = 0; id < 4; ++id) EXPECT_EQ(d->item_id(id), std::to_string(id));
  EXPECT_THAT(Indices(d->user(0)), ElementsAre(0, 1, 2, 3));
  for (int64_t k = 0; k < d->num_ratings(); ++k) EXPECT_EQ(d->rating(k).rating, 1);
  // By-user order: user 0 has 0 1 2 [3], user 1 [0] 1 3, user 2 0 [1] [2].
  EXPECT_THAT(std::vector<int64_t>(d->predefined_test().begin(), d->predefined_test().end()),
              ElementsAre(3, 4, 8, 9));

  absl::StatusOr<std::vector<TrainTest>> split = MakeSplits(*d, "predefined", 1);
  ASSERT_TRUE(split.ok()) << split.status();
  ASSERT_EQ(split->size(), 1u);
  const TrainTest& s = (*split)[0];
  EXPECT_EQ(Write(s.train), "0 0 1 2\n1 1 3\n2 0\n");
  EXPECT_EQ(Write(s.test), "0 3\n1 0\n2 1 2\n");
  EXPECT_TRUE(s.train.predefined_test().empty());
}

TEST(UserItemListsTest, RoundTrip) {
  const std::string first =
      WriteTestFile("first.txt", "3 10 7 42\n0\t7  10 \r\n12 42\n5\n\n\n");  // tabs, CRLF, blanks
  absl::StatusOr<RatingsDataset> d = LoadUserItemLists(first);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->predefined_test().empty());
  // Dense indices follow the ids' numeric order: users 0 3 5 12, items 7 10 42.
  EXPECT_EQ(d->user_id(1), "3");
  EXPECT_EQ(d->item_id(2), "42");
  EXPECT_EQ(d->user(*d->FindUser("5")).size(), 0);  // listed without items
  const std::string written = Write(*d);
  EXPECT_EQ(written, "0 7 10\n3 7 10 42\n5\n12 42\n");
  absl::StatusOr<RatingsDataset> again = LoadUserItemLists(WriteTestFile("again.txt", written));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(Write(*again), written);
  EXPECT_EQ(again->num_users(), d->num_users());
  EXPECT_EQ(again->num_items(), d->num_items());
}

TEST(UserItemListsTest, MalformedLinesNameFileAndLine) {
  const struct {
    const char* contents;
    const char* suffix;
  } cases[] = {
      {"0 1\nx 2\n", ":2: user id \"x\" is not an integer in [0, 2^31 - 1]"},
      {"0 1 7x\n", ":1: item id \"7x\" is not an integer in [0, 2^31 - 1]"},
      {"0 +1\n", ":1: item id \"+1\" is not an integer in [0, 2^31 - 1]"},
      {"-1 1\n", ":1: user id \"-1\" is not an integer in [0, 2^31 - 1]"},
      {"0 2147483648\n", ":1: item id \"2147483648\" is not an integer in [0, 2^31 - 1]"},
      {"0 1\n1 2\n0 3\n", ":3: user 0 is listed again (first at line 1)"},
      {"0 1\n1 2 5 2\n", ":2: item 2 is listed twice for user 1"},
      {"0 1\n\n1 2\n", ":2: empty line before the end of the file"},
  };
  int n = 0;
  for (const auto& c : cases) {
    const std::string path = WriteTestFile(absl::StrCat("bad", n++, ".txt"), c.contents);
    ExpectError(LoadUserItemLists(path), absl::StrCat(path, c.suffix));
  }
  const std::string empty = WriteTestFile("empty.txt", "\n\n");
  ExpectError(LoadUserItemLists(empty), absl::StrCat(empty, ": file is empty"));
}

TEST(UserItemListsTest, TestFileErrorsNameTheTestFile) {
  const std::string train = WriteTestFile("train.txt", "0 1 2\n1 2\n");
  const std::string overlap = WriteTestFile("overlap.txt", "1 3\n0 4 2\n");
  ExpectError(LoadUserItemLists(train, overlap),
              absl::StrCat(overlap, ":2: user 0 item 2 is also in ", train, " (line 1)"));
  const std::string bad = WriteTestFile("bad.txt", "0 3\n1 q\n");
  ExpectError(LoadUserItemLists(train, bad),
              absl::StrCat(bad, ":2: item id \"q\" is not an integer in [0, 2^31 - 1]"));
  absl::StatusOr<RatingsDataset> missing = LoadUserItemLists(train, train + ".absent");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  // A user or item only in the test file still gets its index.
  absl::StatusOr<RatingsDataset> d = LoadUserItemLists(train, WriteTestFile("new.txt", "2 9\n"));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_users(), 3);
  EXPECT_EQ(d->num_items(), 3);
  EXPECT_EQ(d->predefined_test().size(), 1u);
}

TEST(UserItemListsTest, DataSpecAndPredefinedSplit) {
  const std::string train = WriteTestFile("train.txt", "0 0 1\n1 1\n");
  const std::string test = WriteTestFile("test.txt", "1 0\n");
  absl::StatusOr<RatingsDataset> d =
      LoadDataset(absl::StrCat("user-items:", train, "?test=", test));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->predefined_test().size(), 1u);
  EXPECT_EQ(DescribeDataset(*d),
            "users=2 items=2 ratings=4 density=1.0000 mean_rating=1.000 predefined_test=1");
  absl::StatusOr<std::vector<TrainTest>> split = MakeSplits(*d, "predefined+train:0.5", 1);
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_EQ((*split)[0].train.num_ratings(), 2);  // user 0 keeps 1 of 2, user 1 its 1
  EXPECT_EQ((*split)[0].test.num_ratings(), 1);

  EXPECT_EQ(LoadDataset(absl::StrCat("user-items:", train, "?min=1&max=5")).status().message(),
            "user-items: unknown option 'min' (known: test)");
  absl::StatusOr<RatingsDataset> plain = LoadDataset(absl::StrCat("user-items:", train));
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(MakeSplits(*plain, "predefined", 1).status().message(),
            "split 'predefined': the data came without a test part (give one with "
            "--data=user-items:TRAIN?test=TEST)");
  EXPECT_EQ(MakeSplits(*d, "predefined:1", 1).status().message(),
            "split 'predefined:1': 'predefined' takes no value");
}

// LightGCN's Gowalla split, if the shared data directory has it.
TEST(UserItemListsTest, RealGowalla) {
  const char* env = std::getenv("FEDMF_DATA_DIR");
  const std::string dir = absl::StrCat(env != nullptr ? env : FEDMF_DEFAULT_DATA_DIR, "/gowalla");
  if (!std::filesystem::exists(dir + "/train.txt") || !std::filesystem::exists(dir + "/test.txt")) {
    GTEST_SKIP() << "Gowalla not found at " << dir
                 << "/{train,test}.txt (set FEDMF_DATA_DIR to the directory holding gowalla/)";
  }
  absl::StatusOr<RatingsDataset> d = LoadUserItemLists(dir + "/train.txt", dir + "/test.txt");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_users(), 29858);
  EXPECT_EQ(d->num_items(), 40981);
  EXPECT_EQ(d->num_ratings(), 810128 + 217242);
  EXPECT_EQ(d->predefined_test().size(), 217242u);
  EXPECT_EQ(d->user_id(29857), "29857");
  EXPECT_EQ(d->item_id(40980), "40980");
}

}  // namespace
}  // namespace fedmf::data
