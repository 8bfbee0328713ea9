#include "client/participant.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/metrics/user_metrics.h"
#include "wire/clear_upload.h"

namespace fedmf::client {
namespace {

absl::Span<const double> AsSpan(const Eigen::VectorXd& v) {
  return absl::Span<const double>(v.data(), static_cast<size_t>(v.size()));
}

}  // namespace

absl::StatusOr<Participant> Participant::Create(uint32_t id, data::RatingRow ratings,
                                                data::RatingRow test,
                                                std::optional<uint64_t> insecure_noise_seed) {
  if (id == 0) return absl::InvalidArgumentError("participant id must be >= 1, got 0");
  if (insecure_noise_seed) return Participant(id, ratings, test, dp::Rng(*insecure_noise_seed, id));
  absl::StatusOr<dp::Rng> rng = dp::Rng::FromOsEntropy();
  if (!rng.ok()) return rng.status();
  return Participant(id, ratings, test, std::move(*rng));
}

absl::StatusOr<v1::secagg::ClientToServer> Participant::StartRound(
    const algorithms::Contributor& contributor, const secagg::SessionConfig& config,
    const crypto::Ed25519PrivateKey* signing_key,
    std::shared_ptr<const secagg::SigningKeyDirectory> directory) {
  session_.reset();
  absl::StatusOr<algorithms::Contribution> contribution = contributor.Contribute(ratings_, rng_);
  if (!contribution.ok()) return contribution.status();
  user_factor_ = std::move(contribution->user_factor);
  absl::StatusOr<std::vector<uint64_t>> input = contribution->vector.Densify(config.length);
  if (!input.ok()) return input.status();
  return OpenSession(config, *input, signing_key, std::move(directory));
}

absl::StatusOr<secagg::ClientIdentity> Participant::Identity(
    bool signatures, const crypto::Ed25519PrivateKey* signing_key) const {
  secagg::ClientIdentity identity{id_, std::nullopt};
  if (signatures && signing_key != nullptr) {
    absl::StatusOr<crypto::Ed25519PrivateKey> copy =
        crypto::Ed25519PrivateKey::FromSeed(signing_key->seed().span());
    if (!copy.ok()) return copy.status();
    identity.signing_key = std::move(*copy);
  }
  return identity;
}

absl::StatusOr<std::optional<v1::secagg::ClientSessionState>> Participant::ExportSession() const {
  if (session_ == nullptr) return std::nullopt;
  absl::StatusOr<v1::secagg::ClientSessionState> state = session_->Export();
  if (!state.ok()) return state.status();
  return std::optional<v1::secagg::ClientSessionState>(std::move(*state));
}

absl::Status Participant::RestoreSession(
    const v1::secagg::ClientSessionState& state, const crypto::Ed25519PrivateKey* signing_key,
    std::shared_ptr<const secagg::SigningKeyDirectory> directory) {
  absl::StatusOr<secagg::ClientIdentity> identity =
      Identity(state.config().signatures(), signing_key);
  if (!identity.ok()) return identity.status();
  absl::StatusOr<std::unique_ptr<secagg::ClientSession>> session =
      secagg::ClientSession::Restore(state, std::move(*identity), std::move(directory));
  if (!session.ok()) return session.status();
  session_ = std::move(*session);
  return absl::OkStatus();
}

absl::StatusOr<v1::secagg::ClientToServer> Participant::OpenSession(
    const secagg::SessionConfig& config, const std::vector<uint64_t>& input,
    const crypto::Ed25519PrivateKey* signing_key,
    std::shared_ptr<const secagg::SigningKeyDirectory> directory) {
  absl::StatusOr<secagg::ClientIdentity> identity = Identity(config.signatures, signing_key);
  if (!identity.ok()) return identity.status();
  absl::StatusOr<std::unique_ptr<secagg::ClientSession>> session =
      secagg::ClientSession::Create(config, std::move(*identity), std::move(directory));
  if (!session.ok()) return session.status();
  if (absl::Status s = (*session)->SetInput(input); !s.ok()) return s;
  absl::StatusOr<v1::secagg::ClientToServer> advertise = (*session)->Start();
  if (!advertise.ok()) return advertise.status();
  session_ = std::move(*session);
  return advertise;
}

absl::StatusOr<metrics::MetricSums> Participant::Evaluate(
    const algorithms::Scorer& model, const metrics::RankingOptions& options) const {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  metrics::MetricSums sums;
  if (test_.size() == 0) return sums;
  if (test_.indices.back() >= model.num_items()) {  // indices are sorted
    return absl::InvalidArgumentError(absl::StrCat("participant ", id_, ": test item ",
                                                   test_.indices.back(), " outside the model's ",
                                                   model.num_items(), " items"));
  }
  // As server/evaluation.cc scores centrally; a user with test ratings has train ratings, so the
  // fallback mean (the client does not know the global one) is never used.
  absl::StatusOr<Eigen::VectorXd> scores = model.Scores(ratings_);
  if (!scores.ok()) return scores.status();
  if (model.predicts_ratings()) {
    absl::StatusOr<Eigen::VectorXd> predicted = model.PredictRatings(ratings_, 0);
    if (!predicted.ok()) return predicted.status();
    sums.Add(metrics::EvaluateUserErrors(test_, AsSpan(*predicted)));
  }
  sums.Add(metrics::EvaluateUserRanking(ratings_, test_, AsSpan(*scores), options),
           /*has_test=*/true);
  return sums;
}

absl::StatusOr<v1::secagg::ClientToServer> Participant::StartEvaluation(
    const algorithms::Scorer& model, const metrics::RankingOptions& options,
    const metrics::MetricCodec& codec, const secagg::SessionConfig& config) {
  session_.reset();
  absl::StatusOr<metrics::MetricSums> sums = Evaluate(model, options);
  if (!sums.ok()) return sums.status();
  return OpenSession(config, codec.Encode(*sums), nullptr, nullptr);
}

absl::StatusOr<v1::ClearUpload> Participant::ContributeClear(
    const algorithms::Contributor& contributor, const wire::AggregationTag& tag) {
  session_.reset();
  absl::StatusOr<algorithms::Contribution> contribution = contributor.Contribute(ratings_, rng_);
  if (!contribution.ok()) return contribution.status();
  user_factor_ = std::move(contribution->user_factor);
  return wire::ToClearUpload(tag, id_, contribution->vector);
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
    const algorithms::Scorer& model, int n) const {
  absl::StatusOr<Eigen::VectorXd> scores = model.Scores(ratings_);
  if (!scores.ok()) return scores.status();
  return mf::RecommendTopN(AsSpan(*scores), ratings_.indices, n);
}

}  // namespace fedmf::client
