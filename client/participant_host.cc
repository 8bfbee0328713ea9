#include "client/participant_host.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/registry.h"
#include "common/util/event_log.h"
#include "wire/clear_upload.h"
#include "wire/envelope.h"
#include "wire/secagg_params.h"

namespace fedmf::client {
namespace {

constexpr uint32_t kLocalStateFormatVersion = 1;
// A CheckInLater asking for a longer wait is malformed (a device would look lost for good).
constexpr absl::Duration kMaxCheckInDelay = absl::Hours(24);
constexpr char kCatalogueMismatchPayload[] = "type.fedmf.dev/catalogue-mismatch";

// A participant's reply declining the phase (its SecAgg Abort, which the coordinator counts as a
// dropout); `refusal_code` (Abort.refusal_code) is nonzero when its algorithm cannot contribute
// to the plan at all.
v1::ClientMessage Decline(const wire::AggregationTag& tag, uint32_t id, absl::string_view reason,
                          absl::StatusCode refusal_code = absl::StatusCode::kOk) {
  v1::secagg::ClientToServer abort;
  abort.mutable_abort()->set_reason(std::string(reason));
  abort.mutable_abort()->set_refusal_code(static_cast<int32_t>(refusal_code));
  return wire::FromParticipant(tag, id, std::move(abort));
}

}  // namespace

bool IsCatalogueMismatch(const absl::Status& status) {
  return status.GetPayload(kCatalogueMismatchPayload).has_value();
}

absl::StatusOr<std::unique_ptr<ParticipantHost>> ParticipantHost::Create(
    std::shared_ptr<const data::RatingsDataset> data, const std::vector<int32_t>& users,
    std::shared_ptr<const data::RatingsDataset> test, std::optional<uint64_t> insecure_noise_seed) {
  if (test != nullptr &&
      (test->num_users() != data->num_users() || test->num_items() != data->num_items())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "test ratings are ", test->num_users(), " x ", test->num_items(), ", train ratings ",
        data->num_users(), " x ", data->num_items(), ": not one split"));
  }
  absl::StatusOr<crypto::Ed25519PrivateKey> key = crypto::Ed25519PrivateKey::Generate();
  if (!key.ok()) return key.status();
  std::unique_ptr<ParticipantHost> host(
      new ParticipantHost(data, test, std::move(*key), data->num_items()));
  for (int32_t user : users) {
    if (user < 0 || user >= data->num_users()) {
      return absl::InvalidArgumentError(
          absl::StrCat("user ", user, " is outside the dataset (", data->num_users(), " users)"));
    }
    const uint32_t id = static_cast<uint32_t>(user) + 1;
    absl::StatusOr<Participant> p = Participant::Create(
        id,
        algorithms::LocalData::User(data->user(user),
                                    test != nullptr ? test->user(user) : data::RatingRow{}),
        insecure_noise_seed);
    if (!p.ok()) return p.status();
    if (!host->participants_.emplace(id, std::move(*p)).second) {
      return absl::InvalidArgumentError(absl::StrCat("user ", user, " is listed twice"));
    }
  }
  return host;
}

absl::StatusOr<std::unique_ptr<ParticipantHost>> ParticipantHost::CreateParty(
    std::shared_ptr<const algorithms::PartyShard> shard, uint32_t party_id,
    std::optional<uint64_t> insecure_noise_seed) {
  absl::StatusOr<crypto::Ed25519PrivateKey> key = crypto::Ed25519PrivateKey::Generate();
  if (!key.ok()) return key.status();
  absl::StatusOr<Participant> p = Participant::Create(
      party_id, algorithms::LocalData::Party(std::move(shard)), insecure_noise_seed);
  if (!p.ok()) return p.status();
  std::unique_ptr<ParticipantHost> host(
      new ParticipantHost(nullptr, nullptr, std::move(*key), /*num_items=*/0));
  host->participants_.emplace(party_id, std::move(*p));
  return host;
}

