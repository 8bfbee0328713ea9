#include "common/algorithms/party_split.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace fedmf::algorithms {
namespace {

absl::Status CheckParty(const data::RatingsDataset& train, const data::RatingsDataset* test,
                        int32_t party, int32_t num_parties, int32_t count, absl::string_view what) {
  if (num_parties < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("number of parties must be >= 1, got ", num_parties));
  }
  if (party < 0 || party >= num_parties) {
    return absl::InvalidArgumentError(
        absl::StrCat("party ", party, " is outside [0, ", num_parties, ")"));
  }
  if (num_parties > count) {
    return absl::InvalidArgumentError(
        absl::StrCat(num_parties, " parties but only ", count, " ", what, " to split among them"));
  }
  if (test != nullptr &&
      (test->num_users() != train.num_users() || test->num_items() != train.num_items())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "test ratings are ", test->num_users(), " x ", test->num_items(), ", train ratings ",
        train.num_users(), " x ", train.num_items(), ": not one split"));
  }
  return absl::OkStatus();
}

// Indices [floor(party * count / N), floor((party + 1) * count / N)).
std::vector<int32_t> Block(int32_t count, int32_t party, int32_t num_parties) {
  const auto bound = [&](int32_t k) {
    return static_cast<int32_t>(static_cast<int64_t>(count) * k / num_parties);
  };
  std::vector<int32_t> block;
  for (int32_t i = bound(party); i < bound(party + 1); ++i) block.push_back(i);
  return block;
}

std::vector<int32_t> All(int32_t count) { return Block(count, 0, 1); }

// The ratings of `data` between `users` and `items` (ascending global indices), with local
// indices = positions in them.
absl::StatusOr<data::RatingsDataset> Restrict(const data::RatingsDataset& data,
                                              const std::vector<int32_t>& users,
                                              const std::vector<int32_t>& items,
                                              const std::string& source) {
  data::RatingsBuilder builder(source);
  for (int32_t u : users) builder.AddUser(data.user_id(u));
  std::vector<bool> kept(static_cast<size_t>(data.num_items()), false);
  for (int32_t i : items) {
    builder.AddItem(data.item_id(i));
    kept[static_cast<size_t>(i)] = true;
  }
  for (int32_t u : users) {
    const data::RatingRow row = data.user(u);
    for (int64_t k = 0; k < row.size(); ++k) {
      const int32_t item = row.indices[static_cast<size_t>(k)];
      if (!kept[static_cast<size_t>(item)]) continue;
      builder.Add(data.user_id(u), data.item_id(item), row.ratings[static_cast<size_t>(k)],
                  data.has_timestamps()
                      ? std::optional<int64_t>(row.timestamps[static_cast<size_t>(k)])
                      : std::nullopt);
    }
  }
  return std::move(builder).Build();
}

absl::StatusOr<PartyShard> Shard(const data::RatingsDataset& train,
                                 const data::RatingsDataset* test, std::vector<int32_t> users,
                                 std::vector<int32_t> items, const std::string& source) {
  PartyShard shard;
  absl::StatusOr<data::RatingsDataset> local_train =
      Restrict(train, users, items, absl::StrCat(source, " train"));
  if (!local_train.ok()) return local_train.status();
  shard.train = std::make_shared<const data::RatingsDataset>(std::move(*local_train));
  if (test != nullptr) {
    absl::StatusOr<data::RatingsDataset> local_test =
        Restrict(*test, users, items, absl::StrCat(source, " test"));
    if (!local_test.ok()) return local_test.status();
    shard.test = std::make_shared<const data::RatingsDataset>(std::move(*local_test));
  }
  shard.global_users = std::move(users);
  shard.global_items = std::move(items);
  return shard;
}

// An HFL party (a block of users, every item) or, with `split_items`, a VFL party (every user, a
// block of items).
absl::StatusOr<PartyShard> BlockParty(const data::RatingsDataset& train,
                                      const data::RatingsDataset* test, int32_t party,
                                      int32_t num_parties, bool split_items) {
  const int32_t count = split_items ? train.num_items() : train.num_users();
  if (absl::Status s =
          CheckParty(train, test, party, num_parties, count, split_items ? "items" : "users");
      !s.ok()) {
    return s;
  }
  std::vector<int32_t> block = Block(count, party, num_parties);
  const std::string source =
      absl::StrCat(split_items ? "vfl" : "hfl", " party ", party, "/", num_parties);
  return split_items ? Shard(train, test, All(train.num_users()), std::move(block), source)
                     : Shard(train, test, std::move(block), All(train.num_items()), source);
}

}  // namespace

absl::StatusOr<PartyShard> HorizontalParty(const data::RatingsDataset& train,
                                           const data::RatingsDataset* test, int32_t party,
                                           int32_t num_parties) {
  return BlockParty(train, test, party, num_parties, /*split_items=*/false);
}

absl::StatusOr<PartyShard> VerticalParty(const data::RatingsDataset& train,
                                         const data::RatingsDataset* test, int32_t party,
                                         int32_t num_parties) {
  return BlockParty(train, test, party, num_parties, /*split_items=*/true);
}

absl::StatusOr<PartyShard> VerticalPartyOf(const data::RatingsDataset& train,
                                           const data::RatingsDataset* test,
                                           absl::Span<const int32_t> item_party, int32_t party,
                                           int32_t num_parties) {
  if (absl::Status s = CheckParty(train, test, party, num_parties, train.num_items(), "items");
      !s.ok()) {
    return s;
  }
  if (static_cast<int64_t>(item_party.size()) != train.num_items()) {
    return absl::InvalidArgumentError(absl::StrCat("item parties: ", item_party.size(),
                                                   " given for ", train.num_items(), " items"));
  }
  std::vector<int32_t> items;
  for (int32_t i = 0; i < train.num_items(); ++i) {
    const int32_t owner = item_party[static_cast<size_t>(i)];
    if (owner < 0 || owner >= num_parties) {
      return absl::InvalidArgumentError(absl::StrCat("item parties: item ", i, " has party ", owner,
                                                     ", outside [0, ", num_parties, ")"));
    }
    if (owner == party) items.push_back(i);
  }
  if (items.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("item parties: party ", party, " of ", num_parties, " owns no item"));
  }
  return Shard(train, test, All(train.num_users()), std::move(items),
               absl::StrCat("vfl party ", party, "/", num_parties));
}

}  // namespace fedmf::algorithms
