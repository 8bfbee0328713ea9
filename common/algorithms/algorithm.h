// The contract every federated algorithm fulfils, independent of transport and of secure
// aggregation (docs/algorithms.md). A round is one or more phases, each an aggregation:
//   coordinator: plan = updater.Plan()  -> phase plan.phase() of round plan.round(), broadcast
//                (fedmf.v1.RoundPlan) to phase 0's sampled cohort or, in a later phase, to
//                updater.PhaseParticipants() (e.g. the previous phase's contributors)
//   each client: c = MakeContributor(plan)->Contribute(local data, state, rng)
//                -> plan.length integers in Z_{2^plan.client_bits}, dense or sparse, and the
//                participant's new state (kept on its device for its next contribution)
//   runtime:     sum = the clients' vectors added mod 2^bits, through SecAgg (densified) when
//                plan.combination is COMBINATION_SECURE_SUM, else uploaded in the clear (sparse
//                ones sparsely) and added (contribution_vector.h); a simulation may add a
//                process's participants first and upload their sum once (ContributionSum)
//   coordinator: updater.ApplySum(sum, the contributors' ids) -> the next phase or round
// The runtime never reads plan.payload; privacy parameters reach the ledger through
// Updater::RoundPrivacy. Every decoder here is linear in the vectors, so adding clear uploads
// mod 2^bits and decoding the sum equals decoding each vector alone and adding the results.
// The model a plan carries reaches users through the contributor's scorer() (scorer.h).
#ifndef FEDMF_COMMON_ALGORITHMS_ALGORITHM_H_
#define FEDMF_COMMON_ALGORITHMS_ALGORITHM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/algorithms/contribution_vector.h"
#include "common/algorithms/local_data.h"
#include "common/algorithms/scorer.h"
#include "common/data/ratings_dataset.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/privacy_ledger.h"
#include "common/dp/rng.h"
#include "fedmf/v1/algorithm.pb.h"

namespace fedmf::algorithms {

// One participant's output for one phase.
struct Contribution {
  ContributionVector vector;  // plan.length coordinates, each < 2^plan.client_bits
  // The participant's state after this contribution, opaque to the runtime, which keeps it on
  // the participant's device (persisted before the upload leaves) and passes it to the
  // participant's next Contribute of this algorithm. Versioned by the algorithm; empty: none.
  std::string state;
  // The user's factor this round (factor models; kept in the mobile state); scoring goes through
  // Contributor::scorer(), not this.
  Eigen::VectorXd user_factor;
};

class ContributionSum;

// Client side of one phase, built from the phase's plan and shared by every local participant.
// Contribute is const and thread-safe: one instance may serve many participants concurrently,
// each with its own Rng (the privacy noise comes from it: use dp::Rng::FromOsEntropy() in
// production).
class Contributor {
 public:
  virtual ~Contributor() = default;

  // `data`: the participant's own data (local_data.h: a user's ratings, item indices in
  // [0, num_items) without repeats, or a party's shard; an algorithm that supports only one kind
  // returns InvalidArgument for the other). `state`: what this participant's previous
  // Contribution of this algorithm returned as its state (empty for the first, or after the
  // participant lost it); the algorithm validates it (it is the device's, not the network's, but
  // may be stale or corrupt). FailedPrecondition: this participant cannot contribute to this
  // phase (e.g. its state lacks what the phase needs, or the run is over); the runtime declines
  // it alone and the coordinator sees a dropout with the reason. Any other error fails the task
  // for the whole client process.
  virtual absl::StatusOr<Contribution> Contribute(const LocalData& data, absl::string_view state,
                                                  dp::Rng& rng) const = 0;
  // What contributing to this phase costs this participant, for its own ledger and budget
  // (dp::ParticipantBudget; the runtime refuses to contribute once it would overspend, and the
  // coordinator sees a dropout); nullopt when the algorithm accounts only centrally, for the
  // worst-case participant of a whole phase (Updater::RoundPrivacy), as DPMF-RP does.
  virtual absl::StatusOr<std::optional<dp::LedgerEntry>> ParticipantCost(
      const LocalData& /*data*/, absl::string_view /*state*/) const {
    return std::nullopt;
  }
  // This round's model, which ranks items and predicts ratings for a user (scorer.h): local
  // recommendations and federated evaluation use it, never the algorithm's internals.
  // Meaningful only when carries_model().
  virtual const Scorer& scorer() const = 0;
  // The user's own model when the algorithm keeps a part of it on the device, in `state` (this
  // algorithm's state; e.g. a trained user factor): federated evaluation scores the user with it.
  // Null (the default): scorer() is every user's model. Errors as Contribute's.
  virtual absl::StatusOr<std::unique_ptr<Scorer>> PersonalScorer(
      const LocalData& /*data*/, absl::string_view /*state*/) const {
    return nullptr;
  }
  // Whose participant state Contribute is given and returns: empty (the default) for the plan's
  // own algorithm; a phase that works on another algorithm's model (federated evaluation) names
  // that algorithm and returns its state unchanged.
  virtual absl::string_view state_owner() const { return {}; }
  // False for a later phase whose plan carries no model because the round's earlier phase
  // delivered it (e.g. lfl-sgdmf's noise replacement): the runtime then keeps the model it has
  // and never asks this contributor's scorer().
  virtual bool carries_model() const { return true; }
  // A simulation shortcut, never a device's path (fedmf-sim --summed_uploads): an empty sum of
  // this phase's contributions, for a client process to upload its participants' sum once;
  // null (the default) when the algorithm or this phase has none.
  virtual std::unique_ptr<ContributionSum> StartSum() const { return nullptr; }
  // True when this plan asks users to leave their privacy noise out of their uploads for the
  // simulator's updater to draw in the sum (the plan's simulation_summed_noise, fedmf-sim
  // --plain_sum --summed_noise; simulation only): a real client refuses such a plan, whose sum
  // would reach the coordinator without noise. False (the default) for an algorithm without it.
  virtual bool uploads_without_noise() const { return false; }
};

// Several participants' contributions to one phase added before they are encoded, so that their
// client process uploads one vector for all of them (and zero for the others): the same sum in
// distribution as their separate vectors' except for rounding, which happens once instead of
// once per participant (the algorithm documents the difference). One per task; not thread-safe.
class ContributionSum {
 public:
  virtual ~ContributionSum() = default;
  // Contributor::Contribute, with its errors, state and user factor, except that the
  // participant's contribution is added to this sum: the returned vector is empty.
  virtual absl::StatusOr<Contribution> Add(const LocalData& data, absl::string_view state,
                                           dp::Rng& rng) = 0;
  // The upload standing for everything added (plan.length values < 2^plan.client_bits).
  virtual absl::StatusOr<ContributionVector> Encode(dp::Rng& rng) const = 0;
};

// Server side: owns the model state across rounds.
class Updater {
 public:
  virtual ~Updater() = default;

