// What one participant holds and contributes from: either one user's own ratings (cross-device)
// or a silo party's whole shard of the federation's data (cross-silo: HFL parties hold disjoint
// users and every item, VFL parties every user and a disjoint block of items), with the maps from
// the shard's local indices to the federation's global ones. Nothing here leaves the participant.
#ifndef FEDMF_COMMON_ALGORITHMS_LOCAL_DATA_H_
#define FEDMF_COMMON_ALGORITHMS_LOCAL_DATA_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::algorithms {

// A party's shard: rows are its local users, columns its local items, each mapped to the
// federation's dense indices (ascending, no repeats).
struct PartyShard {
  std::shared_ptr<const data::RatingsDataset> train;
  std::shared_ptr<const data::RatingsDataset> test;  // same shape as train; may be null
  std::vector<int32_t> global_users;                 // local user u is global user global_users[u]
  std::vector<int32_t> global_items;                 // local item i is global item global_items[i]

  // InvalidArgument unless the maps match the datasets' shapes and are ascending and distinct.
  absl::Status Validate() const;
};

struct LocalData {
  static LocalData User(data::RatingRow train, data::RatingRow test = {}) {
    LocalData d;
    d.train = train;
    d.test = test;
    return d;
  }
  static LocalData Party(std::shared_ptr<const PartyShard> shard) {
    LocalData d;
    d.party = std::move(shard);
    return d;
  }

  // A user participant: their train ratings and held-out test ratings (global item indices),
  // views into datasets that outlive this. Empty for a party.
  data::RatingRow train;
  data::RatingRow test;
  // A party participant: its shard (null for a user).
  std::shared_ptr<const PartyShard> party;
  // The participant's id in the federation (>= 1; a user's is its dense user index + 1), set by
  // the runtime: e.g. to place a per-participant value in a vector. 0 when not yet known.
  uint32_t participant_id = 0;

  bool is_party() const { return party != nullptr; }
};

// Calls `fn(user_train, user_test)` for every user `data` holds, item indices global: the user's
// own rows, or each local user of a party with its rows mapped to global items (views valid
// during the call only). Stops at and returns the first error.
absl::Status ForEachUser(const LocalData& data,
                         const std::function<absl::Status(const data::RatingRow& train,
                                                          const data::RatingRow& test)>& fn);

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_LOCAL_DATA_H_
