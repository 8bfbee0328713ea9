// VFL-SGDMF's party side (Fig. 3(b) of the FMF privacy paper). In sync round t < T, party k
// (every user, its block F_k of items) runs T' noisy steps of (U^(k), V_Fk) from the broadcast U
// and its own V_Fk (local_stage.h) and uploads (m_k / m) U^(k) in fixed point (codec.h): the sum
// over the parties is the paper's average U = sum_k (m_k / m) U^(k). In the final round T it runs
// kappa noisy steps of V_Fk alone against the final U and uploads the squared error of U V_Fk^T on
// its own test ratings and their number, and the same on its training ratings
// (lib/fmf_party/party_error.h): the run's test and train MSE are ratios of the sums (released as
// federated evaluation releases its metrics: without noise). V_Fk never
// leaves the party: it is the participant state the runtime persists on the party's device
// (party_state.h), and the plan's U scores nothing (lib/fmf_party/party_held_scorer.h). Parties
// only; per-user privacy trims each party's ratings to theta per user. Local-only
// (config.local_only): the one round runs the T T' steps of the party's own U^(k) (from the
// broadcast initial U) and V_Fk, then the final stage on them; U^(k) never leaves.
#ifndef FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_CONTRIBUTOR_H_
#define FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_CONTRIBUTOR_H_

#include <memory>
#include <optional>
#include <utility>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/lib/fmf_party/party_held_scorer.h"
#include "fedmf/v1/algorithm.pb.h"
#include "fedmf/v1/vfl_sgdmf.pb.h"

namespace fedmf::algorithms::vfl_sgdmf {

class VflSgdmfContributor final : public Contributor {
 public:
  // Validates the plan (it comes from the network): name, payload, config, its shape for the
  // round (config.h) and U (n x p, finite).
  static absl::StatusOr<std::unique_ptr<VflSgdmfContributor>> Create(const v1::RoundPlan& plan);

  // InvalidArgument for a user participant, a shard without every user or with items outside
  // [0, m), a participant id above s, a corrupt state or ratings outside [0, R]; FailedPrecondition
  // for a state of another round (party_state.h) or a plan after the run.
  absl::StatusOr<Contribution> Contribute(const LocalData& data, absl::string_view state,
                                          dp::Rng& rng) const override;
  // The party's own noisy steps this round (privacy.h RoundEntry with one party).
  absl::StatusOr<std::optional<dp::LedgerEntry>> ParticipantCost(
      const LocalData& data, absl::string_view state) const override;
  const Scorer& scorer() const override { return scorer_; }

 private:
  VflSgdmfContributor(v1::VflSgdmfBroadcast broadcast, Eigen::MatrixXd users)
      : broadcast_(std::move(broadcast)),
        users_(std::move(users)),
        scorer_(broadcast_.config().num_items(),
                "vfl-sgdmf: item embeddings stay with their parties, the plan's user embeddings "
                "score no item (the run's test error comes from its final round)") {}

  v1::VflSgdmfBroadcast broadcast_;
  Eigen::MatrixXd users_;  // U, n x p
  fmf_party::PartyHeldScorer scorer_;
};

}  // namespace fedmf::algorithms::vfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_VFL_SGDMF_CONTRIBUTOR_H_
