// The scorer a cross-silo FMF party's contributor offers the runtime: none that scores. The
// contract builds a scorer from the round plan alone (Contributor::scorer(), and
// federated_evaluation scores through it), but half of the model never leaves the parties (VFL:
// the item embeddings V_Fk; HFL: the user embeddings U_k), so the plan's half scores nothing.
// Every call answers FailedPrecondition with the algorithm's reason; such runs measure their test
// error in their final round instead, at the parties.
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_PARTY_HELD_SCORER_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_PARTY_HELD_SCORER_H_

#include <cstdint>
#include <string>
#include <utility>

#include "common/algorithms/scorer.h"

namespace fedmf::algorithms::fmf_party {

class PartyHeldScorer final : public Scorer {
 public:
  // `reason`: why the plan scores nothing, e.g. "vfl-sgdmf: item embeddings stay with ...".
  PartyHeldScorer(int32_t num_items, std::string reason)
      : num_items_(num_items), reason_(std::move(reason)) {}

  int32_t num_items() const override { return num_items_; }
  absl::StatusOr<Eigen::VectorXd> Scores(const data::RatingRow& ratings) const override;
  bool predicts_ratings() const override { return false; }
  absl::StatusOr<Eigen::VectorXd> PredictRatings(const data::RatingRow& ratings,
                                                 double fallback_mean) const override;

 private:
  int32_t num_items_;
  std::string reason_;
};

}  // namespace fedmf::algorithms::fmf_party

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_PARTY_HELD_SCORER_H_
