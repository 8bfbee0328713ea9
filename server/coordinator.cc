#include "server/coordinator.h"

#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dp/privacy_cost.h"
#include "common/dp/privacy_unit.h"
#include "common/util/event_log.h"
#include "server/traffic_report.h"

namespace fedmf::server {
namespace {

grpc::Status ToGrpc(const absl::Status& s) {
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(s.message()));
}

// kEvalEveryAuto becomes kDefaultEvalEvery for a run without DP noise and 0 for a private run;
// evaluation asked for in a private run is allowed with a warning where it is seen.
CoordinatorOptions ResolveEvalEvery(CoordinatorOptions options,
                                    const algorithms::Updater& updater) {
  const bool private_run = updater.budget().has_value();
  if (options.eval_every == CoordinatorOptions::kEvalEveryAuto) {
    options.eval_every = private_run ? 0 : CoordinatorOptions::kDefaultEvalEvery;
  } else if (options.eval_every > 0 && private_run) {
    EventLine("warning")
        .Add("eval_every", options.eval_every)
        .Add("effect",
             "federated evaluation releases metric sums without DP noise; the run's privacy "
             "guarantee does not cover them (docs/runtime.md)");
    std::fprintf(stderr,
                 "WARNING: federated evaluation every %lld rounds releases the cohort's metric "
                 "sums without DP noise: the run's privacy guarantee does not cover them\n",
                 static_cast<long long>(options.eval_every));
  }
  return options;
}

}  // namespace

Coordinator::Coordinator(CoordinatorOptions options, CoordinatorState state)
    : options_(ResolveEvalEvery(std::move(options), *state.updater)),
      state_(std::move(state)),
      registry_(options_.enrollment_token, options_.num_users, options_.pending_registrations),
      upload_budget_(options_.max_upload_buffer_bytes) {
  registry_.set_max_streams_per_identity(options_.max_streams_per_identity);
  if (options_.credentials) registry_.set_credentials(options_.credentials);
}

grpc::Status Coordinator::Register(const v1::RegisterRequest& request,
                                   v1::RegisterResponse& response, absl::string_view identity) {
  bytes_in_ += static_cast<int64_t>(request.ByteSizeLong());
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<std::string> token = registry_.Register(request, identity);
  EventLine line("register");
  line.Add("client", request.client_name().substr(0, 128));
  if (!identity.empty()) line.Add("identity", identity);
  line.Add("users", request.participant_ids_size())
      .Add("status", token.ok() ? std::string("OK") : token.status().ToString());
  if (!token.ok()) return ToGrpc(token.status());
  if (state_.population.frozen()) {
    const std::vector<uint32_t> outsiders = state_.population.Outsiders(
        {request.participant_ids().data(), static_cast<size_t>(request.participant_ids_size())});
    if (!outsiders.empty()) {
      EventLine("not_in_population")
          .Add("client", request.client_name().substr(0, 128))
          .Add("users", outsiders.size())
          .Add("population", state_.population.size())
          .Add("effect", "registered after the fixed population froze: never invited");
    }
  }
  response.set_session_token(*token);
  response.set_current_round(state_.updater->round());
  response.set_training_done(stage_ == "done");
  return grpc::Status::OK;
}

bool Coordinator::KnowsSessionToken(absl::string_view session_token) {
  std::lock_guard<std::mutex> lock(mu_);
  return registry_.HoldsPending(session_token);
}

grpc::Status Coordinator::OnStreamOpen(const std::shared_ptr<Connection>& connection,
                                       absl::string_view session_token) {
  std::unique_lock<std::mutex> lock(mu_);
  absl::StatusOr<Registry::Takeover> replaced = registry_.Bind(session_token, connection);
  EventLine line("stream_open");
  line.Add("client", registry_.NameOf(connection.get())).Add("peer", connection->peer());
  if (const std::string identity = registry_.IdentityOf(connection.get()); !identity.empty()) {
    line.Add("identity", identity);
  }
  line.Add("status", replaced.status().ToString());
  if (!replaced.ok()) return ToGrpc(replaced.status());
  if (!replaced->streams.empty()) line.Add("replaced_streams", replaced->streams.size());
  // The same credential reconnected: its old streams are over. Their users stay, on this one,
  // but they missed what the round in progress sent them there: they drop out of it.
  if (aggregation_ != nullptr) {
    for (uint32_t id : replaced->participant_ids) aggregation_->Drop(id);
  }
  cv_.notify_all();  // the driver may be waiting for users
  lock.unlock();
  for (const std::shared_ptr<Connection>& old : replaced->streams) {
    // A refusal, so that a second live copy of a client stops instead of taking its ids back.
    old->Close(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                            "replaced by a newer stream of the same credential"));
  }
  return grpc::Status::OK;
}