absl::StatusOr<std::unique_ptr<ParticipantHost>> ParticipantHost::CreateWithoutData(
    const std::vector<uint32_t>& ids, int32_t num_items, crypto::Ed25519PrivateKey signing_key,
    std::optional<uint64_t> insecure_noise_seed) {
  if (num_items < 1) {
    return absl::InvalidArgumentError(absl::StrCat("num_items must be >= 1, got ", num_items));
  }
  std::unique_ptr<ParticipantHost> host(
      new ParticipantHost(nullptr, nullptr, std::move(signing_key), num_items));
  for (uint32_t id : ids) {
    absl::StatusOr<Participant> p = Participant::Create(id, {}, insecure_noise_seed);
    if (!p.ok()) return p.status();
    if (!host->participants_.emplace(id, std::move(*p)).second) {
      return absl::InvalidArgumentError(absl::StrCat("participant ", id, " is listed twice"));
    }
  }
  return host;
}

absl::Status ParticipantHost::SetRatings(uint32_t id, data::RatingRow train, data::RatingRow test) {
  auto it = participants_.find(id);
  if (it == participants_.end()) {
    return absl::NotFoundError(absl::StrCat("participant ", id, " is not hosted here"));
  }
  it->second.set_ratings(train, test);
  return absl::OkStatus();
}

absl::Status ParticipantHost::SetParticipantBudget(const dp::PrivacyBudget& budget) {
  for (auto& [id, p] : participants_) {
    if (absl::Status s = p.SetBudget(budget); !s.ok()) return s;
  }
  return absl::OkStatus();
}

v1::HostLocalState ParticipantHost::ExportLocalState() const {
  v1::HostLocalState state;
  state.set_format_version(kLocalStateFormatVersion);
  for (const auto& [id, p] : participants_) *state.add_participants() = p.ExportLocalState();
  return state;
}

absl::Status ParticipantHost::RestoreLocalState(const v1::HostLocalState& state) {
  if (state.format_version() != kLocalStateFormatVersion) {
    return absl::InvalidArgumentError(absl::StrCat("local state format version ",
                                                   state.format_version(), ", expected ",
                                                   kLocalStateFormatVersion));
  }
  for (const v1::ParticipantLocalState& saved : state.participants()) {
    Participant* p = FindMutable(saved.participant_id());
    if (p == nullptr) {
      return absl::NotFoundError(
          absl::StrCat("local state of participant ", saved.participant_id(), ", not hosted here"));
    }
    if (absl::Status s = p->RestoreLocalState(saved); !s.ok()) return s;
  }
  return absl::OkStatus();
}

void ParticipantHost::RestoreProgress(int64_t rounds_completed, bool training_done) {
  rounds_completed_ = rounds_completed;
  training_done_ = training_done;
}

absl::Status ParticipantHost::RestoreModel(const v1::RoundPlan& model,
                                           const v1::ModelVersion& published) {
  return AdoptModel(model, "restored model", published);
}

absl::Status ParticipantHost::AdoptPublishedModel(const v1::RoundPlan& model,
                                                  const v1::ModelVersion& version) {
  return AdoptModel(model, absl::StrCat("published model version ", version.version()), version);
}

absl::StatusOr<std::optional<v1::SavedRound>> ParticipantHost::SaveRound(uint32_t id) const {
  const Participant* p = Find(id);
  if (p == nullptr) {
    return absl::NotFoundError(absl::StrCat("participant ", id, " is not hosted here"));
  }
  if (tag_.round < 0) return std::nullopt;
  v1::SavedRound out;
  out.set_round(tag_.round);
  out.set_phase(tag_.phase);
  if (auto keys = neighbor_keys_.find(id); keys != neighbor_keys_.end()) {
    *out.mutable_signing_keys() = keys->second;
  }
  absl::StatusOr<std::optional<v1::secagg::ClientSessionState>> session = p->ExportSession();
  if (!session.ok()) return session.status();
  if (session->has_value()) *out.mutable_session() = std::move(**session);
  return std::optional<v1::SavedRound>(std::move(out));
}

