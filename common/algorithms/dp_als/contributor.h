// DP-ALS's client side: from the round's broadcast (fedmf.v1.DpAlsModel), a user solves its own
// factor from its ratings clamped to [0, R] and the public item factors (DPMF-RP eq. 5, the
// objective the item side fits; the factor stays on the device, returned only as
// Contribution::user_factor), then sends its
// weighted statistics (statistics.h) through the round's privatized encoding (codec.h). The
// model scores with FactorScorer (V, lambda, kappa): ranking by V u, ratings by
// mf::RatingPredictor.
#ifndef FEDMF_COMMON_ALGORITHMS_DP_ALS_CONTRIBUTOR_H_
#define FEDMF_COMMON_ALGORITHMS_DP_ALS_CONTRIBUTOR_H_

#include <memory>

#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/dp_als/codec.h"
#include "common/algorithms/factor_scorer.h"
#include "fedmf/v1/algorithm.pb.h"
#include "fedmf/v1/dp_als.pb.h"

namespace fedmf::algorithms::dp_als {

class DpAlsContributor final : public Contributor {
 public:
  // InvalidArgument for a plan this algorithm did not make: name, payload, config, V's shape and
  // finiteness, and the plan's length, bits, combination and contributor range.
  static absl::StatusOr<std::unique_ptr<DpAlsContributor>> Create(const v1::RoundPlan& plan);

  // Users only (InvalidArgument for a party); FailedPrecondition once the T rounds are applied.
  // Stateless: the factor is re-solved from the broadcast every round.
  absl::StatusOr<Contribution> Contribute(const LocalData& data, absl::string_view state,
                                          dp::Rng& rng) const override;
  const FactorScorer& scorer() const override { return scorer_; }

 private:
  DpAlsContributor(v1::DpAlsConfig config, int64_t round, mf::FactorMatrix v,
                   StatisticsCodec codec);

  v1::DpAlsConfig config_;
  int64_t round_;
  FactorScorer scorer_;
  StatisticsCodec codec_;
};

}  // namespace fedmf::algorithms::dp_als

#endif  // FEDMF_COMMON_ALGORITHMS_DP_ALS_CONTRIBUTOR_H_
