#include "server/device_streams.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>
#include <utility>

#include "absl/random/distributions.h"
#include "absl/strings/str_cat.h"
#include "common/util/event_log.h"
#include "wire/chunking.h"

namespace fedmf::server {

DeviceStreams::DeviceStreams(const CoordinatorOptions& options, Clock& clock, std::mutex& mu,
                             DeviceEvents& events)
    : options_(options),
      clock_(clock),
      events_(events),
      upload_budget_(options.max_upload_buffer_bytes),
      mu_(mu),
      registry_(options.enrollment_token, options.num_users, options.pending_registrations),
      placement_(options.num_users),
      check_in_period_(options.check_in_period),
      check_in_window_(options.check_in_window) {
  placement_.set_max_streams_per_client(options.max_streams_per_client);
  if (options.credentials) registry_.set_credentials(options.credentials);
}

absl::StatusOr<std::string> DeviceStreams::Register(const v1::RegisterRequest& request,
                                                    absl::string_view identity) {
  bytes_in_ += static_cast<int64_t>(request.ByteSizeLong());
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<std::string> token = registry_.Register(request, identity);
  EventLine line("register");
  line.Add("client", request.client_name().substr(0, 128));
  if (!identity.empty()) line.Add("identity", identity);
  line.Add("users", request.participant_ids_size())
      .Add("status", token.ok() ? std::string("OK") : token.status().ToString());
  return token;
}

absl::Status DeviceStreams::CheckSessionToken(absl::string_view session_token,
                                              absl::string_view identity) {
  std::lock_guard<std::mutex> lock(mu_);
  return registry_.CheckPending(session_token, identity);
}

void DeviceStreams::SetNumUsers(int64_t num_users) {
  std::lock_guard<std::mutex> lock(mu_);
  registry_.set_num_users(num_users);
  placement_.set_num_users(num_users);
}

void DeviceStreams::SetCheckIn(absl::Duration period, absl::Duration window) {
  std::lock_guard<std::mutex> lock(mu_);
  check_in_period_ = period;
  check_in_window_ = window;
}

absl::Status DeviceStreams::OnStreamOpen(const std::shared_ptr<Connection>& connection,
                                         absl::string_view session_token) {
  std::unique_lock<std::mutex> lock(mu_);
  absl::StatusOr<Placement::Takeover> replaced = Bind(session_token, connection);
  EventLine line("stream_open");
  line.Add("client", placement_.NameOf(connection.get())).Add("peer", connection->peer());
  if (!connection->identity().empty()) line.Add("identity", connection->identity());
  line.Add("status", replaced.status().ToString());
  if (!replaced.ok()) return replaced.status();
  if (!replaced->streams.empty()) line.Add("replaced_streams", replaced->streams.size());
  // The same credential reconnected: its old streams are over. Their users stay, on this one,
  // but they missed what the round in progress sent them there: they drop out of it.
  for (uint32_t id : replaced->participant_ids) events_.Deliver(AggregationInbox::Dropped{id});
  if (training_done_ != nullptr) {
    // Registered before the end, bound after the broadcast (likely with check-in, whose devices
    // keep coming back): the stream would otherwise wait for a task forever.
    Send(*connection, *training_done_);
  }
  Changed();  // the driver may be waiting for users
  lock.unlock();
  for (const std::shared_ptr<Connection>& old : replaced->streams) {
    // A refusal, so that a second live copy of a client stops instead of taking its ids back.
    old->Close(absl::FailedPreconditionError("replaced by a newer stream of the same credential"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Placement::Takeover> DeviceStreams::Bind(
    absl::string_view session_token, const std::shared_ptr<Connection>& connection) {
  // Checked first, so that the token it presents is not used up.
  if (placement_.IsBound(connection.get())) {
    return absl::FailedPreconditionError("stream already presented a session token");
  }
  // Used up whether placed or refused: a session token opens one stream.
  absl::StatusOr<Registration> registration =
      registry_.Redeem(session_token, connection->identity());
  if (!registration.ok()) return registration.status();
  return placement_.Bind(*std::move(registration), connection);
}

absl::Status DeviceStreams::OnClientMessage(const std::shared_ptr<Connection>& connection,
                                            const v1::ClientMessage& message) {
  const int64_t size = static_cast<int64_t>(message.ByteSizeLong());
  bytes_in_ += size;
  // Checked on every message, so a revoked client is cut off at its next one, not at the sweep.
  if (absl::Status revoked = CheckRevoked(*connection); !revoked.ok()) return revoked;
  if (message.has_chunk()) return HandleChunk(connection, message);
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status status;
  if (!placement_.IsBound(connection.get())) {
    // Ended by a takeover while this was in flight (a refusal), or told to check in later (the
    // client has done nothing wrong: ignored, the stream ends anyway).
    if (!checking_in_.contains(connection->id())) {
      status = absl::FailedPreconditionError("the stream is no longer bound");
    }
  } else {
    traffic_.AddUp(wire::StageOf(message), size);
    status = Dispatch(connection, message);
  }
  // A refusal ends the stream (the reactor finishes it with this status): one line per stream.
  if (!status.ok()) LogRefused(*connection, status);
  return status;
}

MessageBounds DeviceStreams::ClientMessageBounds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bounds_;
}

void DeviceStreams::OnStreamClosed(const std::shared_ptr<Connection>& connection) {
  std::lock_guard<std::mutex> lock(mu_);
  if (checking_in_.erase(connection->id()) > 0) {  // unbound and logged by DismissIdleStreams
    connection->upload().Abandon(upload_budget_);
    return;
  }
  const std::string name = placement_.NameOf(connection.get());
  const std::vector<uint32_t> ids = placement_.Unbind(connection.get());
  connection->upload().Abandon(upload_budget_);  // the reader is done: OnDone follows it
  int dropped = 0;
  for (uint32_t id : ids) dropped += events_.Deliver(AggregationInbox::Dropped{id}) ? 1 : 0;
  Changed();
  EventLine("stream_closed")
      .Add("client", name)
      .Add("peer", connection->peer())
      .Add("users", ids.size())
      .Add("dropped_in_round", dropped);
}

void DeviceStreams::EndStream(const std::shared_ptr<Connection>& stream,
                              const absl::Status& status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string name = placement_.NameOf(stream.get());
    const std::vector<uint32_t> ids = placement_.Unbind(stream.get());
    if (ids.empty()) return;  // ended already
    for (uint32_t id : ids) events_.Deliver(AggregationInbox::Dropped{id});
    Changed();
    EventLine("stream_ended")
        .Add("client", name)
        .Add("peer", stream->peer())
        .Add("users", ids.size())
        .Add("status", status.ToString());
  }
  stream->Close(status);
}

void DeviceStreams::OnMessageRefused(const std::shared_ptr<Connection>& connection,
                                     const absl::Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  LogRefused(*connection, status);
}

void DeviceStreams::LogRefused(const Connection& connection, const absl::Status& status) const {
  EventLine("message_refused")
      .Add("client", placement_.IsBound(&connection) ? placement_.NameOf(&connection)
                                                     : std::string("unbound"))
      .Add("peer", connection.peer())
      .Add("code", static_cast<int>(status.code()))
      .Add("reason", status.message());
}

absl::Status DeviceStreams::HandleChunk(const std::shared_ptr<Connection>& connection,
                                        const v1::ClientMessage& message) {
  const uint32_t id = message.chunk().participant_id();
  MessageBounds bounds;
  {
    // Checked before any memory is spent on the sequence.
    std::lock_guard<std::mutex> lock(mu_);
    traffic_.AddChunksUp(1);
    bounds = bounds_;
    if (!placement_.Owns(connection.get(), id)) {
      const absl::Status refused = absl::PermissionDeniedError(
          absl::StrCat("chunk for participant ", id, " not hosted by this stream"));
      LogRefused(*connection, refused);
      return refused;
    }
  }
  absl::StatusOr<std::optional<ChunkedUpload::Complete>> complete =
      connection->upload().Add(message, upload_budget_, bounds, absl::Now());
  std::lock_guard<std::mutex> lock(mu_);
  if (!complete.ok()) {
    EventLine("chunks_rejected")
        .Add("client", placement_.NameOf(connection.get()))
        .Add("participant", id)
        .Add("reason", complete.status().message());
    const std::string why = absl::StrCat("chunk sequence refused: ", complete.status().message());
    const absl::Status refused = complete.status().code() == absl::StatusCode::kResourceExhausted
                                     ? absl::ResourceExhaustedError(why)
                                     : absl::InvalidArgumentError(why);
    LogRefused(*connection, refused);
    return refused;
  }
  if (!complete->has_value()) return absl::OkStatus();
  const v1::ClientMessage& whole = (*complete)->message;
  traffic_.AddUp(wire::StageOf(whole), static_cast<int64_t>((*complete)->wire_bytes));
  const absl::Status status = Dispatch(connection, whole);
  connection->upload().Release(upload_budget_);  // handled: the parsed message goes next
  if (!status.ok()) LogRefused(*connection, status);
  return status;
}

absl::Status DeviceStreams::Dispatch(const std::shared_ptr<Connection>& connection,
                                     const v1::ClientMessage& message) {
  uint32_t id = 0;
  if (message.has_clear_upload()) {
    id = message.clear_upload().participant_id();
  } else if (message.has_secagg()) {
    id = message.secagg().participant_id();
  } else {
    return absl::InvalidArgumentError("expected a SecAgg message");
  }
  if (!placement_.Owns(connection.get(), id)) {
    return absl::PermissionDeniedError(
        absl::StrCat("participant ", id, " is not hosted by this stream"));
  }
  if (message.has_clear_upload()) {
    events_.Deliver(message.clear_upload());
  } else {
    events_.Deliver(AggregationInbox::SecAggMessage{id, message.secagg()});
  }
  return absl::OkStatus();
}

DeviceStreams::Outgoing DeviceStreams::Prepare(v1::ServerMessage message) const {
  Outgoing out{.stage = wire::StageOf(message), .pieces = {}};
  for (v1::ServerMessage& piece : wire::Split(std::move(message), options_.chunk_bytes)) {
    out.pieces.push_back(std::make_shared<const OutgoingMessage>(std::move(piece)));
  }
  return out;
}

void DeviceStreams::Send(Connection& connection, v1::ServerMessage message) {
  Send(connection, Prepare(std::move(message)));
}

void DeviceStreams::Send(Connection& connection, const Outgoing& message) {
  size_t bytes = 0;
  if (message.pieces.size() > 1) {
    traffic_.AddChunksDown(static_cast<int64_t>(message.pieces.size()));
  }
  for (const std::shared_ptr<const OutgoingMessage>& piece : message.pieces) {
    bytes += connection.Send(piece);
  }
  if (connection.TakeOverflow()) DropOverflowed(connection);
  bytes_out_ += static_cast<int64_t>(bytes);
  traffic_.AddDown(message.stage, static_cast<int64_t>(bytes));
}

void DeviceStreams::DropOverflowed(const Connection& connection) {
  int dropped = 0;
  // The aggregation's members are among the round's users (a drop of any other changes nothing).
  for (uint32_t id : round_users_) {
    if (placement_.Owns(&connection, id) && events_.Deliver(AggregationInbox::Dropped{id})) {
      ++dropped;
    }
  }
  EventLine("stream_overflow")
      .Add("client", placement_.NameOf(&connection))
      .Add("peer", connection.peer())
      .Add("dropped_in_round", dropped);
}

std::vector<uint32_t> DeviceStreams::Route(Aggregation::Envelopes envelopes) {
  std::vector<uint32_t> unreachable;
  for (Aggregation::Envelope& e : envelopes) {
    std::shared_ptr<Connection> c = placement_.ConnectionOf(e.participant_id);
    if (c == nullptr) {
      unreachable.push_back(e.participant_id);
      continue;
    }
    Send(*c, std::move(e.message));
  }
  return unreachable;
}

void DeviceStreams::Changed() {
  events_.StreamsChanged();
  disconnected_.notify_all();
}

std::vector<uint32_t> DeviceStreams::Open(const v1::RoundTask& task,
                                          const std::vector<uint32_t>& cohort) {
  traffic_.Reset();
  if (task.plan().phase() <= 0) round_users_.clear();  // a round's first phase, or an evaluation
  std::vector<uint32_t> kept;
  std::set_union(round_users_.begin(), round_users_.end(), cohort.begin(), cohort.end(),
                 std::back_inserter(kept));
  round_users_ = std::move(kept);
  // Never lowered: a late message of an earlier aggregation still fits.
  bounds_ = Larger(bounds_, BoundsOf(task, options_.max_upload_bytes));
  // One task per client process, listing the members it hosts.
  std::vector<uint32_t> unreachable;
  std::map<Connection*, std::pair<std::shared_ptr<Connection>, v1::ServerMessage>> tasks;
  for (uint32_t id : cohort) {
    std::shared_ptr<Connection> c = placement_.ConnectionOf(id);
    if (c == nullptr) {
      unreachable.push_back(id);
      continue;
    }
    auto& [connection, message] = tasks[c.get()];
    if (connection == nullptr) {
      connection = c;
      *message.mutable_task() = task;
    }
    message.mutable_task()->add_participant_ids(id);
  }
  // The streams that may upload at once: a client process uploads its members' messages one at
  // a time on its stream, however many it hosts.
  upload_budget_.ShareAmong(tasks.size());
  for (auto& [key, entry] : tasks) Send(*entry.first, std::move(entry.second));
  return unreachable;
}

void DeviceStreams::Broadcast(const v1::RoundResult& result) {
  v1::ServerMessage m;
  *m.mutable_result() = result;
  // Once for every stream: the final result carries the model, which N copies would multiply.
  auto message = std::make_shared<const Outgoing>(Prepare(std::move(m)));
  std::lock_guard<std::mutex> lock(mu_);
  if (result.training_done()) training_done_ = message;
  for (const std::shared_ptr<Connection>& c : placement_.Connections()) Send(*c, *message);
}

int DeviceStreams::CloseAll(const absl::Status& status) {
  std::vector<std::shared_ptr<Connection>> connections;
  {
    std::lock_guard<std::mutex> lock(mu_);
    connections = placement_.Connections();
  }
  for (const std::shared_ptr<Connection>& c : connections) c->Close(status);
  return static_cast<int>(connections.size());
}

PhaseTransport::Traffic DeviceStreams::CurrentTraffic() const {
  std::lock_guard<std::mutex> lock(mu_);
  return PhaseTransport::Traffic{
      .phase = traffic_, .bytes_in = bytes_in_.load(), .bytes_out = bytes_out_.load()};
}

void DeviceStreams::AddTo(v1::StatusResponse& status) const {
  std::lock_guard<std::mutex> lock(mu_);
  status.set_registered_users(static_cast<int32_t>(placement_.LiveUserCount()));
  status.set_connected_clients(static_cast<int32_t>(placement_.ConnectionCount()));
  status.set_checked_in_streams(dismissed_streams_);
  status.set_bytes_in(bytes_in_.load());
  status.set_bytes_out(bytes_out_.load());
}

absl::Status DeviceStreams::CheckRevoked(const Connection& connection) const {
  const std::string& identity = connection.identity();
  if (identity.empty() || !options_.revoked || !options_.revoked(identity)) {
    return absl::OkStatus();
  }
  EventLine("stream_revoked")
      .Add("identity", identity)
      .Add("peer", connection.peer())
      .Add("effect", "stream ended; its users drop out");
  return absl::PermissionDeniedError(absl::StrCat("identity '", identity, "' is revoked"));
}

int DeviceStreams::EndRevokedStreams() {
  if (!options_.revoked) return 0;
  std::vector<std::shared_ptr<Connection>> connections;
  {
    std::lock_guard<std::mutex> lock(mu_);
    connections = placement_.Connections();
  }
  int ended = 0;
  for (const std::shared_ptr<Connection>& connection : connections) {
    if (absl::Status revoked = CheckRevoked(*connection); !revoked.ok()) {
      connection->Close(revoked);
      ++ended;
    }
  }
  return ended;
}

int DeviceStreams::DismissIdleStreams(absl::Time now) {
  std::unique_lock<std::mutex> lock(mu_);
  if (check_in_period_ <= absl::ZeroDuration() || !events_.InAggregation()) return 0;
  return Dismiss(lock, now, now - check_in_window_, {}, "idle");
}

void DeviceStreams::ReleaseRound() {
  std::unique_lock<std::mutex> lock(mu_);
  const std::vector<uint32_t> done = std::exchange(round_users_, {});
  if (check_in_period_ <= absl::ZeroDuration() || done.empty()) return;
  // On the driver's thread, before it chooses the next cohort: no choice is in progress.
  Dismiss(lock, absl::Now(), absl::InfinitePast(), done, "round_done");
}

int DeviceStreams::Dismiss(std::unique_lock<std::mutex>& lock, absl::Time now, absl::Time bound_by,
                           const std::vector<uint32_t>& done, const char* why) {
  std::vector<std::pair<std::shared_ptr<Connection>, v1::ServerMessage>> dismissed;
  size_t users = 0;
  const absl::Duration period = check_in_period_;  // for the log line, read under the lock
  const double period_ms = absl::ToDoubleMilliseconds(period);
  for (std::shared_ptr<Connection>& c :
       placement_.CheckInCandidates(bound_by, round_users_, done)) {
    users += placement_.Unbind(c.get()).size();
    checking_in_.insert(c->id());
    const int64_t delay_ms =
        std::max<int64_t>(1, std::llround(absl::Uniform(check_in_delays_, 0.5, 1.5) * period_ms));
    check_ins_due_by_ = std::max(check_ins_due_by_, now + absl::Milliseconds(delay_ms));
    v1::ServerMessage message;
    message.mutable_check_in_later()->set_retry_after_ms(delay_ms);
    dismissed.emplace_back(std::move(c), std::move(message));
  }
  if (dismissed.empty()) return 0;
  dismissed_streams_ += static_cast<int64_t>(dismissed.size());
  Changed();
  lock.unlock();
  for (auto& [connection, message] : dismissed) {
    bytes_out_ += static_cast<int64_t>(connection->SendLast(std::move(message), absl::OkStatus()));
  }
  // One line a sweep: a stream_closed line each would be most of the log of a large fleet.
  EventLine("check_in_dismissed")
      .Add("streams", dismissed.size())
      .Add("users", users)
      .Add("why", why)
      .Add("period_s", absl::ToDoubleSeconds(period));
  return static_cast<int>(dismissed.size());
}

absl::Time DeviceStreams::CheckInsDueBy() const {
  std::lock_guard<std::mutex> lock(mu_);
  return check_ins_due_by_;
}

int DeviceStreams::EndStalledUploads(absl::Time now) {
  std::vector<std::pair<std::shared_ptr<Connection>, absl::Time>> stalled;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::shared_ptr<Connection>& c : placement_.Connections()) {
      const std::optional<absl::Time> started = c->upload().started();
      if (started && now - *started > options_.upload_timeout) {
        EventLine("upload_stalled")
            .Add("client", placement_.NameOf(c.get()))
            .Add("peer", c->peer())
            .Add("seconds", absl::ToInt64Seconds(now - *started))
            .Add("effect", "stream ended; its users drop out");
        stalled.emplace_back(std::move(c), *started);
      }
    }
  }
  for (const auto& [connection, started] : stalled) {
    connection->Close(absl::DeadlineExceededError(
        absl::StrCat("chunked upload incomplete after ", absl::FormatDuration(now - started))));
  }
  return static_cast<int>(stalled.size());
}

void DeviceStreams::WaitForDisconnects(absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  const absl::Time deadline = clock_.Now() + timeout;
  while (!placement_.Connections().empty() && clock_.Now() < deadline) {
    clock_.WaitUntil(disconnected_, lock, deadline);
  }
}

}  // namespace fedmf::server
