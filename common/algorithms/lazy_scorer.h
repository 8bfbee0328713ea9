// A Scorer built on first use: the model a plan carries may be costly to turn into a scorer (a
// graph filter from broadcast sums or a basis), and a contributor that only contributes never
// needs it. Thread-safe: the first caller builds, the others wait; a failed build is kept and
// returned to every caller.
#ifndef FEDMF_COMMON_ALGORITHMS_LAZY_SCORER_H_
#define FEDMF_COMMON_ALGORITHMS_LAZY_SCORER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/algorithms/scorer.h"

namespace fedmf::algorithms {

class LazyScorer final : public Scorer {
 public:
  using Build = std::function<absl::StatusOr<std::unique_ptr<Scorer>>()>;
  // `build` must return a scorer of `num_items` items that predicts no ratings.
  LazyScorer(int32_t num_items, Build build) : num_items_(num_items), build_(std::move(build)) {}

  int32_t num_items() const override { return num_items_; }
  absl::StatusOr<Eigen::VectorXd> Scores(const data::RatingRow& ratings) const override;
  absl::StatusOr<Eigen::MatrixXd> ScoresBatch(
      absl::Span<const data::RatingRow> users) const override;
  bool predicts_ratings() const override { return false; }
  // Unimplemented: the models built here rank items only.
  absl::StatusOr<Eigen::VectorXd> PredictRatings(const data::RatingRow& ratings,
                                                 double fallback_mean) const override;

 private:
  absl::StatusOr<const Scorer*> Built() const;

  int32_t num_items_;
  Build build_;
  mutable std::once_flag once_;
  mutable absl::StatusOr<std::unique_ptr<Scorer>> built_;
};

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_LAZY_SCORER_H_
