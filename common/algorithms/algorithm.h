// The contract every federated algorithm fulfils, independent of transport and of secure
// aggregation (docs/algorithms.md). A round is one or more phases, each an aggregation:
//   coordinator: plan = updater.Plan()  -> phase plan.phase() of round plan.round(), broadcast
//                (fedmf.v1.RoundPlan) to phase 0's sampled cohort or, in a later phase, to
//                updater.PhaseParticipants() (e.g. the previous phase's contributors)
//   each client: c = MakeContributor(plan)->Contribute(local ratings, rng)
//                -> plan.length integers in Z_{2^plan.client_bits}, dense or sparse
//   runtime:     sum = the clients' vectors added mod 2^bits, through SecAgg (densified) when
//                plan.combination is COMBINATION_SECURE_SUM, else uploaded in the clear (sparse
//                ones sparsely) and added (contribution_vector.h)
//   coordinator: updater.ApplySum(sum, the contributors' ids) -> the next phase or round
// The runtime never reads plan.payload; privacy parameters reach the ledger through
// Updater::RoundPrivacy. Every decoder here is linear in the vectors, so adding clear uploads
// mod 2^bits and decoding the sum equals decoding each vector alone and adding the results.
// The model a plan carries reaches users through the contributor's scorer() (scorer.h).
#ifndef FEDMF_COMMON_ALGORITHMS_ALGORITHM_H_
#define FEDMF_COMMON_ALGORITHMS_ALGORITHM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/algorithms/contribution_vector.h"
#include "common/algorithms/scorer.h"
#include "common/data/ratings_dataset.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/privacy_ledger.h"
#include "common/dp/rng.h"
#include "fedmf/v1/algorithm.pb.h"

namespace fedmf::algorithms {

// One user's output for one round.
struct Contribution {
  ContributionVector vector;    // plan.length coordinates, each < 2^plan.client_bits
  // The user's factor this round (factor models; kept in the mobile state); scoring goes through
  // Contributor::scorer(), not this.
  Eigen::VectorXd user_factor;
};

// Client side of one round, built from the round's plan and shared by every local user.
// Contribute is const and thread-safe: one instance may serve many users concurrently, each with
// its own Rng (the privacy noise comes from it: use dp::Rng::FromOsEntropy() in production).
class Contributor {
 public:
  virtual ~Contributor() = default;

  // `ratings`: the user's own ratings (item indices in [0, num_items), no repeats).
  virtual absl::StatusOr<Contribution> Contribute(const data::RatingRow& ratings,
                                                  dp::Rng& rng) const = 0;
  // This round's model, which ranks items and predicts ratings for a user (scorer.h): local
  // recommendations and federated evaluation use it, never the algorithm's internals.
  virtual const Scorer& scorer() const = 0;
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
  // The planned phase failed (too few contributors, a refused sum): back to phase 0 of round(),
  // which the runtime retries with a fresh cohort. Nothing to undo with one phase per round.
  virtual void AbandonRound() {}

  // The planned phase's release for the privacy ledger (mechanism, parameters, n_min and its RDP
  // on `orders`), with `participants` the clients in its sum; nullopt when it adds no noise.
  virtual absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t participants, const std::vector<double>& orders) const = 0;
  // The run's budget, against which the coordinator's ledger decides to stop; nullopt if none.
  virtual std::optional<dp::PrivacyBudget> budget() const = 0;

  // Everything needed to resume after the last applied round (see registry.h RestoreUpdater).
  virtual absl::StatusOr<std::string> SerializeState() const = 0;
};

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_ALGORITHM_H_
