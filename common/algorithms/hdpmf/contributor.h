// The user side of HDPMF (hdpmf.h): from the round's V, the user's ratings and their own state
// (u_i and the private weight beta_i; the first time, u_i^0 from the public seed and beta_i from
// the privacy specification; PDPMF: its one sample of its ratings), steps u_i on the new V
// (Algorithm 1, line 12, after the server's step of the previous round), then returns the m x K
// item gradient at u_i (paper mode: on stretched ratings, u_i projected to the unit ball as Theorem
// 2 assumes; sound mode: clipped to L1 norm C and scaled by beta_i) plus its share of the round's
// Laplace noise, in fixed point for the secure sum (with summed noise: the rated items' rows only,
// without noise; hdpmf.h). Users only: the guarantee is per user or per rating, not per silo.
#ifndef FEDMF_COMMON_ALGORITHMS_HDPMF_CONTRIBUTOR_H_
#define FEDMF_COMMON_ALGORITHMS_HDPMF_CONTRIBUTOR_H_

#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/contribution_vector.h"
#include "common/algorithms/hdpmf/hdpmf.h"
#include "common/algorithms/hdpmf/scorer.h"
#include "fedmf/v1/algorithm.pb.h"
#include "fedmf/v1/hdpmf.pb.h"

namespace fedmf::algorithms::hdpmf {

class HdpmfContributor final : public Contributor {
 public:
  // Validates the plan (it comes from the network): name, payload, config, V's shape and values,
  // and the plan's length, bits, client_bits, combination and contributor counts.
  static absl::StatusOr<std::unique_ptr<HdpmfContributor>> Create(const v1::RoundPlan& plan);

  // InvalidArgument for a party, a corrupt state, or a rating outside the model or its range.
  absl::StatusOr<Contribution> Contribute(const LocalData& data, absl::string_view state,
                                          dp::Rng& rng) const override;
  // The round's cost to this user: beta_i eps / T (HDPMF), the uniform cost (DPMF); none (MF).
  absl::StatusOr<std::optional<dp::LedgerEntry>> ParticipantCost(
      const LocalData& data, absl::string_view state) const override;
  const HdpmfScorer& scorer() const override { return scorer_; }
  // config.simulation_summed_noise: the rated items' rows without the user's noise share.
  bool uploads_without_noise() const override {
    return broadcast_.config().simulation_summed_noise();
  }
  // With score_with_trained_factor, the paper's prediction for this user: its own u_i (stepped on
  // this V as its next contribution would) rather than the scorer's refit; null otherwise.
  // InvalidArgument for a party, a corrupt state or a bad rating.
  absl::StatusOr<std::unique_ptr<Scorer>> PersonalScorer(const LocalData& data,
                                                         absl::string_view state) const override;

  // The user's state before this round's contribution: decoded, or the initial one when empty.
  absl::StatusOr<v1::HdpmfUserState> CurrentState(const LocalData& data,
                                                  absl::string_view state) const;
  const RoundCodec& codec() const { return codec_; }

 private:
  HdpmfContributor(v1::HdpmfBroadcast broadcast, RoundCodec codec, std::vector<double> user_weights,
                   std::vector<double> item_weights, double pdpmf_threshold, HdpmfScorer scorer)
      : broadcast_(std::move(broadcast)),
        codec_(codec),
        user_weights_(std::move(user_weights)),
        item_weights_(std::move(item_weights)),
        pdpmf_threshold_(pdpmf_threshold),
        scorer_(std::move(scorer)) {}

  // A user as of this round: the ratings it trains on (all, or PDPMF's one sample, drawn from
  // the state's seed into kept_*, which `train` views), their targets, and u_i after the step on
  // this round's V, bounded (BoundUserFactor).
  struct UserRound {
    v1::HdpmfUserState state;
    std::vector<int32_t> kept_items;
    std::vector<float> kept_ratings;
    data::RatingRow train;
    Eigen::VectorXd targets;
    Eigen::VectorXd user_factor;
  };
  // Fills `user` (in place: `train` may view its own vectors) from the user's current state.
  void StepUser(const LocalData& data, v1::HdpmfUserState state, UserRound& user) const;
  // The encoded m x K gradient whose nonzero rows are `gradient`'s, of the `rated` items
  // (RatedItemGradient's layout): dense with the user's noise share, or, with summed noise,
  // those rows alone (sparse).
  absl::StatusOr<ContributionVector> Upload(const data::RatingRow& rated,
                                            const Eigen::MatrixXd& gradient, dp::Rng& rng) const;

  v1::HdpmfBroadcast broadcast_;
  RoundCodec codec_;
  std::vector<double> user_weights_;  // beta of every participant id - 1, for an empty state
  std::vector<double> item_weights_;  // gamma
  double pdpmf_threshold_;            // PDPMF's t (PdpmfThreshold), 0 otherwise
  HdpmfScorer scorer_;
};

// A participant's state: "" (none yet) or an HdpmfUserState with `rank` finite factors and a
// weight in (0, 1].
absl::StatusOr<std::optional<v1::HdpmfUserState>> DecodeUserState(absl::string_view state,
                                                                  int rank);

}  // namespace fedmf::algorithms::hdpmf

#endif  // FEDMF_COMMON_ALGORITHMS_HDPMF_CONTRIBUTOR_H_