absl::Status ParticipantHost::RestoreRound(uint32_t id, const v1::SavedRound& saved) {
  Participant* p = FindMutable(id);
  if (p == nullptr) {
    return absl::NotFoundError(absl::StrCat("participant ", id, " is not hosted here"));
  }
  if (saved.round() < 0) {
    return absl::InvalidArgumentError(absl::StrCat("restored round ", saved.round(), " < 0"));
  }
  std::shared_ptr<const secagg::SigningKeyDirectory> directory;
  if (!saved.signing_keys().empty()) {
    absl::StatusOr<std::shared_ptr<const secagg::SigningKeyDirectory>> d =
        NeighborKeys(id, saved.round(), saved.signing_keys());
    if (!d.ok()) return d.status();
    directory = std::move(*d);
  }
  if (saved.has_session()) {
    if (absl::Status s = p->RestoreSession(saved.session(), &signing_key_, std::move(directory));
        !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("restored round ", saved.round(), ": ", s.message()));
    }
  }
  // Format version 2 states say `evaluation` instead of a phase.
  tag_ = {saved.round(), saved.evaluation() ? wire::kEvaluationPhase : saved.phase()};
  neighbor_keys_.erase(id);
  // Not `directory`: the session took it. The keys are kept so that the next SaveRound has them.
  if (!saved.signing_keys().empty()) neighbor_keys_.emplace(id, saved.signing_keys());
  return absl::OkStatus();
}

std::vector<uint32_t> ParticipantHost::participant_ids() const {
  std::vector<uint32_t> ids;
  for (const auto& [id, p] : participants_) ids.push_back(id);
  return ids;
}

std::string ParticipantHost::signing_public_key() const {
  const auto& bytes = signing_key_.public_key().bytes();
  return std::string(bytes.begin(), bytes.end());
}

absl::StatusOr<std::shared_ptr<const secagg::SigningKeyDirectory>> ParticipantHost::NeighborKeys(
    uint32_t id, int64_t round,
    const google::protobuf::RepeatedPtrField<v1::SigningKeys>& keys) const {
  absl::StatusOr<std::shared_ptr<secagg::MapSigningKeyDirectory>> directory =
      wire::DirectoryFromProto(keys);
  if (!directory.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("round ", round, ": participant ", id, ": ", directory.status().message()));
  }
  // A coordinator that substituted our own key would show it here (it could still substitute
  // other processes' keys: docs/runtime.md, "Signatures").
  const std::optional<crypto::Ed25519PublicKey> own = (*directory)->Find(id);
  if (!own.has_value() || !(*own == signing_key_.public_key())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "round ", round, ": the signing keys do not list this process's key for participant ", id));
  }
  return std::shared_ptr<const secagg::SigningKeyDirectory>(std::move(*directory));
}

const Participant* ParticipantHost::Find(uint32_t id) const {
  auto it = participants_.find(id);
  return it == participants_.end() ? nullptr : &it->second;
}

Participant* ParticipantHost::FindMutable(uint32_t id) {
  auto it = participants_.find(id);
  return it == participants_.end() ? nullptr : &it->second;
}

absl::StatusOr<std::vector<v1::ClientMessage>> ParticipantHost::Handle(
    const v1::ServerMessage& message) {
  std::vector<v1::ClientMessage> out;
  if (absl::Status s = Handle(message,
                              [&out](v1::ClientMessage reply) {
                                out.push_back(std::move(reply));
                                return absl::OkStatus();
                              });
      !s.ok()) {
    return s;
  }
  return out;
}