grpc::Status Coordinator::OnClientMessage(const std::shared_ptr<Connection>& connection,
                                          const v1::ClientMessage& message) {
  const int64_t size = static_cast<int64_t>(message.ByteSizeLong());
  bytes_in_ += size;
  if (message.has_chunk()) return HandleChunk(connection, message);
  std::lock_guard<std::mutex> lock(mu_);
  grpc::Status status;
  if (!registry_.IsBound(connection.get())) {  // ended by a takeover while this was in flight
    status = grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "the stream is no longer bound");
  } else {
    traffic_.AddUp(wire::StageOf(message), size);
    status = Dispatch(connection, message);
  }
  // A refusal ends the stream (the reactor finishes it with this status): one line per stream.
  if (!status.ok()) LogRefused(*connection, status);
  return status;
}

int Coordinator::EndRevokedStreams(const std::function<bool(absl::string_view identity)>& revoked) {
  std::vector<std::pair<std::shared_ptr<Connection>, std::string>> streams;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::shared_ptr<Connection>& c : registry_.Connections()) {
      std::string identity = registry_.IdentityOf(c.get());
      if (!identity.empty()) streams.emplace_back(std::move(c), std::move(identity));
    }
  }
  int ended = 0;
  for (const auto& [connection, identity] : streams) {
    if (!revoked(identity)) continue;
    EventLine("stream_revoked")
        .Add("identity", identity)
        .Add("peer", connection->peer())
        .Add("effect", "stream ended; its users drop out");
    connection->Close(grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                                   absl::StrCat("identity '", identity, "' is revoked")));
    ++ended;
  }
  return ended;
}

int Coordinator::EndStalledUploads(absl::Time now) {
  std::vector<std::pair<std::shared_ptr<Connection>, absl::Time>> stalled;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::shared_ptr<Connection>& c : registry_.Connections()) {
      const std::optional<absl::Time> started = c->upload().started();
      if (started && now - *started > options_.upload_timeout) {
        EventLine("upload_stalled")
            .Add("client", registry_.NameOf(c.get()))
            .Add("peer", c->peer())
            .Add("seconds", absl::ToInt64Seconds(now - *started))
            .Add("effect", "stream ended; its users drop out");
        stalled.emplace_back(std::move(c), *started);
      }
    }
  }
  for (const auto& [connection, started] : stalled) {
    connection->Close(grpc::Status(
        grpc::StatusCode::DEADLINE_EXCEEDED,
        absl::StrCat("chunked upload incomplete after ", absl::FormatDuration(now - started))));
  }
  return static_cast<int>(stalled.size());
}

void Coordinator::OnMessageRefused(const std::shared_ptr<Connection>& connection,
                                   const grpc::Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  LogRefused(*connection, status);
}

void Coordinator::LogRefused(const Connection& connection, const grpc::Status& status) const {
  EventLine("message_refused")
      .Add("client",
           registry_.IsBound(&connection) ? registry_.NameOf(&connection) : std::string("unbound"))
      .Add("peer", connection.peer())
      .Add("code", static_cast<int>(status.error_code()))
      .Add("reason", status.error_message());
}

