// The scorer VFL-SGDMF's contributor offers the runtime: none that scores. The contract builds a
// scorer from the round plan alone (Contributor::scorer(), and federated_evaluation scores through
// it), but VFL-SGDMF's item embeddings V_Fk never leave their party (they live in its own state),
// so the plan's U scores no item. Every call answers FailedPrecondition saying so; the run's test
// error is measured by the parties themselves in its final round (contributor.h) instead.
#ifndef FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_SCORER_H_
#define FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_SCORER_H_

#include <cstdint>

#include "common/algorithms/scorer.h"

namespace fedmf::algorithms::vfl_sgdmf {

class PartyHeldItemsScorer final : public Scorer {
 public:
  explicit PartyHeldItemsScorer(int32_t num_items) : num_items_(num_items) {}

  int32_t num_items() const override { return num_items_; }
  absl::StatusOr<Eigen::VectorXd> Scores(const data::RatingRow& ratings) const override;
  bool predicts_ratings() const override { return false; }
  absl::StatusOr<Eigen::VectorXd> PredictRatings(const data::RatingRow& ratings,
                                                 double fallback_mean) const override;

 private:
  int32_t num_items_;
};

}  // namespace fedmf::algorithms::vfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_SCORER_H_
