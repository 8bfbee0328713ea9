#include "common/algorithms/local_data.h"

#include <cstddef>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace fedmf::algorithms {
namespace {

absl::Status CheckMap(const std::vector<int32_t>& map, int32_t local_size, absl::string_view what) {
  if (static_cast<int64_t>(map.size()) != local_size) {
    return absl::InvalidArgumentError(absl::StrCat("party shard: ", map.size(), " global ", what,
                                                   " ids for ", local_size, " local ", what));
  }
  for (size_t k = 0; k < map.size(); ++k) {
    if (map[k] < 0 || (k > 0 && map[k] <= map[k - 1])) {
      return absl::InvalidArgumentError(absl::StrCat("party shard: global ", what, " id ", map[k],
                                                     " at local index ", k,
                                                     " is negative or not ascending"));
    }
  }
  return absl::OkStatus();
}

// `row` (a party's local item indices) with global item indices, in `storage`.
data::RatingRow ToGlobalItems(const data::RatingRow& row, const std::vector<int32_t>& global_items,
                              std::vector<int32_t>& storage) {
  storage.clear();
  for (int32_t local : row.indices) storage.push_back(global_items[static_cast<size_t>(local)]);
  // global_items is ascending, so the mapped row stays sorted.
  return data::RatingRow{storage, row.ratings, row.timestamps};
}

}  // namespace

absl::Status ForEachUser(
    const LocalData& data,
    const std::function<absl::Status(const data::RatingRow& train, const data::RatingRow& test)>&
        fn) {
  if (!data.is_party()) return fn(data.train, data.test);
  const PartyShard& party = *data.party;
  std::vector<int32_t> train_items;
  std::vector<int32_t> test_items;
  for (int32_t u = 0; u < party.train->num_users(); ++u) {
    const data::RatingRow train = ToGlobalItems(party.train->user(u), party.global_items, train_items);
    const data::RatingRow test =
        party.test == nullptr ? data::RatingRow{}
                              : ToGlobalItems(party.test->user(u), party.global_items, test_items);
    if (absl::Status s = fn(train, test); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status PartyShard::Validate() const {
  if (train == nullptr) return absl::InvalidArgumentError("party shard: no train ratings");
  if (test != nullptr &&
      (test->num_users() != train->num_users() || test->num_items() != train->num_items())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "party shard: test ratings are ", test->num_users(), " x ", test->num_items(),
        ", train ratings ", train->num_users(), " x ", train->num_items()));
  }
  if (absl::Status s = CheckMap(global_users, train->num_users(), "user"); !s.ok()) return s;
  return CheckMap(global_items, train->num_items(), "item");
}

}  // namespace fedmf::algorithms
