// dp-popularity's client side (dp_popularity.h): validates the plan, turns one user's rated items
// (at most max_items, sampled uniformly) into its noisy indicator vector, and scores with the
// broadcast counts.
#ifndef FEDMF_COMMON_ALGORITHMS_DP_POPULARITY_CONTRIBUTOR_H_
#define FEDMF_COMMON_ALGORITHMS_DP_POPULARITY_CONTRIBUTOR_H_

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/popularity_scorer.h"
#include "common/dp/distributed_discrete_gaussian.h"
#include "fedmf/v1/algorithm.pb.h"
#include "fedmf/v1/dp_popularity.pb.h"

namespace fedmf::algorithms::dp_popularity {

class DpPopularityContributor final : public Contributor {
 public:
  // InvalidArgument for a plan this algorithm did not make: name, payload, config, counts, and the
  // plan's length, bits, combination and contributor range.
  static absl::StatusOr<std::unique_ptr<DpPopularityContributor>> Create(const v1::RoundPlan& plan);

  // Users only (the guarantee is per user): InvalidArgument for a party or a rated item outside
  // the catalogue. The state stays empty.
  absl::StatusOr<Contribution> Contribute(const LocalData& data, absl::string_view state,
                                          dp::Rng& rng) const override;
  const Scorer& scorer() const override { return scorer_; }

 private:
  DpPopularityContributor(v1::DpPopularityConfig config,
                          std::optional<dp::DistributedDiscreteGaussian> mechanism,
                          PopularityScorer scorer)
      : config_(std::move(config)), mechanism_(std::move(mechanism)), scorer_(std::move(scorer)) {}

  v1::DpPopularityConfig config_;
  std::optional<dp::DistributedDiscreteGaussian> mechanism_;  // none without noise
  PopularityScorer scorer_;
};

}  // namespace fedmf::algorithms::dp_popularity

#endif  // FEDMF_COMMON_ALGORITHMS_DP_POPULARITY_CONTRIBUTOR_H_
