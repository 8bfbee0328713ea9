// HFL-SGDMF's party side (Fig. 3(c) of the FMF privacy paper) on the runtime. Party k holds a
// block of users (its n_k users' ratings on every item) and keeps their embeddings U_k on its
// device: the participant state the runtime persists (lib/fmf_party/party_round.h), never sent.
// Round 0 first fits U_k to the public initial V without noise (stage 1, pretrain-u only). In sync
// round t < T it runs T' noisy V-only steps from the broadcast V (local_stage.h PartySync) and
// uploads (n_k / n) V^(k) in fixed point (run_config.h): the sum over the parties is the paper's
// average V = sum_k (n_k / n) V^(k). HFL-synSGD (also stage 1) uploads in each of its T T' syncs
// its noisy V gradient sum G~_k (syn_step.h), clamped to the codec's range (run_config.h
// SynGradientCodec). In the final round T it fine-tunes (U_k, V) locally without noise (stage 3,
// never published) and uploads its test squared error before and after fine-tuning, its number of
// test ratings, and its training squared error and ratings (lib/fmf_party/party_error.h): the run's
// test and train MSE are ratios of the sums (released as federated evaluation releases its metrics:
// without noise). The same seed and config give the in-process run (in_process_run.h) up to the
// fixed point's rounding. Parties only, per user only.
#ifndef FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_CONTRIBUTOR_H_
#define FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_CONTRIBUTOR_H_

#include <memory>
#include <optional>
#include <utility>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/lib/fmf_party/party_held_scorer.h"
#include "fedmf/v1/algorithm.pb.h"
#include "fedmf/v1/hfl_sgdmf.pb.h"

namespace fedmf::algorithms::hfl_sgdmf {

class HflSgdmfContributor final : public Contributor {
 public:
  // Validates the plan (it comes from the network): name, payload, config, its shape for the
  // round (run_config.h) and V (m x p, finite).
  static absl::StatusOr<std::unique_ptr<HflSgdmfContributor>> Create(const v1::RoundPlan& plan);

  // InvalidArgument for a user participant, a shard without every item or with users outside
  // [0, n), a participant id outside 1..s, a corrupt state or ratings outside [0, R];
  // FailedPrecondition for a state of another round (a party that lost its state) or a plan after
  // the run.
  absl::StatusOr<Contribution> Contribute(const LocalData& data, absl::string_view state,
                                          dp::Rng& rng) const override;
  // The party's own noisy steps this round (privacy.h RoundEntry with one party).
  absl::StatusOr<std::optional<dp::LedgerEntry>> ParticipantCost(
      const LocalData& data, absl::string_view state) const override;
  const Scorer& scorer() const override { return scorer_; }

 private:
  HflSgdmfContributor(v1::HflSgdmfBroadcast broadcast, Eigen::MatrixXd items)
      : broadcast_(std::move(broadcast)),
        items_(std::move(items)),
        scorer_(broadcast_.config().num_items(),
                "hfl-sgdmf: user embeddings stay with their parties, the plan's item embeddings "
                "score no user (the run's test error comes from its final round)") {}

  v1::HflSgdmfBroadcast broadcast_;
  Eigen::MatrixXd items_;  // V, m x p
  fmf_party::PartyHeldScorer scorer_;
};

}  // namespace fedmf::algorithms::hfl_sgdmf

#endif  // FEDMF_COMMON_ALGORITHMS_HFL_SGDMF_CONTRIBUTOR_H_
