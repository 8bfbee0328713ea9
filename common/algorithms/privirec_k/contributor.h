// PriviRec-k's client side (privirec_k.h): validates the plan, turns one user's items into its
// sparse degree or power-step contribution (with the DP option a dense noisy one for a noise party,
// a sparse rounded one for a user outside the noise committee: noise.h), and
// scores with GF-CF built from the broadcast basis (on the first score: lazy_scorer.h).
#ifndef FEDMF_COMMON_ALGORITHMS_PRIVIREC_K_CONTRIBUTOR_H_
#define FEDMF_COMMON_ALGORITHMS_PRIVIREC_K_CONTRIBUTOR_H_

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/lazy_scorer.h"
#include "common/dp/noise_committee.h"
#include "fedmf/v1/privirec_k.pb.h"

namespace fedmf::algorithms::privirec_k {

class PriviRecKContributor final : public Contributor {
 public:
  // InvalidArgument for a plan this algorithm did not make: name, payload, config, model, and the
  // plan's phase, length, bits, combination and contributor range.
  static absl::StatusOr<std::unique_ptr<PriviRecKContributor>> Create(const v1::RoundPlan& plan);

  // Users only: InvalidArgument for a party, an item outside the catalogue or rated twice, or an
  // unknown participant id (0) in a run with a noise committee; FailedPrecondition once every sum
  // is applied. The state stays empty.
  absl::StatusOr<Contribution> Contribute(const LocalData& data, absl::string_view state,
                                          dp::Rng& rng) const override;
  const Scorer& scorer() const override { return scorer_; }

 private:
  PriviRecKContributor(std::shared_ptr<const v1::PriviRecKModel> model,
                       std::optional<dp::NoiseCommittee> committee);

  std::shared_ptr<const v1::PriviRecKModel> model_;
  // The users that add noise, derived from the plan's config; none: every user.
  std::optional<dp::NoiseCommittee> committee_;
  // Before every sum is applied, the item degrees known so far (popularity; zeros before phase
  // 0); after, GF-CF from the basis.
  LazyScorer scorer_;
};

}  // namespace fedmf::algorithms::privirec_k

#endif  // FEDMF_COMMON_ALGORITHMS_PRIVIREC_K_CONTRIBUTOR_H_
