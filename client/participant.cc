#include "client/participant.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace fedmf::client {

absl::StatusOr<Participant> Participant::Create(uint32_t id, data::RatingRow ratings) {
  if (id == 0) return absl::InvalidArgumentError("participant id must be >= 1, got 0");
  absl::StatusOr<dp::Rng> rng = dp::Rng::FromOsEntropy();
  if (!rng.ok()) return rng.status();
  return Participant(id, ratings, std::move(*rng));
}

absl::StatusOr<v1::secagg::ClientToServer> Participant::StartRound(
    const algorithms::Contributor& contributor, const secagg::SessionConfig& config,
    const crypto::Ed25519PrivateKey* signing_key,
    std::shared_ptr<const secagg::SigningKeyDirectory> directory) {
  session_.reset();
  absl::StatusOr<algorithms::Contribution> contribution = contributor.Contribute(ratings_, rng_);
  if (!contribution.ok()) return contribution.status();
  user_factor_ = std::move(contribution->user_factor);
  secagg::ClientIdentity identity{id_, std::nullopt};
  if (config.signatures && signing_key != nullptr) {
    // The session owns its copy of the key (wiped with it).
    absl::StatusOr<crypto::Ed25519PrivateKey> copy =
        crypto::Ed25519PrivateKey::FromSeed(signing_key->seed().span());
    if (!copy.ok()) return copy.status();
    identity.signing_key = std::move(*copy);
  }
  absl::StatusOr<std::unique_ptr<secagg::ClientSession>> session =
      secagg::ClientSession::Create(config, std::move(identity), std::move(directory));
  if (!session.ok()) return session.status();
  if (absl::Status s = (*session)->SetInput(contribution->vector); !s.ok()) return s;
  absl::StatusOr<v1::secagg::ClientToServer> advertise = (*session)->Start();
  if (!advertise.ok()) return advertise.status();
  session_ = std::move(*session);
  return advertise;
}

absl::StatusOr<std::vector<uint64_t>> Participant::ContributeClear(
    const algorithms::Contributor& contributor) {
  session_.reset();
  absl::StatusOr<algorithms::Contribution> contribution = contributor.Contribute(ratings_, rng_);
  if (!contribution.ok()) return contribution.status();
  user_factor_ = std::move(contribution->user_factor);
  return std::move(contribution->vector);
}

absl::StatusOr<std::optional<v1::secagg::ClientToServer>> Participant::Handle(
    const v1::secagg::ServerToClient& message) {
  if (session_ == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("participant ", id_, ": SecAgg message outside a round"));
  }
  return session_->Handle(message);
}

absl::StatusOr<std::vector<mf::Recommendation>> Participant::Recommend(
    const algorithms::Contributor& contributor, int n) const {
  absl::StatusOr<Eigen::VectorXd> u = contributor.UserFactor(ratings_);
  if (!u.ok()) return u.status();
  return mf::RecommendTopN(contributor.item_factors(), *u, ratings_.indices, n);
}

}  // namespace fedmf::client