  virtual int64_t round() const = 0;  // rounds applied so far = index of the planned round
  // The planned aggregation: phase plan.phase() of round round().
  virtual absl::StatusOr<v1::RoundPlan> Plan() const = 0;
  // Who the planned phase is for: empty for phase 0 (the runtime samples the round's cohort);
  // for a later phase the ids (ascending) the algorithm chose from earlier phases' contributors.
  // The runtime invites those still connected.
  virtual std::vector<uint32_t> PhaseParticipants() const { return {}; }
  // Decodes `sum` (plan.length values mod 2^plan.bits of the vectors of `contributors`, ascending
  // ids, their number in [plan.min_contributors, plan.max_contributors]), updates the model and
  // advances to the next phase, or to the next round after the last phase. On error the state is
  // unchanged (e.g. a sum that may have wrapped: the phase is discarded).
  virtual absl::Status ApplySum(absl::Span<const uint64_t> sum,
                                absl::Span<const uint32_t> contributors) = 0;
  // The planned phase's test of ONE participant's clear upload, after it was checked against the
  // plan and before it is added: for algorithms whose guarantee is the shape of each upload (a
  // local-DP report of exactly one coordinate of magnitude B). A refused upload is that
  // participant's dropout and leaves the sum untouched. Clear phases only (a secure sum hides
  // the inputs); the default accepts whatever fits the plan.
  virtual absl::Status CheckUpload(const ContributionVector& /*vector*/) const {
    return absl::OkStatus();
  }
  // The planned phase failed (too few contributors, a refused sum): back to phase 0 of round(),
  // which the runtime retries with a fresh cohort. Nothing to undo with one phase per round.
  virtual void AbandonRound() {}

  // The planned phase's release for the privacy ledger (mechanism, parameters, n_min and its RDP
  // on `orders`), with `participants` the clients in its sum; nullopt when it adds no noise.
  virtual absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t participants, const std::vector<double>& orders) const = 0;
  // Before the planned phase starts, at least what it and the later phases of its round can cost
  // together (at any number of contributors from `participants` on), so that the coordinator
  // never starts a round whose later phases would not fit the budget and spend a release for
  // nothing. The default, the phase's own RoundPrivacy, is exact for one phase per round.
  virtual absl::StatusOr<std::optional<dp::LedgerEntry>> RemainingRoundPrivacyBound(
      int64_t participants, const std::vector<double>& orders) const {
    return RoundPrivacy(participants, orders);
  }
  // True for a protocol whose privacy argument needs the same population in every phase (e.g.
  // PriviRec's secure sums): the cohort of every phase of the run is every participant
  // registered when it starts, the SecAgg threshold is the whole cohort, and losing any
  // participant ends the run cleanly instead of sampling another cohort.
  virtual bool fixed_population() const { return false; }

  // What the algorithm measured that the run reports, as key=value fields the coordinator adds
  // to its event=training_end line (e.g. a test error the participants summed in a final
  // phase, when no scorer can evaluate the model centrally); empty by default.
  virtual std::vector<std::pair<std::string, std::string>> Outcome() const { return {}; }

  // The run's budget, against which the coordinator's ledger decides to stop; nullopt if none.
  virtual std::optional<dp::PrivacyBudget> budget() const = 0;

  // Everything needed to resume after the last applied round (see registry.h RestoreUpdater).
  virtual absl::StatusOr<std::string> SerializeState() const = 0;
};

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_ALGORITHM_H_
