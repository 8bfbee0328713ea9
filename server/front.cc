#include "server/front.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <utility>
#include <variant>

#include "absl/strings/str_format.h"
#include "common/util/event_log.h"
#include "crypto/secagg/server_session.h"

namespace fedmf::server {

Front::Front(const CoordinatorOptions& options, Clock& clock, Link link)
    : options_(options), link_(std::move(link)), streams_(options_, clock, mu_, *this) {}

absl::Status Front::Register(const v1::RegisterRequest& request, v1::RegisterResponse& response,
                             absl::string_view identity) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!attached_) {
      return absl::UnavailableError(
          "this front has no combiner at the moment: try again, or another front");
    }
  }
  absl::StatusOr<std::string> token = streams_.Register(request, identity);
  if (!token.ok()) return token.status();
  response.set_session_token(*token);
  std::lock_guard<std::mutex> lock(mu_);
  response.set_current_round(current_round_);
  response.set_training_done(training_done_);
  NameLatestModel(response);
  return absl::OkStatus();
}

void Front::Receive(v1::CombinerMessage message) {
  switch (message.message_case()) {
    case v1::CombinerMessage::kWelcome: {
      v1::Welcome& welcome = *message.mutable_welcome();
      // Kept before the front serves anyone, so that every registration names the newest.
      for (v1::StoredModel& model : *welcome.mutable_models()) KeepModel(std::move(model));
      streams_.SetNumUsers(welcome.num_users());
      // The combiner's check-in, so that every front sends its streams away alike (a period
      // that is not positive, or a window that is not: none).
      const auto seconds = [](double s) { return s > 0 ? absl::Seconds(s) : absl::ZeroDuration(); };
      streams_.SetCheckIn(seconds(welcome.check_in_period_s()),
                          seconds(welcome.check_in_window_s()));
      std::lock_guard<std::mutex> lock(mu_);
      training_done_ = welcome.training_done();
      // A new link's combiner knows none of the streams: each is reported again. (A Welcome on
      // the same link says that a service's next run has another participant range.)
      if (!attached_) reported_streams_.clear();
      attached_ = true;
      StreamsChanged();
      break;
    }
    case v1::CombinerMessage::kModel:
      KeepModel(std::move(*message.mutable_model()));
      break;
    case v1::CombinerMessage::kOpen: {
      std::lock_guard<std::mutex> lock(mu_);
      OpenTask(message.open());
      break;
    }
    case v1::CombinerMessage::kRoute: {
      std::lock_guard<std::mutex> lock(mu_);
      RouteEnvelopes(*message.mutable_route());
      break;
    }
    case v1::CombinerMessage::kSeal: {
      std::lock_guard<std::mutex> lock(mu_);
      const wire::AggregationTag tag{.round = message.seal().round(),
                                     .phase = message.seal().phase()};
      if (masked_input_.has_value() && masked_input_->tag() == tag) {
        SendPartialIf(/*seal=*/true);  // nothing when it went already
      } else {
        // Nothing to sum for it here: say so, so that the combiner stops waiting.
        v1::FrontMessage none;
        none.mutable_partial()->set_round(tag.round);
        none.mutable_partial()->set_phase(tag.phase);
        link_(std::move(none));
      }
      break;
    }
    case v1::CombinerMessage::kResult: {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (message.result().training_done()) training_done_ = true;
        Close();
      }
      streams_.Broadcast(message.result());
      break;
    }
    case v1::CombinerMessage::kRelease: {
      {
        std::lock_guard<std::mutex> lock(mu_);
        Close();
      }
      streams_.ReleaseRound();  // reports the streams it sent away first
      v1::FrontMessage released;
      released.mutable_released();
      link_(std::move(released));
      break;
    }
    case v1::CombinerMessage::kEndStreams: {
      std::vector<std::pair<std::shared_ptr<Connection>, absl::Status>> ended;
      {
        std::lock_guard<std::mutex> lock(mu_);
        for (const v1::EndStreams::End& end : message.end_streams().streams()) {
          const auto it = reported_streams_.find(end.stream());
          if (it == reported_streams_.end()) continue;  // it ended meanwhile
          ended.emplace_back(
              it->second, absl::Status(static_cast<absl::StatusCode>(end.code()), end.message()));
        }
      }
      for (const auto& [stream, status] : ended) streams_.EndStream(stream, status);
      break;
    }
    case v1::CombinerMessage::kCloseAll:
      streams_.CloseAll(absl::Status(static_cast<absl::StatusCode>(message.close_all().code()),
                                     message.close_all().message()));
      break;
    case v1::CombinerMessage::MESSAGE_NOT_SET:
      break;
  }
}

