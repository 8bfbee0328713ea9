#include "client/participant.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/dp/ledger_text_format.h"

namespace fedmf::client {
namespace {

absl::Span<const double> AsSpan(const Eigen::VectorXd& v) {
  return absl::Span<const double>(v.data(), static_cast<size_t>(v.size()));
}

}  // namespace

absl::StatusOr<Participant> Participant::Create(uint32_t id, algorithms::LocalData data,
                                                std::optional<uint64_t> insecure_noise_seed) {
  if (id == 0) return absl::InvalidArgumentError("participant id must be >= 1, got 0");
  if (data.is_party()) {
    if (absl::Status s = data.party->Validate(); !s.ok()) return s;
  }
  data.participant_id = id;
  if (insecure_noise_seed)
    return Participant(id, std::move(data), dp::Rng(*insecure_noise_seed, id));
  absl::StatusOr<dp::Rng> rng = dp::Rng::FromOsEntropy();
  if (!rng.ok()) return rng.status();
  return Participant(id, std::move(data), std::move(*rng));
}

absl::StatusOr<algorithms::ContributionVector> Participant::Contribute(
    const algorithms::Contributor& contributor, absl::string_view algorithm,
    algorithms::ContributionSum* sum) {
  session_.reset();
  if (!contributor.state_owner().empty()) algorithm = contributor.state_owner();
  const auto state = algorithm_states_.find(algorithm);
  const absl::string_view old_state =
      state == algorithm_states_.end() ? absl::string_view() : absl::string_view(state->second);
  std::optional<dp::LedgerEntry> cost;
  if (budget_) {
    absl::StatusOr<std::optional<dp::LedgerEntry>> c =
        contributor.ParticipantCost(data_, old_state);
    if (!c.ok()) return c.status();
    cost = *std::move(c);
    if (cost) {
      if (absl::Status s = budget_->CanContribute(*cost); !s.ok()) {
        return absl::Status(s.code(), absl::StrCat("participant ", id_, ": ", s.message()));
      }
    }
  }
  absl::StatusOr<algorithms::Contribution> contribution =
      sum != nullptr ? sum->Add(data_, old_state, rng_)
                     : contributor.Contribute(data_, old_state, rng_);
  if (!contribution.ok()) return contribution.status();
  if (cost) {
    if (absl::Status s = budget_->Charge(*std::move(cost)); !s.ok()) return s;
  }
  if (contribution->state.empty()) {
    algorithm_states_.erase(std::string(algorithm));
  } else {
    algorithm_states_.insert_or_assign(std::string(algorithm), std::move(contribution->state));
  }
  if (contribution->user_factor.size() > 0) user_factor_ = std::move(contribution->user_factor);
  return std::move(contribution->vector);
}

absl::Status Participant::SetBudget(const dp::PrivacyBudget& budget) {
  absl::StatusOr<dp::ParticipantBudget> b = dp::ParticipantBudget::Create(budget);
  if (!b.ok()) return b.status();
  budget_ = *std::move(b);
  return absl::OkStatus();
}

v1::ParticipantLocalState Participant::ExportLocalState() const {
  v1::ParticipantLocalState state;
  state.set_participant_id(id_);
  for (const auto& [algorithm, bytes] : algorithm_states_) {
    (*state.mutable_algorithm_states())[algorithm] = bytes;
  }
  if (budget_) state.set_ledger(dp::SerializeLedger(budget_->ledger()));
  return state;
}

absl::Status Participant::RestoreLocalState(const v1::ParticipantLocalState& state) {
  if (state.participant_id() != id_) {
    return absl::InvalidArgumentError(
        absl::StrCat("local state of participant ", state.participant_id(), " given to ", id_));
  }
  std::optional<dp::ParticipantBudget> budget = budget_;
  if (!state.ledger().empty()) {
    if (!budget) {
      return absl::FailedPreconditionError(absl::StrCat(
          "participant ", id_, ": the saved state has a privacy ledger but no budget is set"));
    }
    absl::StatusOr<dp::PrivacyLedger> ledger = dp::ParseLedger(state.ledger());
    if (!ledger.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("participant ", id_, ": saved ledger: ", ledger.status().message()));
    }
    absl::StatusOr<dp::ParticipantBudget> restored =
        dp::ParticipantBudget::Restore(budget->budget(), *std::move(ledger));
    if (!restored.ok()) return restored.status();
    budget = *std::move(restored);
  }
  algorithm_states_.clear();
  for (const auto& [algorithm, bytes] : state.algorithm_states()) {
    algorithm_states_.emplace(algorithm, bytes);
  }
  budget_ = std::move(budget);
  return absl::OkStatus();
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
    const secagg::SessionConfig& config, const algorithms::ContributionVector& contribution,
    const crypto::Ed25519PrivateKey* signing_key) {
  session_.reset();
  absl::StatusOr<std::vector<uint64_t>> input = contribution.Densify(config.length);
  if (!input.ok()) return input.status();
  absl::StatusOr<secagg::ClientIdentity> identity = Identity(config.signatures, signing_key);
  if (!identity.ok()) return identity.status();
  absl::StatusOr<std::unique_ptr<secagg::ClientSession>> session =
      secagg::ClientSession::Create(config, std::move(*identity), /*directory=*/nullptr);
  if (!session.ok()) return session.status();
  if (absl::Status s = (*session)->SetInput(*input); !s.ok()) return s;
  absl::StatusOr<v1::secagg::ClientToServer> advertise = (*session)->Start();
  if (!advertise.ok()) return advertise.status();
  session_ = std::move(*session);
  return advertise;
}

absl::StatusOr<std::optional<v1::secagg::ClientToServer>> Participant::Handle(
    const v1::secagg::ServerToClient& message,
    std::shared_ptr<const secagg::SigningKeyDirectory> neighbor_keys) {
  if (session_ == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("participant ", id_, ": SecAgg message outside a round"));
  }
  if (neighbor_keys != nullptr && message.has_share_keys()) {
    // Refused only after ShareKeys, where the session aborts on this message anyway.
    session_->SetDirectory(std::move(neighbor_keys)).IgnoreError();
  }
  return session_->Handle(message);
}

absl::StatusOr<std::vector<mf::Recommendation>> Participant::Recommend(
    const algorithms::Scorer& model, int n) const {
  if (data_.is_party()) {
    return absl::FailedPreconditionError(
        absl::StrCat("participant ", id_, " is a party: recommendations are per user"));
  }
  absl::StatusOr<Eigen::VectorXd> scores = model.Scores(data_.train);
  if (!scores.ok()) return scores.status();
  return mf::RecommendTopN(AsSpan(*scores), data_.train.indices, n);
}

}  // namespace fedmf::client
