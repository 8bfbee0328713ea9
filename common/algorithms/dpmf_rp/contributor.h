// The client side of one DPMF-RP round (Algorithm 2, the loop body for user i): from the round's
// broadcast, V (= S^T B for the compressed item model) and V^T V once; per user, u_i by eq. 5, clip
// (eq. 17), the clipped-error gradient rows for all m items (eq. 16; local_update.h), X = S F = (S
// w) u^T, then the round's privatized encoding (codec.h). Built once per round and shared by every
// user of a process.
#ifndef FEDMF_COMMON_ALGORITHMS_DPMF_RP_CONTRIBUTOR_H_
#define FEDMF_COMMON_ALGORITHMS_DPMF_RP_CONTRIBUTOR_H_

#include <memory>
#include <optional>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/dpmf_rp/codec.h"
#include "common/algorithms/dpmf_rp/config.h"
#include "common/algorithms/dpmf_rp/local_update.h"
#include "common/algorithms/factor_scorer.h"
#include "common/dp/sparse_projection.h"
#include "fedmf/v1/algorithm.pb.h"

namespace fedmf::algorithms::dpmf_rp {

class DpmfRpContributor final : public Contributor {
 public:
  // Validates everything in `plan` (it comes from the network): algorithm name, payload, config,
  // B's shape and finiteness, and that length, bits and combination agree with the payload.
  static absl::StatusOr<std::unique_ptr<DpmfRpContributor>> Create(const v1::RoundPlan& plan);

  // A user participant only (a party gets InvalidArgument); stateless: `state` is ignored and
  // none is returned (the factor of eq. 5 is recomputed from the broadcast every round).
  absl::StatusOr<Contribution> Contribute(const LocalData& data, absl::string_view state,
                                          dp::Rng& rng) const override;
  // With simulation_summed_noise (the Gaussian mechanism's summed noise), the users' X = (S w)
  // u^T added as rank-one updates of one p x k sum in real units and encoded once (codec.h
  // AddToSum); null otherwise.
  std::unique_ptr<ContributionSum> StartSum() const override;
  // config.simulation_summed_noise: the users encode X without noise (codec.h).
  bool uploads_without_noise() const override { return config_.simulation_summed_noise; }
  // V, with users' factors from eq. 5 at the ranking kappa (config.ranking_kappa, else kappa).
  const FactorScorer& scorer() const override { return scorer_; }

  // X = S F (p x k) before privatization, and the local quantities behind it; for tests and
  // diagnostics (Contribute encodes exactly this X).
  absl::StatusOr<Eigen::MatrixXd> ProjectedGradient(const data::RatingRow& ratings,
                                                    LocalGradient* local = nullptr) const;

  const DpmfRpConfig& config() const { return config_; }
  const ContributionCodec& codec() const { return codec_; }

 private:
  DpmfRpContributor(DpmfRpConfig config, std::optional<dp::SparseProjection> projection,
                    mf::FactorMatrix item_factors, ContributionCodec codec);

  // X's left factor S w (p entries), with the local quantities behind it: X = (S w) u^T.
  absl::StatusOr<Eigen::VectorXd> ProjectedWeights(const data::RatingRow& ratings,
                                                   LocalGradient& local) const;
  // InvalidArgument for a silo party (contributions are per user).
  static absl::Status CheckUser(const LocalData& data);
  // Contribute with the user's X clipped and added to `sum` (p x k, real units) instead.
  absl::StatusOr<Contribution> AddToSum(const LocalData& data, Eigen::MatrixXd& sum) const;
  friend class DpmfRpSum;

  DpmfRpConfig config_;
  std::optional<dp::SparseProjection> projection_;  // this round's S; empty without projection
  FactorScorer scorer_;                             // V and V^T V
  ContributionCodec codec_;
};

}  // namespace fedmf::algorithms::dpmf_rp

#endif  // FEDMF_COMMON_ALGORITHMS_DPMF_RP_CONTRIBUTOR_H_
