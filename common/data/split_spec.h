// The split syntax shared by every binary's --split flag: "kfold:K", "fold:I/K" (fold I in [1, K]
// of kfold:K alone: one run of a cross-validation, e.g. a federated run per fold),
// "holdout:FRACTION" (per user), "leave:N" (N random ratings per user), "leave-latest:N" (N
// latest per user) or "predefined" (the split the data came with: RatingsDataset::predefined_test()
// is the test part, every other rating the train part; e.g. user-items:train.txt?test=test.txt),
// optionally followed by "+train:F": each user's training ratings then subsampled to a fraction F
// (SubsampleTrainPerUser), e.g. "leave:1+train:0.2". Always returns a list of train/test pairs (one
// for all but kfold).
#ifndef FEDMF_COMMON_DATA_SPLIT_SPEC_H_
#define FEDMF_COMMON_DATA_SPLIT_SPEC_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/data/ratings_dataset.h"
#include "common/data/splits.h"

namespace fedmf::data {

absl::StatusOr<std::vector<TrainTest>> MakeSplits(const RatingsDataset& data,
                                                  absl::string_view spec, uint64_t seed);

}  // namespace fedmf::data

#endif  // FEDMF_COMMON_DATA_SPLIT_SPEC_H_
