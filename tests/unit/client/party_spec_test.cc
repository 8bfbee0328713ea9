#include "client/party_spec.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/data/movie_genres.h"
#include "common/data/splits.h"
#include "gtest/gtest.h"
#include "tests/unit/client/test_round.h"
#include "tests/unit/common/test_files.h"

namespace fedmf::client {
namespace {

TEST(PartySpecTest, ParsesKindIndexAndCount) {
  const PartySpec h = ParsePartySpec("hfl:0/1").value();
  EXPECT_EQ(h.kind, PartySpec::Kind::kHorizontal);
  EXPECT_EQ(h.party, 0);
  EXPECT_EQ(h.num_parties, 1);
  const PartySpec v = ParsePartySpec("vfl:2/3").value();
  EXPECT_EQ(v.kind, PartySpec::Kind::kVertical);
  EXPECT_EQ(v.party, 2);
  EXPECT_EQ(v.num_parties, 3);
  const PartySpec g = ParsePartySpec("vfl-genre:18/19").value();
  EXPECT_EQ(g.kind, PartySpec::Kind::kVerticalByGenre);
  EXPECT_EQ(g.party, 18);
  EXPECT_EQ(g.num_parties, 19);
}

TEST(PartySpecTest, RefusesMalformedSpecsNamingTheProblem) {
  const std::pair<absl::string_view, absl::string_view> cases[] = {
      {"hfl:5/2", "I is outside [0, N)"},
      {"hfl:2/2", "I is outside [0, N)"},
      {"vfl:-1/2", "I is outside [0, N)"},
      {"hfl:0/0", "N < 1"},
      {"lfl:0/2", "unknown kind 'lfl'"},
      {"hfl0/2", "no ':'"},
      {"", "no ':'"},
      {"hfl:0-2", "I/N are not two integers"},
      {"vfl:a/2", "I/N are not two integers"},
      {"vfl:1/", "I/N are not two integers"}};
  for (const auto& [text, problem] : cases) {
    const absl::StatusOr<PartySpec> spec = ParsePartySpec(text);
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_EQ(spec.status().message(),
              absl::StrCat("--party must be KIND:I/N with KIND hfl, vfl or vfl-genre and "
                           "0 <= I < N, got '",
                           text, "': ", problem));
  }
}

TEST(PartySpecTest, PartiesAreEveryPartyOfTheFederation) {
  const std::vector<PartySpec> parties = ParseParties("vfl-genre:3").value();
  ASSERT_EQ(parties.size(), 3u);
  for (int32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(parties[i].kind, PartySpec::Kind::kVerticalByGenre);
    EXPECT_EQ(parties[i].party, i);
    EXPECT_EQ(parties[i].num_parties, 3);
  }
  EXPECT_EQ(HostingOf(ParseParties("hfl:1").value()[0].kind),
            algorithms::Hosting::kHorizontalParties);
  EXPECT_EQ(HostingOf(PartySpec::Kind::kVertical), algorithms::Hosting::kVerticalParties);
  EXPECT_EQ(HostingOf(PartySpec::Kind::kVerticalByGenre), algorithms::Hosting::kVerticalParties);
  const std::pair<absl::string_view, absl::string_view> refused[] = {
      {"hfl:0", "N < 1"},
      {"lfl:2", "unknown kind 'lfl'"},
      {"vfl", "no ':'"},
      {"vfl:0/2", "N is not an integer"}};
  for (const auto& [text, problem] : refused) {
    EXPECT_EQ(ParseParties(text).status().message(),
              absl::StrCat("--parties must be KIND:N with KIND hfl, vfl or vfl-genre and N >= 1, "
                           "got '",
                           text, "': ", problem));
  }
}

TEST(PartySpecTest, GenreFileIsGivenOrBesideTheMovieLensRatings) {
  EXPECT_EQ(ItemGenresPath("/g/u.item", "synthetic").value(), "/g/u.item");
  EXPECT_EQ(ItemGenresPath("", "ml-100k:/d/ml-100k/u.data?min=1&max=5").value(),
            "/d/ml-100k/u.item");
  EXPECT_EQ(ItemGenresPath("", "ml-100k:u.data").value(), "u.item");
  const absl::StatusOr<std::string> none = ItemGenresPath("", "synthetic:users=5");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(none.status().message(),
            "--party=vfl-genre needs MovieLens 100K genres: --item_genres=PATH/u.item, or "
            "--data=ml-100k:DIR/u.data with u.item beside it (--data is 'synthetic:users=5')");
}

struct Fixture {
  std::shared_ptr<const data::RatingsDataset> all = test_util::SmallData();  // 40 x 30
  data::TrainTest split = data::SplitHoldoutPerUser(*all, 0.25, 7).value();
};

TEST(PartySpecTest, HostsPartyIAsParticipantIPlusOne) {
  Fixture f;
  auto host =
      HostParty(ParsePartySpec("hfl:1/2").value(), "", "synthetic", f.split.train, &f.split.test, 3)
          .value();
  EXPECT_EQ(host->participant_ids(), std::vector<uint32_t>{2});
  const algorithms::PartyShard& shard = *host->Find(2)->data().party;
  EXPECT_EQ(shard.global_users.front(), 20);
  EXPECT_EQ(shard.global_users.size(), 20u);
  EXPECT_EQ(shard.global_items.size(), 30u);

  host = HostParty(ParsePartySpec("vfl:0/3").value(), "", "synthetic", f.split.train, nullptr,
                   std::nullopt)
             .value();
  EXPECT_EQ(host->participant_ids(), std::vector<uint32_t>{1});
  EXPECT_EQ(host->Find(1)->data().party->global_items.size(), 10u);
  EXPECT_EQ(host->Find(1)->data().party->test, nullptr);
}

TEST(PartySpecTest, HostsAGenreParty) {
  Fixture f;
  // Items 0-14 are Comedy (5), 15-29 Drama (8) and Comedy: each group its own primary genre.
  std::string lines;
  for (int32_t i = 0; i < f.all->num_items(); ++i) {
    std::vector<int> flags(data::kMovieLens100KGenres, 0);
    flags[5] = 1;
    if (i >= 15) flags[8] = 1;
    absl::StrAppend(&lines, f.all->item_id(i), "|T|d||u|", absl::StrJoin(flags, "|"), "\n");
  }
  const std::string path = fedmf::testing::WriteTestFile("u.item", lines);
  // Comedy is carried by 30 items, Drama by 15: the second group's primary genre is Drama, and
  // of the two genres of 15 primary items each the lower (Comedy) goes to party 0.
  auto host = HostParty(ParsePartySpec("vfl-genre:1/2").value(), path, "synthetic", f.split.train,
                        &f.split.test, std::nullopt)
                  .value();
  std::vector<int32_t> expected;
  for (int32_t i = 15; i < 30; ++i) expected.push_back(i);
  EXPECT_EQ(host->Find(2)->data().party->global_items, expected);
}

TEST(PartySpecTest, Refusals) {
  Fixture f;
  EXPECT_EQ(HostParty(ParsePartySpec("hfl:0/41").value(), "", "synthetic", f.split.train, nullptr,
                      std::nullopt)
                .status()
                .message(),
            "41 parties but only 40 users to split among them");
  EXPECT_EQ(HostParty(ParsePartySpec("hfl:0/2").value(), "/g/u.item", "synthetic", f.split.train,
                      nullptr, std::nullopt)
                .status()
                .message(),
            "--item_genres is read by --party=vfl-genre only");
  EXPECT_EQ(HostParty(ParsePartySpec("vfl-genre:0/2").value(), "", "synthetic", f.split.train,
                      nullptr, std::nullopt)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HostParty(ParsePartySpec("vfl-genre:0/2").value(), "/nonexistent/u.item", "synthetic",
                      f.split.train, nullptr, std::nullopt)
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace fedmf::client