absl::Status ParticipantHost::Handle(const v1::ServerMessage& message, const ReplySink& send) {
  const v1::ServerMessage* whole = &message;
  std::optional<wire::Reassembler<v1::ServerMessage>::Complete> complete;
  if (message.has_chunk() && !inbound_.in_progress() && message.chunk().index() > 0) {
    for (v1::ClientMessage& decline : SkipOrphanChunk(message.chunk())) {
      if (absl::Status s = Send(std::move(decline), send); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  if (message.has_chunk()) {
    absl::StatusOr<std::optional<wire::Reassembler<v1::ServerMessage>::Complete>> added =
        inbound_.Add(message);
    if (!added.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("coordinator chunk sequence refused: ", added.status().message()));
    }
    if (!added->has_value()) return absl::OkStatus();
    complete = std::move(*added);
    whole = &complete->message;
  }
  return Dispatch(*whole, send);
}

absl::Status ParticipantHost::Send(v1::ClientMessage reply, const ReplySink& send) const {
  // Above protobuf's limit SerializeAsString only logs and returns an empty string: no chunk would
  // leave and the coordinator would wait out its stage deadline, far from the cause.
  if (const size_t bytes = reply.ByteSizeLong(); bytes > wire::kMaxParseBytes) {
    const wire::Tag tag = wire::TagOf(reply);
    return absl::ResourceExhaustedError(
        absl::StrCat("participant ", tag.participant_id, ": the reply for round ", tag.round,
                     " phase ", tag.phase, " is ", bytes, " bytes, over protobuf's ",
                     wire::kMaxParseBytes, "-byte message limit"));
  }
  for (v1::ClientMessage& piece : wire::Split(std::move(reply), chunk_bytes_)) {
    if (absl::Status s = send(std::move(piece)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

std::vector<v1::ClientMessage> ParticipantHost::SkipOrphanChunk(const v1::Chunk& chunk) {
  const wire::AggregationTag tag{.round = chunk.round(), .phase = chunk.phase()};
  const bool first = !orphan_.has_value() || orphan_->round() != chunk.round() ||
                     orphan_->participant_id() != chunk.participant_id() ||
                     orphan_->phase() != chunk.phase() || orphan_->index() >= chunk.index();
  orphan_ = chunk;
  orphan_->clear_data();
  if (chunk.index() + 1 >= chunk.count()) orphan_.reset();  // the sequence's last chunk
  std::vector<v1::ClientMessage> replies;
  if (!first) return replies;
  // The message is lost to its addressees (a task or result names none: all of this host's); an
  // Abort for an aggregation they are not in, or that is over, changes nothing at the coordinator.
  for (auto& [id, p] : participants_) {
    if (chunk.participant_id() != 0 && chunk.participant_id() != id) continue;
    p.EndRound();
    replies.push_back(Decline(tag, id,
                              absl::StrCat("lost chunks 0-", chunk.index() - 1, " of ",
                                           chunk.count(), " (restored between two chunks)")));
  }
  return replies;
}

absl::Status ParticipantHost::Dispatch(const v1::ServerMessage& message, const ReplySink& send) {
  switch (message.message_case()) {
    case v1::ServerMessage::kTask:
      return HandleTask(message.task(), send);
    case v1::ServerMessage::kSecagg: {
      absl::StatusOr<std::vector<v1::ClientMessage>> replies = HandleSecAgg(message.secagg());
      if (!replies.ok()) return replies.status();
      for (v1::ClientMessage& reply : *replies) {
        if (absl::Status s = Send(std::move(reply), send); !s.ok()) return s;
      }
      return absl::OkStatus();
    }
    case v1::ServerMessage::kResult: {
      const absl::Status handled = HandleResult(message.result());
      if (result_observer_) result_observer_(message.result());
      return handled;
    }
    case v1::ServerMessage::kCheckInLater: {
      const int64_t ms = message.check_in_later().retry_after_ms();
      if (ms <= 0 || ms > absl::ToInt64Milliseconds(kMaxCheckInDelay)) {
        return absl::InvalidArgumentError(
            absl::StrCat("CheckInLater.retry_after_ms ", ms, " is outside [1, ",
                         absl::ToInt64Milliseconds(kMaxCheckInDelay), "]"));
      }
      check_in_ = absl::Milliseconds(ms);
      return absl::OkStatus();
    }
    default:
      return absl::InvalidArgumentError("coordinator message with no content");
  }
}

absl::Status ParticipantHost::HandleTask(const v1::RoundTask& task, const ReplySink& send) {
  if (task.simulation_plain_sum() && !allow_simulation_plain_sum_) {
    return absl::PermissionDeniedError(absl::StrCat(
        "round ", task.round(), ": refusing to upload in the clear (simulation_plain_sum)"));
  }
  const bool clear =
      task.plan().combination() == v1::COMBINATION_CLEAR || task.simulation_plain_sum();
  if (task.plan().combination() != v1::COMBINATION_CLEAR &&
      task.plan().combination() != v1::COMBINATION_SECURE_SUM) {
    return absl::InvalidArgumentError(
        absl::StrCat("round ", task.round(), ": unknown combination ", task.plan().combination()));
  }
  std::optional<secagg::SessionConfig> config;
  if (!clear) {
    absl::StatusOr<secagg::SessionConfig> c = wire::FromProto(task.secagg());
    if (!c.ok()) return c.status();
    if (c->bits != task.plan().bits() || c->length != task.plan().length()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "round ", task.round(), ": SecAgg bits/length (", c->bits, "/", c->length,
          ") differ from the plan's (", task.plan().bits(), "/", task.plan().length(), ")"));
    }
    config = *c;
  }
  if (absl::Status s =
          BeginTask({task.round(), task.plan().phase()}, task.participant_ids(), task.plan());
      !s.ok()) {
    return s;
  }
  // fedmf-sim --summed_uploads: the contributions go into one sum, which the first contributor
  // uploads after everyone else has contributed; the others upload zero.
  std::unique_ptr<algorithms::ContributionSum> sum =
      clear && allow_simulation_summed_uploads_ ? phase_contributor_->StartSum() : nullptr;
  std::optional<uint32_t> sum_carrier;
  // The batch being built: its replies and the participants they answer for.
  std::vector<v1::ClientMessage> batch;
  std::vector<uint32_t> batch_ids;
  size_t batch_bytes = 0;
  for (uint32_t id : task.participant_ids()) {
    Participant& p = participants_.at(id);
    absl::StatusOr<algorithms::ContributionVector> contribution =
        p.Contribute(*phase_contributor_, task.plan().algorithm(), sum.get());
    // Its own budget is spent (ResourceExhausted), its own state cannot serve this phase
    // (FailedPrecondition, algorithm.h) or the algorithm cannot take this participant's
    // contribution (InvalidArgument, e.g. a silo party's algorithm given users): it declines, and
    // the coordinator sees a dropout with the reason. The last two are refusals, sent with their
    // code: when every member of an attempt refuses alike, no retry helps (docs/runtime.md).
    const absl::StatusCode code = contribution.status().code();
    if (code == absl::StatusCode::kResourceExhausted ||
        code == absl::StatusCode::kFailedPrecondition ||
        code == absl::StatusCode::kInvalidArgument) {
      EventLine("participant_declined")
          .Add("participant", id)
          .Add("round", task.round())
          .Add("phase", task.plan().phase())
          .Add("code", absl::StatusCodeToString(code))
          .Add("reason", contribution.status().message());
      batch.push_back(
          Decline(tag_, id, contribution.status().message(),
                  code == absl::StatusCode::kResourceExhausted ? absl::StatusCode::kOk : code));
    } else if (!contribution.ok()) {
      return contribution.status();
    } else if (sum != nullptr && !sum_carrier.has_value()) {
      sum_carrier = id;  // answers last
      continue;
    } else if (sum != nullptr) {
      *batch.emplace_back().mutable_clear_upload() =
          wire::ToClearUpload(tag_, id, algorithms::ContributionVector::Sparse({}, {}));
    } else if (clear) {
      *batch.emplace_back().mutable_clear_upload() = wire::ToClearUpload(tag_, id, *contribution);
    } else {
      absl::StatusOr<v1::secagg::ClientToServer> advertise =
          p.OpenSession(*config, *contribution, &signing_key_);
      if (!advertise.ok()) return advertise.status();
      batch.push_back(wire::FromParticipant(tag_, id, std::move(*advertise)));
    }
    batch_ids.push_back(id);
    batch_bytes += batch.back().ByteSizeLong();
    if (batch_bytes >= reply_batch_bytes_) {
      if (absl::Status s = SendBatch(task.round(), batch_ids, batch, send); !s.ok()) return s;
      batch_bytes = 0;
    }
  }
  if (sum_carrier.has_value()) {
    absl::StatusOr<algorithms::ContributionVector> total =
        participants_.at(*sum_carrier).EncodeSum(*sum);
    if (!total.ok()) return total.status();
    *batch.emplace_back().mutable_clear_upload() = wire::ToClearUpload(tag_, *sum_carrier, *total);
    batch_ids.push_back(*sum_carrier);
  }
  return SendBatch(task.round(), batch_ids, batch, send);
}

absl::Status ParticipantHost::SendBatch(int64_t round, std::vector<uint32_t>& ids,
                                        std::vector<v1::ClientMessage>& batch,
                                        const ReplySink& send) {
  if (local_state_sink_ && !batch.empty()) {
    if (absl::Status s = local_state_sink_(ExportLocalState()); !s.ok()) {
      for (uint32_t id : ids) participants_.at(id).EndRound();
      return absl::Status(s.code(), absl::StrCat("round ", round,
                                                 ": local state not persisted, "
                                                 "nothing more sent: ",
                                                 s.message()));
    }
  }
  for (v1::ClientMessage& reply : batch) {
    if (absl::Status s = Send(std::move(reply), send); !s.ok()) return s;
  }
  batch.clear();
  ids.clear();
  return absl::OkStatus();
}

absl::Status ParticipantHost::BeginTask(const wire::AggregationTag& tag,
                                        const google::protobuf::RepeatedField<uint32_t>& ids,
                                        const v1::RoundPlan& plan) {
  for (uint32_t id : ids) {
    if (!participants_.contains(id)) {
      return absl::InvalidArgumentError(absl::StrCat("round ", tag.round,
                                                     ": task names participant ", id,
                                                     " which this process does not host"));
    }
  }
  absl::StatusOr<const algorithms::AlgorithmDefinition*> algorithm =
      algorithms::FindAlgorithm(plan.algorithm());
  if (!algorithm.ok()) return algorithm.status();
  absl::StatusOr<std::unique_ptr<algorithms::Contributor>> contributor =
      (*algorithm)->make_contributor(plan);
  if (!contributor.ok()) return contributor.status();
  // As a plain-sum task: refused before anything is contributed or the host's model changes.
  if ((*contributor)->uploads_without_noise() && !allow_simulation_plain_sum_) {
    return absl::PermissionDeniedError(
        absl::StrCat("round ", tag.round,
                     ": refusing to upload without noise (the plan's simulation_summed_noise)"));
  }
  const bool carries_model = (*contributor)->carries_model();
  if (carries_model) {
    if (absl::Status s =
            CheckCatalogue(**contributor, absl::StrCat("round ", tag.round, ": the model"));
        !s.ok()) {
      return s;
    }
  }
  phase_contributor_ = *std::move(contributor);
  if (carries_model && !(*algorithm)->contributor_only()) {
    contributor_ = phase_contributor_;
    model_ = plan;
    published_model_.Clear();
    ++model_version_;
  }
  tag_ = tag;
  neighbor_keys_.clear();
  return absl::OkStatus();
}

absl::StatusOr<std::vector<v1::ClientMessage>> ParticipantHost::HandleSecAgg(
    const v1::ServerToParticipant& m) {
  auto it = participants_.find(m.participant_id());
  if (it == participants_.end()) {
    return absl::InvalidArgumentError(absl::StrCat("SecAgg message for participant ",
                                                   m.participant_id(),
                                                   " which this process does not host"));
  }
  if (wire::TagOf(m) != tag_) {
    return absl::FailedPreconditionError(absl::StrCat("SecAgg message of round ", m.round(),
                                                      " phase ", m.phase(), " during round ",
                                                      tag_.round, " phase ", tag_.phase));
  }
  std::vector<v1::ClientMessage> replies;
  std::shared_ptr<const secagg::SigningKeyDirectory> neighbor_keys;
  if (m.message().has_share_keys() && !m.signing_keys().empty()) {
    absl::StatusOr<std::shared_ptr<const secagg::SigningKeyDirectory>> keys =
        NeighborKeys(m.participant_id(), m.round(), m.signing_keys());
    if (!keys.ok()) {  // as the session answers a malformed request: it aborts
      it->second.EndRound();
      replies.push_back(Decline(tag_, m.participant_id(), keys.status().message()));
      return replies;
    }
    neighbor_keys = std::move(*keys);
    neighbor_keys_.insert_or_assign(m.participant_id(), m.signing_keys());
  }
  absl::StatusOr<std::optional<v1::secagg::ClientToServer>> reply =
      it->second.Handle(m.message(), std::move(neighbor_keys));
  if (!reply.ok()) return reply.status();
  if (reply->has_value()) {
    replies.push_back(wire::FromParticipant(tag_, m.participant_id(), std::move(**reply)));
  }
  return replies;
}

absl::Status ParticipantHost::HandleResult(const v1::RoundResult& result) {
  for (auto& [id, p] : participants_) p.EndRound();
  rounds_completed_ = std::max(rounds_completed_, result.rounds_completed());
  if (result.run_done()) {
    // The service's next run counts its rounds from 0 and its participants start afresh; persisted
    // at once, so a restart before the next run's first task does not bring the states back.
    for (auto& [id, p] : participants_) p.EndRun();
    rounds_completed_ = 0;
    if (local_state_sink_) {
      if (absl::Status s = local_state_sink_(ExportLocalState()); !s.ok()) return s;
    }
  } else if (result.training_done()) {
    training_done_ = true;
  } else {
    return absl::OkStatus();
  }
  if (!result.has_final_model()) return absl::OkStatus();
  return AdoptModel(result.final_model(), "final model", result.final_model_version());
}

absl::Status ParticipantHost::AdoptModel(const v1::RoundPlan& plan, absl::string_view what,
                                         const v1::ModelVersion& published) {
  absl::StatusOr<const algorithms::AlgorithmDefinition*> algorithm =
      algorithms::FindAlgorithm(plan.algorithm());
  if (algorithm.ok() && (*algorithm)->contributor_only()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": algorithm '", plan.algorithm(),
                                                   "' only evaluates a model, it has none"));
  }
  absl::StatusOr<std::unique_ptr<algorithms::Contributor>> contributor =
      algorithms::MakeContributor(plan);
  if (!contributor.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", contributor.status().message()));
  }
  if (!(*contributor)->carries_model()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": phase ", plan.phase(), " of '",
                                                   plan.algorithm(), "' carries no model"));
  }
  if (absl::Status s = CheckCatalogue(**contributor, what); !s.ok()) return s;
  contributor_ = std::move(*contributor);
  model_ = plan;
  published_model_ = published;
  ++model_version_;
  return absl::OkStatus();
}

absl::Status ParticipantHost::CheckCatalogue(const algorithms::Contributor& model,
                                             absl::string_view what) const {
  const int32_t model_items = model.scorer().num_items();
  if (num_items_ == 0 || model_items == num_items_) return absl::OkStatus();
  absl::Status mismatch = absl::FailedPreconditionError(absl::StrCat(
      what, " has ", model_items, " items, this client's catalogue ", num_items_,
      ": it can neither train nor recommend with it (configure the catalogue the coordinator "
      "trains, its --num_items)"));
  mismatch.SetPayload(kCatalogueMismatchPayload, absl::Cord(absl::StrCat(model_items)));
  return mismatch;
}

}  // namespace fedmf::client
