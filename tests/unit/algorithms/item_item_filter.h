// A test model with no factors at all: an item-item filter F (m x m) scoring items by r_u F, the
// shape of the graph filters GF-CF, Turbo-CF and BSPM (PriviRec). It predicts no ratings.
#ifndef FEDMF_TESTS_UNIT_ALGORITHMS_ITEM_ITEM_FILTER_H_
#define FEDMF_TESTS_UNIT_ALGORITHMS_ITEM_ITEM_FILTER_H_

#include <cstdint>
#include <utility>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/scorer.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::test_util {

class ItemItemFilter final : public algorithms::Scorer {
 public:
  explicit ItemItemFilter(Eigen::MatrixXd filter) : filter_(std::move(filter)) {}

  int32_t num_items() const override { return static_cast<int32_t>(filter_.rows()); }
  absl::StatusOr<Eigen::VectorXd> Scores(const data::RatingRow& ratings) const override {
    Eigen::VectorXd scores = Eigen::VectorXd::Zero(filter_.cols());
    for (int64_t k = 0; k < ratings.size(); ++k) {
      const int32_t item = ratings.indices[k];
      if (item < 0 || item >= num_items()) {
        return absl::InvalidArgumentError(absl::StrCat("item ", item, " outside the filter"));
      }
      scores += static_cast<double>(ratings.ratings[k]) * filter_.row(item).transpose();
    }
    return scores;
  }
  bool predicts_ratings() const override { return false; }
  absl::StatusOr<Eigen::VectorXd> PredictRatings(const data::RatingRow&, double) const override {
    return absl::FailedPreconditionError("an item-item filter predicts no ratings");
  }

 private:
  Eigen::MatrixXd filter_;
};

// Five items; the user rated item 0 with 1 and item 1 with 2, so the scores r_u F are
// 1 * (0, 0, 3, 1, 0) + 2 * (0, 0, 0, 1, 2) = (0, 0, 3, 3, 4).
inline ItemItemFilter FiveItemFilter() {
  Eigen::MatrixXd f = Eigen::MatrixXd::Identity(5, 5);
  f.row(0) << 0, 0, 3, 1, 0;
  f.row(1) << 0, 0, 0, 1, 2;
  return ItemItemFilter(f);
}

}  // namespace fedmf::test_util

#endif  // FEDMF_TESTS_UNIT_ALGORITHMS_ITEM_ITEM_FILTER_H_
