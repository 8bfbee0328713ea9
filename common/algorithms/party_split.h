// Party i of N's PartyShard (local_data.h) from a train/test split, for cross-silo FL: HFL parties
// hold disjoint blocks of users with every item, VFL parties every user and disjoint blocks of
// items. Every rating of the split lands in exactly one party's shard; local indices are dense,
// in ascending global order, and keep the dataset's original ids.
#ifndef FEDMF_COMMON_ALGORITHMS_PARTY_SPLIT_H_
#define FEDMF_COMMON_ALGORITHMS_PARTY_SPLIT_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/algorithms/local_data.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::algorithms {

// `train` and `test` are the two sides of one split (same users and items; `test` may be null:
// the shards then have no test ratings). Blocks are contiguous ranges of dense indices,
// [floor(k * c / N), floor((k + 1) * c / N)) for party k of c indices: their sizes differ by at
// most one. InvalidArgument if N < 1, party is outside [0, N), N exceeds the number of users
// (HFL) or items (VFL), or `test` has another shape than `train`.
absl::StatusOr<PartyShard> HorizontalParty(const data::RatingsDataset& train,
                                           const data::RatingsDataset* test, int32_t party,
                                           int32_t num_parties);
absl::StatusOr<PartyShard> VerticalParty(const data::RatingsDataset& train,
                                         const data::RatingsDataset* test, int32_t party,
                                         int32_t num_parties);

// The VFL party owning the items i with item_party[i] == party (e.g. data::AssignItemsByGenre).
// InvalidArgument as above, and if item_party does not give every item of `train` a party in
// [0, N) or `party` owns no item.
absl::StatusOr<PartyShard> VerticalPartyOf(const data::RatingsDataset& train,
                                           const data::RatingsDataset* test,
                                           absl::Span<const int32_t> item_party, int32_t party,
                                           int32_t num_parties);

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_PARTY_SPLIT_H_
