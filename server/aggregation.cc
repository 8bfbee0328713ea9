#include "server/aggregation.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "crypto/secagg/stages.h"

namespace fedmf::server {

absl::StatusOr<std::unique_ptr<Aggregation>> Aggregation::Secure(
    wire::AggregationTag tag, const secagg::SessionConfig& config, std::vector<uint32_t> cohort,
    std::shared_ptr<const secagg::SigningKeyDirectory> directory, int64_t min_inputs) {
  absl::StatusOr<std::unique_ptr<secagg::ServerSession>> session =
      secagg::ServerSession::Create(config, cohort, directory);
  if (!session.ok()) return session.status();
  (*session)->set_min_inputs(min_inputs);
  std::unique_ptr<Aggregation> a(
      new Aggregation(tag, std::move(cohort), config.threshold, min_inputs));
  a->session_ = std::move(*session);
  a->directory_ = std::move(directory);
  return a;
}

std::unique_ptr<Aggregation> Aggregation::Clear(wire::AggregationTag tag, const v1::RoundPlan& plan,
                                                std::vector<uint32_t> cohort, int64_t min_inputs,
                                                ClearAggregation::UploadCheck check) {
  std::unique_ptr<Aggregation> a(
      new Aggregation(tag, std::move(cohort), static_cast<int>(min_inputs), min_inputs));
  a->clear_ = std::make_unique<ClearAggregation>(plan, a->cohort_, std::move(check));
  return a;
}

bool Aggregation::InCohort(uint32_t participant_id) const {
  return std::binary_search(cohort_.begin(), cohort_.end(), participant_id);
}

const secagg::SessionConfig* Aggregation::secagg_config() const {
  return session_ != nullptr ? &session_->config() : nullptr;
}

Aggregation::Delivery Aggregation::DeliverSecAgg(uint32_t participant_id,
                                                 const v1::ParticipantToServer& message) {
  Delivery delivery;
  if (wire::TagOf(message) != tag_) return delivery;
  if (session_ == nullptr) {
    // A participant declining a clear phase (e.g. its own privacy budget is spent) says so with a
    // SecAgg Abort: it is a dropout.
    if (message.message().has_abort() && Drop(participant_id)) {
      RecordRefusal(participant_id, message.message().abort());
    }
    return delivery;
  }
  // A refusal declines the task: it counts only in the first stage, from a member still in.
  const bool in_first_stage = InCohort(participant_id) &&
                              session_->stage() == secagg::ServerStage::kAdvertiseKeys &&
                              session_->DropReason(participant_id).empty();
  // NotFound (outside the cohort) and FailedPrecondition (dropped, ended) change nothing.
  absl::StatusOr<std::vector<secagg::ServerMessage>> answer =
      session_->HandleMessage(participant_id, message.message());
  if (in_first_stage && answer.ok() && message.message().has_abort()) {
    RecordRefusal(participant_id, message.message().abort());
  }
  if (!answer.ok() || answer->empty()) return delivery;
  delivery.rejected = session_->DropReason(participant_id);
  delivery.replies = Wrap(std::move(*answer));
  return delivery;
}

Aggregation::Delivery Aggregation::DeliverPartialSum(const wire::AggregationTag& tag,
                                                     const secagg::PartialSum& partial) {
  Delivery delivery;
  if (tag != tag_) return delivery;
  if (session_ == nullptr) {
    delivery.rejected = "a partial sum of masked inputs for a clear aggregation";
    return delivery;
  }
  secagg::ServerSession::PartialSumAnswer answer = session_->AcceptMaskedInputSum(partial);
  delivery.rejected = std::move(answer.refused);
  delivery.replies = Wrap(std::move(answer.aborts));
  return delivery;
}

std::string Aggregation::DeliverClear(const v1::ClearUpload& upload) {
  if (clear_ == nullptr || clear_closed_ || upload.round() != tag_.round ||
      upload.phase() != tag_.phase) {
    return "";
  }
  const absl::Status accepted = clear_->Accept(upload);
  return accepted.ok() ? "" : std::string(accepted.message());
}

bool Aggregation::Drop(uint32_t participant_id) {
  if (!InCohort(participant_id)) return false;
  if (clear_ != nullptr) return clear_->MarkDropped(participant_id);
  return session_->DropReason(participant_id).empty() && session_->MarkDropped(participant_id).ok();
}

bool Aggregation::ReadyToClose() const {
  return session_ != nullptr ? session_->ReadyToClose() : clear_->Complete();
}

bool Aggregation::Finished() const {
  if (session_ == nullptr) return clear_closed_;
  return session_->stage() == secagg::ServerStage::kCompleted ||
         session_->stage() == secagg::ServerStage::kAborted;
}

std::string Aggregation::StageName() const {
  return session_ != nullptr ? secagg::ServerStageName(session_->stage()) : "ClearUpload";
}

const char* Aggregation::StageKey() const {
  return session_ != nullptr ? secagg::NamesOf(session_->stage()).duration_key : "clear_upload_s";
}

absl::StatusOr<Aggregation::Envelopes> Aggregation::CloseStage() {
  if (session_ == nullptr) {
    clear_closed_ = true;
    return Envelopes();
  }
  absl::StatusOr<std::vector<secagg::ServerMessage>> next = session_->CloseStage();
  if (!next.ok()) return next.status();
  return Wrap(std::move(*next));
}

Aggregation::Envelopes Aggregation::Abort(absl::string_view reason) {
  if (session_ == nullptr) {
    clear_closed_ = true;
    return Envelopes();
  }
  return Wrap(session_->Abort(reason));
}

absl::StatusOr<std::vector<uint64_t>> Aggregation::sum() const {
  if (session_ != nullptr) return session_->result();
  if (!clear_closed_) return absl::FailedPreconditionError("clear upload stage still open");
  if (clear_->contributors() < min_inputs_) {
    return absl::AbortedError(
        absl::StrCat(clear_->contributors(), " uploads, fewer than ", min_inputs_));
  }
  return clear_->sum();
}

std::vector<uint32_t> Aggregation::contributors() const {
  return session_ != nullptr ? session_->IncludedClients() : clear_->contributor_ids();
}

void Aggregation::RecordRefusal(uint32_t participant_id, const v1::secagg::Abort& abort) {
  // Only the codes a contributor's refusal has: a client cannot make the run end with another.
  const auto code = static_cast<absl::StatusCode>(abort.refusal_code());
  if (code != absl::StatusCode::kInvalidArgument && code != absl::StatusCode::kFailedPrecondition) {
    return;
  }
  refusals_.insert_or_assign(participant_id, absl::Status(code, abort.reason()));
}

std::optional<absl::Status> Aggregation::UnanimousRefusal() const {
  if (cohort_.empty() || refusals_.size() != cohort_.size()) return std::nullopt;
  const absl::Status& first = refusals_.begin()->second;
  for (const auto& [id, refusal] : refusals_) {
    if (refusal != first) return std::nullopt;
  }
  return first;
}

const std::vector<secagg::ServerSession::Misbehaviour>& Aggregation::misbehaviour() const {
  static const std::vector<secagg::ServerSession::Misbehaviour> kNone;
  return session_ != nullptr ? session_->misbehaviour() : kNone;
}

std::vector<uint32_t> Aggregation::Lost() const {
  std::vector<uint32_t> lost;
  if (session_ != nullptr) {
    for (uint32_t id : cohort_) {
      if (!session_->DropReason(id).empty()) lost.push_back(id);
    }
    return lost;
  }
  const std::vector<uint32_t> uploaded = clear_->contributor_ids();
  std::set_difference(cohort_.begin(), cohort_.end(), uploaded.begin(), uploaded.end(),
                      std::back_inserter(lost));
  return lost;
}

int64_t Aggregation::DroppedSoFar() const {
  if (clear_ != nullptr && !clear_closed_) return 0;
  return static_cast<int64_t>(Lost().size());
}

Aggregation::Envelopes Aggregation::Wrap(std::vector<secagg::ServerMessage> messages) const {
  Envelopes out;
  out.reserve(messages.size());
  for (secagg::ServerMessage& m : messages) {
    out.push_back({m.client_id,
                   wire::ToParticipant(tag_, m.client_id, std::move(m.message), directory_.get())});
  }
  return out;
}

}  // namespace fedmf::server
