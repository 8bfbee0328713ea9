#include "common/algorithms/lib/fmf_party/party_held_scorer.h"

namespace fedmf::algorithms::fmf_party {

absl::StatusOr<Eigen::VectorXd> PartyHeldScorer::Scores(const data::RatingRow&) const {
  return absl::FailedPreconditionError(reason_);
}

absl::StatusOr<Eigen::VectorXd> PartyHeldScorer::PredictRatings(const data::RatingRow&,
                                                                double) const {
  return absl::FailedPreconditionError(reason_);
}

}  // namespace fedmf::algorithms::fmf_party
