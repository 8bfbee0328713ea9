// The user side of ldp-gd / ldp-gd-dr (ldp_gd.h): from the round's V, the user's ratings and
// their own factor u_i (the participant's state; V_0's public initialization the first time),
// steps u_i on the new V (the paper's line "u_i = u_i - gamma_t ..." after the server's step of
// the previous round), then reports one coordinate of their gradient by binary randomized
// response. Users only: a silo party cannot report for its users as one (the guarantee is per
// user). Scoring: FactorScorer on V (the user factor from the user's ratings, client-local).
#ifndef FEDMF_COMMON_ALGORITHMS_LDP_GD_CONTRIBUTOR_H_
#define FEDMF_COMMON_ALGORITHMS_LDP_GD_CONTRIBUTOR_H_

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/factor_scorer.h"
#include "common/dp/gaussian_projection.h"
#include "fedmf/v1/algorithm.pb.h"
#include "fedmf/v1/ldp_gd.pb.h"

namespace fedmf::algorithms::ldp_gd {

class LdpGdContributor final : public Contributor {
 public:
  // Validates the plan (it comes from the network): name, payload, config, V's shape and values,
  // and the plan's length, bits and combination.
  static absl::StatusOr<std::unique_ptr<LdpGdContributor>> Create(const v1::RoundPlan& plan);

  // InvalidArgument for a party, a corrupt state, a rated item outside the model or a non-finite
  // rating.
  absl::StatusOr<Contribution> Contribute(const LocalData& data, absl::string_view state,
                                          dp::Rng& rng) const override;
  // Pure eps/k per round, unit user.
  absl::StatusOr<std::optional<dp::LedgerEntry>> ParticipantCost(
      const LocalData& data, absl::string_view state) const override;
  const FactorScorer& scorer() const override { return scorer_; }

 private:
  LdpGdContributor(v1::LdpGdBroadcast broadcast,
                   std::shared_ptr<const dp::GaussianProjection> projection,
                   mf::FactorMatrix item_factors);

  // The user's factor after this round's step: from `state`, or u_i^0 when it is empty.
  absl::StatusOr<Eigen::VectorXd> SteppedUserFactor(const LocalData& data,
                                                    absl::string_view state) const;

  v1::LdpGdBroadcast broadcast_;
  std::shared_ptr<const dp::GaussianProjection> projection_;  // null: none
  FactorScorer scorer_;
};

// A participant's state: "" (none yet) or a fedmf.v1.LdpGdUserState of `rank` finite values.
absl::StatusOr<std::optional<v1::LdpGdUserState>> DecodeUserState(absl::string_view state,
                                                                  int rank);

}  // namespace fedmf::algorithms::ldp_gd

#endif  // FEDMF_COMMON_ALGORITHMS_LDP_GD_CONTRIBUTOR_H_