void Front::KeepModel(v1::StoredModel model) {
  // Hashed outside mu_: a model can be megabytes.
  const int64_t version = model.version().version();
  if (options_.models == nullptr) return;
  if (absl::Status kept = options_.models->Keep(std::move(model)); !kept.ok()) {
    EventLine("model_refused").Add("version", version).Add("error", kept.ToString());
  }
}

void Front::CombinerLost() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    attached_ = false;
    Close();
  }
  streams_.CloseAll(absl::UnavailableError("the front lost its combiner: reconnect"));
}

void Front::ReportStats() {
  v1::StatusResponse figures;
  streams_.AddTo(figures);
  v1::FrontMessage message;
  v1::FrontStatus& stats = *message.mutable_stats();
  stats.set_streams(figures.connected_clients());
  stats.set_users(figures.registered_users());
  stats.set_device_bytes_in(figures.bytes_in());
  stats.set_device_bytes_out(figures.bytes_out());
  stats.set_checked_in_streams(figures.checked_in_streams());
  std::lock_guard<std::mutex> lock(mu_);
  if (attached_) link_(std::move(message));
}

void Front::OpenTask(const v1::Open& open) {
  const v1::RoundTask& task = open.task();
  const wire::AggregationTag tag{.round = task.round(), .phase = task.plan().phase()};
  open_ = OpenAggregation{.tag = tag, .members = {open.members().begin(), open.members().end()}};
  current_round_ = task.round();
  masked_input_.reset();  // a new aggregation (a retry has its failed attempt's tag)
  if (task.has_secagg()) {
    absl::StatusOr<FrontAggregation> stage = FrontAggregation::Create(tag, task.secagg());
    if (stage.ok()) {
      masked_input_ = *std::move(stage);
    } else {
      // The combiner's session refuses such parameters too; its members' inputs go up as they
      // are, for it to judge.
      EventLine("front_partial_sum_off").Add("reason", stage.status().message());
    }
  }
  DropUnreachable(streams_.Open(task, {open.members().begin(), open.members().end()}));
}

void Front::RouteEnvelopes(v1::Route& route) {
  Aggregation::Envelopes envelopes;
  envelopes.reserve(route.envelopes_size());
  for (v1::Route::Envelope& envelope : *route.mutable_envelopes()) {
    const v1::ServerToParticipant& secagg = envelope.message().secagg();
    if (masked_input_.has_value() && secagg.message().has_masked_input() &&
        wire::TagOf(secagg) == masked_input_->tag()) {
      masked_input_->Requested(envelope.participant_id(), secagg.message().masked_input());
    }
    envelopes.push_back({.participant_id = envelope.participant_id(),
                         .message = std::move(*envelope.mutable_message())});
  }
  DropUnreachable(streams_.Route(std::move(envelopes)));
  SendPartialIf(/*seal=*/false);
}