grpc::Status Coordinator::HandleChunk(const std::shared_ptr<Connection>& connection,
                                      const v1::ClientMessage& message) {
  const uint32_t id = message.chunk().participant_id();
  {
    // Checked before any memory is spent on the sequence.
    std::lock_guard<std::mutex> lock(mu_);
    traffic_.AddChunksUp(1);
    if (!registry_.Owns(connection.get(), id)) {
      const grpc::Status refused(
          grpc::StatusCode::PERMISSION_DENIED,
          absl::StrCat("chunk for participant ", id, " not hosted by this stream"));
      LogRefused(*connection, refused);
      return refused;
    }
  }
  absl::StatusOr<std::optional<ChunkedUpload::Complete>> complete =
      connection->upload().Add(message, upload_budget_, options_.max_upload_bytes, absl::Now());
  std::lock_guard<std::mutex> lock(mu_);
  if (!complete.ok()) {
    EventLine("chunks_rejected")
        .Add("client", registry_.NameOf(connection.get()))
        .Add("participant", id)
        .Add("reason", complete.status().message());
    const grpc::Status refused(
        complete.status().code() == absl::StatusCode::kResourceExhausted
            ? grpc::StatusCode::RESOURCE_EXHAUSTED
            : grpc::StatusCode::INVALID_ARGUMENT,
        absl::StrCat("chunk sequence refused: ", complete.status().message()));
    LogRefused(*connection, refused);
    return refused;
  }
  if (!complete->has_value()) return grpc::Status::OK;
  const v1::ClientMessage& whole = (*complete)->message;
  traffic_.AddUp(wire::StageOf(whole), static_cast<int64_t>((*complete)->wire_bytes));
  const grpc::Status status = Dispatch(connection, whole);
  connection->upload().Release(upload_budget_);  // handled: the parsed message goes next
  if (!status.ok()) LogRefused(*connection, status);
  return status;
}

grpc::Status Coordinator::Dispatch(const std::shared_ptr<Connection>& connection,
                                   const v1::ClientMessage& message) {
  if (message.has_clear_upload()) return HandleClearUpload(*connection, message.clear_upload());
  if (!message.has_secagg()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "expected a SecAgg message");
  }
  const uint32_t id = message.secagg().participant_id();
  if (!registry_.Owns(connection.get(), id)) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        absl::StrCat("participant ", id, " is not hosted by this stream"));
  }
  if (aggregation_ == nullptr) return grpc::Status::OK;  // late message of a finished round
  Aggregation::Delivery delivery = aggregation_->DeliverSecAgg(id, message.secagg());
  if (!delivery.rejected.empty()) {
    EventLine("participant_rejected").Add("participant", id).Add("reason", delivery.rejected);
  }
  Route(std::move(delivery.replies));
  if (aggregation_->ReadyToClose()) cv_.notify_all();
  return grpc::Status::OK;
}

void Coordinator::OnStreamClosed(const std::shared_ptr<Connection>& connection) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string name = registry_.NameOf(connection.get());
  const std::vector<uint32_t> ids = registry_.Unbind(connection.get());
  connection->upload().Abandon(upload_budget_);  // the reader is done: OnDone follows it
  int dropped = 0;
  if (aggregation_ != nullptr) {
    for (uint32_t id : ids) dropped += aggregation_->Drop(id) ? 1 : 0;
  }
  cv_.notify_all();
  EventLine("stream_closed")
      .Add("client", name)
      .Add("peer", connection->peer())
      .Add("users", ids.size())
      .Add("dropped_in_round", dropped);
}

grpc::Status Coordinator::HandleClearUpload(const Connection& connection,
                                            const v1::ClearUpload& upload) {
  const uint32_t id = upload.participant_id();
  if (!registry_.Owns(&connection, id)) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        absl::StrCat("participant ", id, " is not hosted by this stream"));
  }
  if (aggregation_ == nullptr) return grpc::Status::OK;  // late upload of a finished round
  if (const std::string rejected = aggregation_->DeliverClear(upload); !rejected.empty()) {
    EventLine("participant_rejected").Add("participant", id).Add("reason", rejected);
  }
  if (aggregation_->ReadyToClose()) cv_.notify_all();
  return grpc::Status::OK;
}

