// One participant of a client process, a user or a silo party: its local data (never sent
// anywhere; train ratings for training, test ratings for federated evaluation), its private noise
// generator, its local state (each algorithm's state bytes and, if it keeps a budget, its own
// privacy ledger), its SecAgg client session of the current phase and the user factor of its last
// contribution that had one. It ranks items with a model's Scorer (common/algorithms/scorer.h),
// which needs no factors; a federated evaluation scores its test ratings the same way, as an
// algorithm of its own (common/algorithms/federated_evaluation/). No networking: the host
// (participant_host.h) routes messages.
#ifndef FEDMF_CLIENT_PARTICIPANT_H_
#define FEDMF_CLIENT_PARTICIPANT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/local_data.h"
#include "common/algorithms/scorer.h"
#include "common/data/ratings_dataset.h"
#include "common/dp/participant_budget.h"
#include "common/dp/rng.h"
#include "common/mf/recommend.h"
#include "crypto/ed25519.h"
#include "crypto/secagg/client_session.h"
#include "crypto/secagg/config.h"
#include "crypto/secagg/signing_directory.h"
#include "fedmf/v1/federation.pb.h"
#include "fedmf/v1/local_state.pb.h"
#include "fedmf/v1/secagg.pb.h"

namespace fedmf::client {

class Participant {
 public:
  // A user's rows in `data` must outlive the participant (they view the host's datasets).
  // `id` >= 1 is the SecAgg participant id (a user's: dense user index + 1). The noise generator
  // is keyed from the OS CSPRNG, or, when `insecure_noise_seed` is set, is dp::Rng(seed, id):
  // reproducible whatever the process layout, for tests and experiments ONLY (whoever knows the
  // seed can subtract the noise, so it voids the privacy guarantee).
  static absl::StatusOr<Participant> Create(
      uint32_t id, algorithms::LocalData data,
      std::optional<uint64_t> insecure_noise_seed = std::nullopt);

  // This phase's contribution with `contributor`, built from the plan of `algorithm`: ends any
  // previous session; asks the participant's own budget (if it keeps one) whether it may pay the
  // contributor's ParticipantCost and charges it; then contributes from its local data and its
  // state of `algorithm`, which the contribution's replaces (an empty one is none: nothing is
  // kept), as its user factor replaces the kept one if it has one (a stateless contribution
  // without a factor, e.g. an evaluation's, leaves no trace). ResourceExhausted when its budget
  // refuses (nothing changes: the participant sits the phase out); the contributor's errors.
  // With `sum` (a simulation's summed uploads, algorithm.h ContributionSum) the contribution is
  // added to it instead, and the vector returned is empty.
  absl::StatusOr<algorithms::ContributionVector> Contribute(
      const algorithms::Contributor& contributor, absl::string_view algorithm,
      algorithms::ContributionSum* sum = nullptr);
  // The upload standing for everything in `sum`, rounded with this participant's generator.
  absl::StatusOr<algorithms::ContributionVector> EncodeSum(const algorithms::ContributionSum& sum) {
    return sum.Encode(rng_);
  }

  // Opens this phase's SecAgg session with `input` (densified to config.length) and returns its
  // AdvertiseKeys message. With config.signatures the session signs with `signing_key` (the
  // host's; required then).
  absl::StatusOr<v1::secagg::ClientToServer> OpenSession(
      const secagg::SessionConfig& config, const algorithms::ContributionVector& input,
      const crypto::Ed25519PrivateKey* signing_key = nullptr);

  // The reply to one server message of the current session, if any. FailedPrecondition when no
  // session is open; an inconsistent server message yields the session's Abort reply. A
  // ShareKeysRequest of a signed session comes with `neighbor_keys`, the keys its neighbors'
  // signatures are verified under (secagg::ClientSession::SetDirectory).
  absl::StatusOr<std::optional<v1::secagg::ClientToServer>> Handle(
      const v1::secagg::ServerToClient& message,
      std::shared_ptr<const secagg::SigningKeyDirectory> neighbor_keys = nullptr);