bool Front::Deliver(AggregationInbox::Delivery delivery) {
  v1::Relayed::Item item;
  bool member_dropped = false;
  if (auto* secagg = std::get_if<AggregationInbox::SecAggMessage>(&delivery)) {
    const uint32_t id = secagg->participant_id;
    if (masked_input_.has_value() && wire::TagOf(secagg->message) == masked_input_->tag()) {
      const FrontAggregation::Outcome outcome = masked_input_->Accept(secagg->message);
      switch (outcome.verdict) {
        case FrontAggregation::Verdict::kRelay:
          break;
        case FrontAggregation::Verdict::kSummed:
          SendPartialIf(/*seal=*/false);
          return false;
        case FrontAggregation::Verdict::kRejected: {
          // As the session answers a rejected message: the device is told why and is out.
          const std::string reason = absl::StrFormat("client %d: %s", id, outcome.reason);
          Aggregation::Envelopes abort;
          abort.push_back({.participant_id = id,
                           .message = wire::ToParticipant(masked_input_->tag(), id,
                                                          secagg::AbortMessage(reason))});
          streams_.Route(std::move(abort));
          item.mutable_rejected()->set_participant_id(id);
          item.mutable_rejected()->set_reason(reason);
          Relay(std::move(item));
          SendPartialIf(/*seal=*/false);
          return false;
        }
        case FrontAggregation::Verdict::kHeld:
        case FrontAggregation::Verdict::kLate:
          return false;
      }
    }
    *item.mutable_secagg() = std::move(secagg->message);
  } else if (auto* upload = std::get_if<v1::ClearUpload>(&delivery)) {
    *item.mutable_clear_upload() = std::move(*upload);
  } else if (auto* dropped = std::get_if<AggregationInbox::Dropped>(&delivery)) {
    const uint32_t id = dropped->participant_id;
    // Only the aggregation's members matter to it (a stream's other users are live no more,
    // which StreamsChanged says).
    if (!open_.has_value() || !open_->members.contains(id)) return false;
    member_dropped = true;
    if (masked_input_.has_value() && masked_input_->Drop(id) == FrontAggregation::Verdict::kHeld) {
      return true;
    }
    item.set_dropped(id);
  } else {
    return false;  // a partial sum comes from fronts, never from a device
  }
  Relay(std::move(item));
  if (member_dropped) SendPartialIf(/*seal=*/false);
  return member_dropped;
}

void Front::StreamsChanged() {
  v1::FrontMessage message;
  v1::StreamsChanged& changed = *message.mutable_streams();
  std::map<uint64_t, std::shared_ptr<Connection>> streams;
  for (std::shared_ptr<Connection>& stream : streams_.Streams()) {
    const uint64_t id = stream->id();
    if (!reported_streams_.contains(id)) {
      const Registration& registration = *streams_.RegistrationOf(*stream);
      v1::StreamsChanged::Bound& bound = *changed.add_bound();
      bound.set_stream(id);
      bound.set_name(registration.name);
      bound.set_identity(registration.identity);
      bound.set_credential(registration.credential);
      bound.set_signing_key(registration.signing_key);
      bound.mutable_participant_ids()->Add(registration.participant_ids.begin(),
                                           registration.participant_ids.end());
      bound.set_accepts_check_in(registration.accepts_check_in);
    }
    streams.emplace(id, std::move(stream));
  }
  for (const auto& [id, stream] : reported_streams_) {
    if (!streams.contains(id)) changed.add_closed(id);
  }
  reported_streams_ = std::move(streams);
  if (changed.bound().empty() && changed.closed().empty()) return;
  link_(std::move(message));
}

void Front::SendPartialIf(bool seal) {
  if (!masked_input_.has_value() || masked_input_->sealed()) return;
  if (!seal && !masked_input_->Due()) return;
  FrontAggregation::Sealed sealed = masked_input_->Seal();
  v1::FrontMessage partial;
  *partial.mutable_partial() = std::move(sealed.partial);
  link_(std::move(partial));
  if (sealed.held.empty()) return;
  v1::FrontMessage held;
  for (v1::Relayed::Item& item : sealed.held) {
    *held.mutable_relayed()->add_items() = std::move(item);
  }
  link_(std::move(held));
}

void Front::DropUnreachable(const std::vector<uint32_t>& ids) {
  for (uint32_t id : ids) Deliver(AggregationInbox::Dropped{.participant_id = id});
}

void Front::Relay(v1::Relayed::Item item) {
  v1::FrontMessage message;
  *message.mutable_relayed()->add_items() = std::move(item);
  link_(std::move(message));
}

void Front::Close() {
  open_.reset();
  masked_input_.reset();
}

}  // namespace fedmf::server
