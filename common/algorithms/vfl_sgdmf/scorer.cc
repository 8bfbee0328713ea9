#include "common/algorithms/vfl_sgdmf/scorer.h"

namespace fedmf::algorithms::vfl_sgdmf {
namespace {

absl::Status Refuse() {
  return absl::FailedPreconditionError(
      "vfl-sgdmf: item embeddings stay with their parties, the plan's user embeddings score no "
      "item (the run's test error comes from its final round)");
}

}  // namespace

absl::StatusOr<Eigen::VectorXd> PartyHeldItemsScorer::Scores(const data::RatingRow&) const {
  return Refuse();
}

absl::StatusOr<Eigen::VectorXd> PartyHeldItemsScorer::PredictRatings(const data::RatingRow&,
                                                                     double) const {
  return Refuse();
}

}  // namespace fedmf::algorithms::vfl_sgdmf
