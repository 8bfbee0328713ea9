// The user side of lfl-sgdmf (lfl_sgdmf.h). Phase 0: the user's factor u_i from its state, or
// stage 1 the first time (u_i^0 from the public seed, then pretrain_epochs passes of projected SGD
// on u_i alone against the broadcast V); one rating sampled uniformly; the upload is its gradient
// with respect to V plus xi ~ N(0, v_1 I), xi drawn from a fresh secret key kept in the state.
// Phase 1 (two-phase modes): -xi + xi', xi regenerated from that key, xi' ~ N(0, v_2 I); a user
// without the key of this round (it lost its state, or never sent phase 0) cannot contribute.
// u_i never leaves the device. Scoring: FactorScorer on V (client-local user factor). Phase 1's
// plan carries no V (carries_model() is false): the users keep the model phase 0 delivered.
#ifndef FEDMF_COMMON_ALGORITHMS_LFL_SGDMF_CONTRIBUTOR_H_
#define FEDMF_COMMON_ALGORITHMS_LFL_SGDMF_CONTRIBUTOR_H_

#include <memory>
#include <optional>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/factor_scorer.h"
#include "fedmf/v1/lfl_sgdmf.pb.h"

namespace fedmf::algorithms::lfl_sgdmf {

class LflSgdmfContributor final : public Contributor {
 public:
  // Validates the plan (it comes from the network): name, payload, config, V (phase 0; phase 1
  // must carry none), phase, length, bits, combination and thresholds.
  static absl::StatusOr<std::unique_ptr<LflSgdmfContributor>> Create(const v1::RoundPlan& plan);

  // InvalidArgument for a party, a corrupt state, a rated item outside the model or a rating
  // outside [0, R]; FailedPrecondition in phase 1 without this round's noise key.
  absl::StatusOr<Contribution> Contribute(const LocalData& data, absl::string_view state,
                                          dp::Rng& rng) const override;
  const FactorScorer& scorer() const override { return scorer_; }  // no items in phase 1
  bool carries_model() const override { return broadcast_.phase() == 0; }
  // config.simulation_summed_noise: phase 0 uploads the gradient alone, phase 1 nothing.
  bool uploads_without_noise() const override {
    return broadcast_.config().simulation_summed_noise();
  }

 private:
  LflSgdmfContributor(v1::LflSgdmfBroadcast broadcast, mf::FactorMatrix item_factors);

  absl::StatusOr<Contribution> GradientUpload(const LocalData& data,
                                              std::optional<v1::LflSgdmfUserState> state,
                                              dp::Rng& rng) const;
  absl::StatusOr<Contribution> NoiseReplacement(std::optional<v1::LflSgdmfUserState> state,
                                                dp::Rng& rng) const;

  v1::LflSgdmfBroadcast broadcast_;
  FactorScorer scorer_;
};

// A participant's state: "" (none yet) or a fedmf.v1.LflSgdmfUserState of `rank` finite values
// and a noise key of 32 bytes or none.
absl::StatusOr<std::optional<v1::LflSgdmfUserState>> DecodeUserState(absl::string_view state,
                                                                     int rank);

// Stage 1: `epochs` passes over the user's ratings, u <- Pi(u + 2 rate (r - <u, v_j>) v_j). V is
// the contributor's own (row-major, as a FactorScorer keeps it): a user costs its ratings only.
Eigen::VectorXd PretrainUserFactor(const mf::FactorMatrix& item_factors,
                                   Eigen::VectorXd user_factor, const data::RatingRow& ratings,
                                   int epochs, double rate, double rating_max);

}  // namespace fedmf::algorithms::lfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_LFL_SGDMF_CONTRIBUTOR_H_
