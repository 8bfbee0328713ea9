#include "common/data/splits.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/data/portable_random.h"

namespace fedmf::data {
namespace {

// Rating indices (by-user order) chosen for test and for train.
struct Picks {
  std::vector<int64_t> train;
  std::vector<int64_t> test;

  TrainTest Apply(const RatingsDataset& data) const {
    return TrainTest{data.Subset(train), data.Subset(test)};
  }
};

// Moves `count` uniformly chosen entries of `row` to its front (partial Fisher-Yates).
void ChooseFront(std::vector<int64_t>& row, int64_t count, PortableRandom& rng) {
  const uint64_t size = row.size();
  for (uint64_t j = 0; j < static_cast<uint64_t>(count); ++j) {
    std::swap(row[j], row[j + rng.UniformInt(size - j)]);
  }
}

// Calls choose(user, row, row_indices) for every user; it returns how many of the (reordered)
// row_indices, taken from the front, go to test.
template <typename Choose>
Picks PerUser(const RatingsDataset& data, Choose choose) {
  Picks picks;
  std::vector<int64_t> row;
  int64_t offset = 0;
  for (int32_t u = 0; u < data.num_users(); ++u) {
    const int64_t size = data.user(u).size();
    row.resize(size);
    std::iota(row.begin(), row.end(), offset);
    offset += size;
    const int64_t to_test = choose(u, row);
    picks.test.insert(picks.test.end(), row.begin(), row.begin() + to_test);
    picks.train.insert(picks.train.end(), row.begin() + to_test, row.end());
  }
  return picks;
}

absl::Status CheckN(int n) {
  if (n < 1)
    return absl::InvalidArgumentError(absl::StrCat("leave-n-out: n = ", n, " must be >= 1"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TrainTest> SplitHoldoutPerUser(const RatingsDataset& data, double test_fraction,
                                              uint64_t seed) {
  if (!(test_fraction >= 0 && test_fraction <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("holdout: test fraction ", test_fraction, " must be in [0, 1]"));
  }
  PortableRandom rng(seed);
  return PerUser(data,
                 [&](int32_t, std::vector<int64_t>& row) {
                   const int64_t c = static_cast<int64_t>(row.size());
                   const int64_t rounded =
                       static_cast<int64_t>(std::floor(test_fraction * c + 0.5));
                   const int64_t t = std::max<int64_t>(0, std::min(rounded, c - 1));
                   ChooseFront(row, t, rng);
                   return t;
                 })
      .Apply(data);
}

absl::StatusOr<TrainTest> SubsampleTrainPerUser(TrainTest split, double train_fraction,
                                                uint64_t seed) {
  if (!(train_fraction > 0 && train_fraction <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("train subsample: fraction ", train_fraction, " must be in (0, 1]"));
  }
  PortableRandom rng(seed);
  // The dropped ratings go to the front (PerUser's "test" side), the kept ones stay.
  const Picks picks = PerUser(split.train, [&](int32_t, std::vector<int64_t>& row) {
    const int64_t c = static_cast<int64_t>(row.size());
    const int64_t kept = std::max<int64_t>(
        std::min<int64_t>(c, 1), static_cast<int64_t>(std::floor(train_fraction * c + 0.5)));
    ChooseFront(row, c - kept, rng);
    return c - kept;
  });
  return TrainTest{split.train.Subset(picks.train), std::move(split.test)};
}

absl::StatusOr<RatingsDataset> TrimPerUser(const RatingsDataset& data, int max_per_user,
                                           uint64_t seed) {
  if (max_per_user < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("trimming: max_per_user = ", max_per_user, " must be >= 1"));
  }
  PortableRandom rng(seed);
  // The kept ratings go to the front (PerUser's "test" side).
  return PerUser(data,
                 [&](int32_t, std::vector<int64_t>& row) -> int64_t {
                   const int64_t c = static_cast<int64_t>(row.size());
                   if (c <= max_per_user) return c;
                   ChooseFront(row, max_per_user, rng);
                   return max_per_user;
                 })
      .Apply(data)
      .test;
}

absl::StatusOr<TrainTest> SplitLeaveNOut(const RatingsDataset& data, int n, uint64_t seed) {
  if (absl::Status s = CheckN(n); !s.ok()) return s;
  PortableRandom rng(seed);
  return PerUser(data,
                 [&](int32_t, std::vector<int64_t>& row) -> int64_t {
                   if (static_cast<int64_t>(row.size()) <= n) return 0;
                   ChooseFront(row, n, rng);
                   return n;
                 })
      .Apply(data);
}

absl::StatusOr<TrainTest> SplitLeaveLatestNOut(const RatingsDataset& data, int n) {
  if (absl::Status s = CheckN(n); !s.ok()) return s;
  if (!data.has_timestamps()) {
    return absl::FailedPreconditionError("leave-latest-n-out: the dataset has no timestamps");
  }
  return PerUser(data,
                 [&](int32_t u, std::vector<int64_t>& row) -> int64_t {
                   if (static_cast<int64_t>(row.size()) <= n) return 0;
                   const RatingRow r = data.user(u);
                   const int64_t offset = row.front();
                   // Latest first; the row is sorted by item, so on equal timestamps a larger
                   // position means a larger item index.
                   std::sort(row.begin(), row.end(), [&](int64_t a, int64_t b) {
                     const int64_t ta = r.timestamps[a - offset];
                     const int64_t tb = r.timestamps[b - offset];
                     return ta != tb ? ta > tb : a > b;
                   });
                   return n;
                 })
      .Apply(data);
}

absl::StatusOr<std::vector<TrainTest>> SplitKFold(const RatingsDataset& data, int k,
                                                  uint64_t seed) {
  if (k < 2 || k > data.num_ratings()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "k-fold: k = ", k, " must be in [2, ", data.num_ratings(), "] (the number of ratings)"));
  }
  std::vector<int64_t> order(data.num_ratings());
  std::iota(order.begin(), order.end(), 0);
  PortableRandom rng(seed);
  rng.Shuffle(absl::MakeSpan(order));
  std::vector<int32_t> fold_of(order.size());
  for (size_t p = 0; p < order.size(); ++p) fold_of[order[p]] = static_cast<int32_t>(p % k);

  std::vector<TrainTest> folds;
  folds.reserve(k);
  Picks picks;
  for (int fold = 0; fold < k; ++fold) {
    picks.train.clear();
    picks.test.clear();
    for (size_t r = 0; r < fold_of.size(); ++r) {
      (fold_of[r] == fold ? picks.test : picks.train).push_back(static_cast<int64_t>(r));
    }
    folds.push_back(picks.Apply(data));
  }
  return folds;
}

}  // namespace fedmf::data
