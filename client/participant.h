// One user of a client process: their ratings (never sent anywhere; train ratings for training,
// test ratings for federated evaluation), their private noise generator, their SecAgg client
// session of the current round and the user factor of their last contribution. They rank items
// and score their test ratings with a model's Scorer (common/algorithms/scorer.h), which needs no
// factors. No networking: the host (participant_host.h) routes messages.
#ifndef FEDMF_CLIENT_PARTICIPANT_H_
#define FEDMF_CLIENT_PARTICIPANT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/scorer.h"
#include "common/data/ratings_dataset.h"
#include "common/dp/rng.h"
#include "common/metrics/metric_codec.h"
#include "common/metrics/metrics.h"
#include "common/mf/recommend.h"
#include "crypto/ed25519.h"
#include "crypto/secagg/client_session.h"
#include "crypto/secagg/config.h"
#include "crypto/secagg/signing_directory.h"
#include "fedmf/v1/federation.pb.h"
#include "fedmf/v1/secagg.pb.h"
#include "wire/envelope.h"

namespace fedmf::client {

class Participant {
 public:
  // `ratings` (train) and `test` must outlive the participant (they view the host's datasets).
  // `id` >= 1 is the SecAgg participant id (dense user index + 1). The noise generator is keyed
  // from the OS CSPRNG, or, when `insecure_noise_seed` is set, is dp::Rng(seed, id): reproducible
  // whatever the process layout, for tests and experiments ONLY (whoever knows the seed can
  // subtract the noise, so it voids the privacy guarantee).
  static absl::StatusOr<Participant> Create(
      uint32_t id, data::RatingRow ratings, data::RatingRow test = {},
      std::optional<uint64_t> insecure_noise_seed = std::nullopt);

  // Computes this round's contribution with `contributor`, opens a SecAgg session for it (a
  // sparse contribution densified to config.length) and returns the AdvertiseKeys message. Ends any
  // previous round's session. With config.signatures the session signs with `signing_key` (the
  // host's) and verifies its peers against `directory` (both required then).
  absl::StatusOr<v1::secagg::ClientToServer> StartRound(
      const algorithms::Contributor& contributor, const secagg::SessionConfig& config,
      const crypto::Ed25519PrivateKey* signing_key = nullptr,
      std::shared_ptr<const secagg::SigningKeyDirectory> directory = nullptr);

  // This round's contribution for a clear-upload round (no SecAgg session), as the upload of
  // aggregation `tag` (wire/clear_upload.h: sparse for a sparse contribution). Ends any previous
  // round's session.
  absl::StatusOr<v1::ClearUpload> ContributeClear(const algorithms::Contributor& contributor,
                                                  const wire::AggregationTag& tag);

  // This user's metric sums (user_metrics.h) under `model`: its ranking scores and, if it
  // predicts ratings, its predicted ratings (fallback mean 0), both from the train ratings,
  // scored on the test ratings; a model without rating predictions adds no error part
  // (MetricSums::errors_absent). Zero for a user without test ratings. InvalidArgument for a
  // test item outside the model or invalid options; the model's errors.
  absl::StatusOr<metrics::MetricSums> Evaluate(const algorithms::Scorer& model,
                                               const metrics::RankingOptions& options) const;

  // Evaluates (Evaluate), encodes the sums with `codec` and opens a SecAgg session for them (an
  // evaluation round, always unsigned: docs/runtime.md); returns the AdvertiseKeys message. Ends
  // any previous session.
  absl::StatusOr<v1::secagg::ClientToServer> StartEvaluation(const algorithms::Scorer& model,
                                                             const metrics::RankingOptions& options,
                                                             const metrics::MetricCodec& codec,
                                                             const secagg::SessionConfig& config);

  // The reply to one server message of the current session, if any. FailedPrecondition when no
  // session is open; an inconsistent server message yields the session's Abort reply.
  absl::StatusOr<std::optional<v1::secagg::ClientToServer>> Handle(
      const v1::secagg::ServerToClient& message);

  // Points the participant at new train and test ratings (same lifetime rule as Create): the
  // next contribution, evaluation and recommendation use them; a session in progress keeps the
  // input it was given.
  void set_ratings(data::RatingRow ratings, data::RatingRow test) {
    ratings_ = ratings;
    test_ = test;
  }
  // Restores the factor of a contribution made before a restart (mobile state).
  void set_user_factor(Eigen::VectorXd factor) { user_factor_ = std::move(factor); }

  // The open session's complete state (nullopt: none), to persist it (mobile state). It holds
  // the session's secrets (secagg::WipeClientSessionState).
  absl::StatusOr<std::optional<v1::secagg::ClientSessionState>> ExportSession() const;
  // Replaces the session with one restored from `state` (secagg::ClientSession::Restore), signing
  // with `signing_key` and verifying against `directory` as in StartRound; InvalidArgument for a
  // malformed state, which leaves the participant unchanged.
  absl::Status RestoreSession(const v1::secagg::ClientSessionState& state,
                              const crypto::Ed25519PrivateKey* signing_key,
                              std::shared_ptr<const secagg::SigningKeyDirectory> directory);

  // Forgets the round's session (its secrets are wiped by the session's destructor).
  void EndRound() { session_.reset(); }

  // Top-n items the user has not rated, by `model`'s ranking scores from the train ratings.
  absl::StatusOr<std::vector<mf::Recommendation>> Recommend(const algorithms::Scorer& model,
                                                            int n) const;

  uint32_t id() const { return id_; }
  const data::RatingRow& ratings() const { return ratings_; }
  const data::RatingRow& test_ratings() const { return test_; }
  // The factor of the last contribution (empty before the first, and for a model without user
  // factors).
  const Eigen::VectorXd& user_factor() const { return user_factor_; }
  const secagg::ClientSession* session() const { return session_.get(); }

 private:
  Participant(uint32_t id, data::RatingRow ratings, data::RatingRow test, dp::Rng rng)
      : id_(id), ratings_(ratings), test_(test), rng_(std::move(rng)) {}

  // The SecAgg identity of this participant: its id and, for a signed session, a copy of
  // `signing_key` the session owns (wiped with it).
  absl::StatusOr<secagg::ClientIdentity> Identity(
      bool signatures, const crypto::Ed25519PrivateKey* signing_key) const;

  // Opens this round's SecAgg session with `input` and returns its AdvertiseKeys message
  // (signing and directory as in StartRound).
  absl::StatusOr<v1::secagg::ClientToServer> OpenSession(
      const secagg::SessionConfig& config, const std::vector<uint64_t>& input,
      const crypto::Ed25519PrivateKey* signing_key,
      std::shared_ptr<const secagg::SigningKeyDirectory> directory);

  uint32_t id_;
  data::RatingRow ratings_;
  data::RatingRow test_;
  dp::Rng rng_;
  Eigen::VectorXd user_factor_;
  std::unique_ptr<secagg::ClientSession> session_;
};

}  // namespace fedmf::client

#endif  // FEDMF_CLIENT_PARTICIPANT_H_
