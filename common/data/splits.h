// Train/test splits of a RatingsDataset. Both sides are Subset()s of it: same users, items and id
// maps, so an index means the same user or item in train and test. Each split is a deterministic
// function of (dataset, parameters, seed), identical on every machine (PortableRandom).
#ifndef FEDMF_COMMON_DATA_SPLITS_H_
#define FEDMF_COMMON_DATA_SPLITS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::data {

struct TrainTest {
  RatingsDataset train;
  RatingsDataset test;
};

// Per user with c ratings, t = min(floor(test_fraction * c + 0.5), c - 1) of them, chosen at
// random, go to test: every user with ratings keeps at least one in train (a user with a single
// rating has none in test). test_fraction must be in [0, 1].
absl::StatusOr<TrainTest> SplitHoldoutPerUser(const RatingsDataset& data, double test_fraction,
                                              uint64_t seed);

// Per user with more than n ratings, n chosen at random go to test; users with at most n ratings
// stay entirely in train. n >= 1.
absl::StatusOr<TrainTest> SplitLeaveNOut(const RatingsDataset& data, int n, uint64_t seed);

// As SplitLeaveNOut, but the n latest ratings by timestamp go to test (of equal timestamps the
// larger item index counts as later). FailedPrecondition if the dataset has no timestamps.
absl::StatusOr<TrainTest> SplitLeaveLatestNOut(const RatingsDataset& data, int n);

// `split` with each user's training ratings subsampled (the paper's sparsity experiments): a user
// with c > 0 of them keeps max(1, floor(train_fraction * c + 0.5)), chosen at random; the test
// side is unchanged. train_fraction must be in (0, 1].
absl::StatusOr<TrainTest> SubsampleTrainPerUser(TrainTest split, double train_fraction,
                                                uint64_t seed);

// Random trimming (Liu, Wang, Smola 2015; the FMF privacy paper's per-user sensitivity): a user
// with more than max_per_user ratings keeps max_per_user of them, chosen at random; the others
// keep all theirs. Each user's choice depends on their own ratings only. max_per_user >= 1.
absl::StatusOr<RatingsDataset> TrimPerUser(const RatingsDataset& data, int max_per_user,
                                           uint64_t seed);

// k folds over all ratings: a seeded random permutation puts the rating at position p in fold
// p mod k, so fold sizes differ by at most one and every rating is in exactly one test set.
// Result j has fold j as test and the other k - 1 folds as train (a user or item may then have no
// training rating). 2 <= k <= num_ratings.
absl::StatusOr<std::vector<TrainTest>> SplitKFold(const RatingsDataset& data, int k, uint64_t seed);

}  // namespace fedmf::data

#endif  // FEDMF_COMMON_DATA_SPLITS_H_