  // Points a user participant at new train and test ratings (same lifetime rule as Create): the
  // next contribution (an evaluation's too) and recommendation use them; a session in progress
  // keeps the input it was given.
  void set_ratings(data::RatingRow ratings, data::RatingRow test) {
    data_.train = ratings;
    data_.test = test;
  }
  // Makes the participant keep its own ledger under `budget` from now on, starting empty (a
  // persisted one comes back with RestoreLocalState); InvalidArgument for a malformed budget.
  absl::Status SetBudget(const dp::PrivacyBudget& budget);
  const std::optional<dp::ParticipantBudget>& budget() const { return budget_; }

  // What the participant keeps on its device (local_state.proto), to persist it, and its
  // restoration: the algorithm states, and the ledger under the budget SetBudget gave (a
  // persisted ledger without a budget is refused: the client would forget what it spent).
  v1::ParticipantLocalState ExportLocalState() const;
  absl::Status RestoreLocalState(const v1::ParticipantLocalState& state);
  // Restores the factor of a contribution made before a restart (mobile state).
  void set_user_factor(Eigen::VectorXd factor) { user_factor_ = std::move(factor); }

  // The open session's complete state (nullopt: none), to persist it (mobile state). It holds
  // the session's secrets (secagg::WipeClientSessionState).
  absl::StatusOr<std::optional<v1::secagg::ClientSessionState>> ExportSession() const;
  // Replaces the session with one restored from `state` (secagg::ClientSession::Restore), signing
  // with `signing_key` as in OpenSession and verifying against `directory` (the neighbors' keys
  // Handle was given, once past ShareKeys); InvalidArgument for a malformed state, which leaves
  // the participant unchanged.
  absl::Status RestoreSession(const v1::secagg::ClientSessionState& state,
                              const crypto::Ed25519PrivateKey* signing_key,
                              std::shared_ptr<const secagg::SigningKeyDirectory> directory);

  // Forgets the round's session (its secrets are wiped by the session's destructor).
  void EndRound() { session_.reset(); }
  // The run ended and another may follow (RoundResult.run_done): its algorithm states go (a run
  // starts from none); the budget's ledger and the user factor, which scores the final model,
  // stay.
  void EndRun() {
    EndRound();
    algorithm_states_.clear();
  }

  // Top-n items a user participant has not rated, by `model`'s ranking scores from the train
  // ratings (a party has no one user to recommend to: FailedPrecondition).
  absl::StatusOr<std::vector<mf::Recommendation>> Recommend(const algorithms::Scorer& model,
                                                            int n) const;

  uint32_t id() const { return id_; }
  const algorithms::LocalData& data() const { return data_; }
  const data::RatingRow& ratings() const { return data_.train; }  // a user participant's
  // The factor of the last contribution that had one (empty before, and for models without user
  // factors).
  const Eigen::VectorXd& user_factor() const { return user_factor_; }
  const secagg::ClientSession* session() const { return session_.get(); }

 private:
  Participant(uint32_t id, algorithms::LocalData data, dp::Rng rng)
      : id_(id), data_(std::move(data)), rng_(std::move(rng)) {}

  // The SecAgg identity of this participant: its id and, for a signed session, a copy of
  // `signing_key` the session owns (wiped with it).
  absl::StatusOr<secagg::ClientIdentity> Identity(
      bool signatures, const crypto::Ed25519PrivateKey* signing_key) const;

  uint32_t id_;
  algorithms::LocalData data_;
  dp::Rng rng_;
  std::map<std::string, std::string, std::less<>> algorithm_states_;  // by algorithm name
  std::optional<dp::ParticipantBudget> budget_;
  Eigen::VectorXd user_factor_;
  std::unique_ptr<secagg::ClientSession> session_;
};

}  // namespace fedmf::client

#endif  // FEDMF_CLIENT_PARTICIPANT_H_