v1::StatusResponse Coordinator::Status() const {
  std::lock_guard<std::mutex> lock(mu_);
  v1::StatusResponse r;
  r.set_round(state_.updater->round());
  r.set_total_rounds(state_.total_rounds);
  r.set_stage(stage_);
  r.set_registered_users(static_cast<int32_t>(registry_.LiveUsers().size()));
  r.set_connected_clients(static_cast<int32_t>(registry_.Connections().size()));
  r.set_participants(last_participants_);
  r.set_phase(last_phase_);
  r.set_dropouts(last_dropouts_);
  r.set_bytes_in(bytes_in_.load());
  r.set_bytes_out(bytes_out_.load());
  r.set_delta(options_.report_delta);
  r.set_traffic_round(last_traffic_round_);
  r.set_traffic_cohort(static_cast<int32_t>(last_traffic_cohort_));
  r.set_traffic_evaluation(last_traffic_evaluation_);
  AddTraffic(last_traffic_, last_traffic_cohort_, r);
  r.set_population(static_cast<int32_t>(state_.population.size()));
  if (absl::StatusOr<dp::PrivacyReport> report = state_.ledger.Report(options_.report_delta);
      report.ok() && !state_.ledger.entries().empty()) {
    r.set_epsilon_rdp2(report->rdp_order2);
    r.set_epsilon_dp(report->improved.epsilon);
    r.set_privacy_unit(std::string(dp::PrivacyUnitName(report->unit)));
    r.set_privacy_bound(std::string(dp::PrivacyBoundName(*report)));
  }
  if (last_evaluation_) *r.mutable_federated_evaluation() = *last_evaluation_;
  r.set_failed_rounds_in_a_row(failed_rounds_in_a_row_);
  r.set_last_failure(last_failure_);
  for (const auto& [id, reason] : exclusions_.excluded()) {
    v1::ExcludedParticipant* e = r.add_excluded();
    e->set_participant_id(id);
    e->set_reason(reason);
  }
  return r;
}

void Coordinator::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_ = true;
  cv_.notify_all();
}

void Coordinator::WaitForDisconnects(absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, absl::ToChronoSeconds(timeout),
               [this] { return registry_.Connections().empty(); });
}

size_t Coordinator::Send(Connection& connection, v1::ServerMessage message) {
  const wire::Stage stage = wire::StageOf(message);
  size_t bytes = 0;
  std::vector<v1::ServerMessage> pieces = wire::Split(std::move(message), options_.chunk_bytes);
  if (pieces.size() > 1) {
    traffic_.AddChunksDown(static_cast<int64_t>(pieces.size()));
  }
  for (v1::ServerMessage& piece : pieces) bytes += connection.Send(std::move(piece));
  if (connection.TakeOverflow()) DropOverflowed(connection);
  bytes_out_ += static_cast<int64_t>(bytes);
  traffic_.AddDown(stage, static_cast<int64_t>(bytes));
  return bytes;
}

void Coordinator::DropOverflowed(const Connection& connection) {
  int dropped = 0;
  if (aggregation_ != nullptr) {
    for (uint32_t id : aggregation_->cohort()) {
      if (registry_.Owns(&connection, id) && aggregation_->Drop(id)) ++dropped;
    }
  }
  cv_.notify_all();
  EventLine("stream_overflow")
      .Add("client", registry_.NameOf(&connection))
      .Add("peer", connection.peer())
      .Add("dropped_in_round", dropped);
}

void Coordinator::EndRoundTraffic(int64_t round, int64_t cohort_size, bool evaluation) {
  last_traffic_ = traffic_;
  last_traffic_round_ = round;
  last_traffic_cohort_ = cohort_size;
  last_traffic_evaluation_ = evaluation;
}

void Coordinator::Route(Aggregation::Envelopes envelopes) {
  std::vector<uint32_t> unreachable;
  for (Aggregation::Envelope& e : envelopes) {
    std::shared_ptr<Connection> c = registry_.ConnectionOf(e.participant_id);
    if (c == nullptr) {
      unreachable.push_back(e.participant_id);
      continue;
    }
    Send(*c, std::move(e.message));
  }
  for (uint32_t id : unreachable) aggregation_->Drop(id);
}

void Coordinator::Broadcast(const v1::RoundResult& result) {
  for (const std::shared_ptr<Connection>& c : registry_.Connections()) {
    v1::ServerMessage m;
    *m.mutable_result() = result;
    Send(*c, std::move(m));
  }
}

}  // namespace fedmf::server
