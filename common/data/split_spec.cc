#include "common/data/split_spec.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace fedmf::data {
namespace {

absl::StatusOr<std::vector<TrainTest>> One(absl::StatusOr<TrainTest> split) {
  if (!split.ok()) return split.status();
  std::vector<TrainTest> out;
  out.push_back(*std::move(split));
  return out;
}

absl::StatusOr<TrainTest> SplitPredefined(const RatingsDataset& data) {
  const absl::Span<const int64_t> test = data.predefined_test();
  if (test.empty()) {
    return absl::InvalidArgumentError(
        "split 'predefined': the data came without a test part (give one with "
        "--data=user-items:TRAIN?test=TEST)");
  }
  std::vector<int64_t> train;
  train.reserve(static_cast<size_t>(data.num_ratings()) - test.size());
  size_t next = 0;  // `test` is ascending
  for (int64_t k = 0; k < data.num_ratings(); ++k) {
    if (next < test.size() && test[next] == k) {
      ++next;
    } else {
      train.push_back(k);
    }
  }
  return TrainTest{data.Subset(train), data.Subset(test)};
}

}  // namespace

absl::StatusOr<std::vector<TrainTest>> MakeSplits(const RatingsDataset& data,
                                                  absl::string_view spec, uint64_t seed) {
  if (const size_t plus = spec.find("+train:"); plus != spec.npos) {
    const absl::string_view value = spec.substr(plus + 7);
    double fraction = 0;
    if (!absl::SimpleAtod(value, &fraction)) {
      return absl::InvalidArgumentError(
          absl::StrCat("split '", spec, "': '", value, "' is not a training fraction"));
    }
    absl::StatusOr<std::vector<TrainTest>> splits = MakeSplits(data, spec.substr(0, plus), seed);
    if (!splits.ok()) return splits.status();
    for (TrainTest& split : *splits) {
      // Its own stream: the subsample is independent of the test choice.
      absl::StatusOr<TrainTest> sub =
          SubsampleTrainPerUser(std::move(split), fraction, seed ^ 0x5eed5a3b1e0f7a11ULL);
      if (!sub.ok()) return sub.status();
      split = *std::move(sub);
    }
    return splits;
  }
  const size_t colon = spec.find(':');
  const absl::string_view kind = spec.substr(0, colon);
  const absl::string_view value = colon == spec.npos ? "" : spec.substr(colon + 1);
  const auto bad_value = [&](absl::string_view expected) {
    return absl::InvalidArgumentError(
        absl::StrCat("split '", spec, "': '", value, "' is not ", expected));
  };
  int count = 0;
  double fraction = 0;
  if (kind == "kfold") {
    if (!absl::SimpleAtoi(value, &count)) return bad_value("a fold count");
    return SplitKFold(data, count, seed);
  }
  if (kind == "fold") {
    int fold = 0;
    const size_t slash = value.find('/');
    if (slash == value.npos || !absl::SimpleAtoi(value.substr(0, slash), &fold) ||
        !absl::SimpleAtoi(value.substr(slash + 1), &count)) {
      return bad_value("I/K (fold I of K)");
    }
    if (fold < 1 || fold > count) return bad_value("I/K with I in [1, K]");
    absl::StatusOr<std::vector<TrainTest>> folds = SplitKFold(data, count, seed);
    if (!folds.ok()) return folds.status();
    std::vector<TrainTest> one;
    one.push_back(std::move((*folds)[fold - 1]));
    return one;
  }
  if (kind == "holdout") {
    if (!absl::SimpleAtod(value, &fraction)) return bad_value("a fraction");
    return One(SplitHoldoutPerUser(data, fraction, seed));
  }
  if (kind == "leave") {
    if (!absl::SimpleAtoi(value, &count)) return bad_value("a rating count");
    return One(SplitLeaveNOut(data, count, seed));
  }
  if (kind == "predefined") {
    if (colon != spec.npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("split '", spec, "': 'predefined' takes no value"));
    }
    return One(SplitPredefined(data));
  }
  if (kind == "leave-latest") {
    if (!absl::SimpleAtoi(value, &count)) return bad_value("a rating count");
    return One(SplitLeaveLatestNOut(data, count));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("split '", spec,
                   "': expected kfold:K, fold:I/K, holdout:FRACTION, leave:N, leave-latest:N or "
                   "predefined"));
}

}  // namespace fedmf::data
