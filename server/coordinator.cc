#include "server/coordinator.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/util/event_log.h"

namespace fedmf::server {
namespace {

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

// A run's options: eval_every resolved, and marked as a service's run when it is one.
CoordinatorOptions ForRun(CoordinatorOptions options, const algorithms::Updater& updater,
                          bool service) {
  options.service_run = service;
  return ResolveEvalEvery(std::move(options), updater);
}

// The combiner's answer to a device's call.
absl::Status ServesNoDevice() {
  return absl::FailedPreconditionError(
      "this coordinator is a combiner: devices connect to its fronts (docs/scale-out.md)");
}

}  // namespace

Coordinator::ActiveRun::ActiveRun(CoordinatorOptions run_options, CoordinatorState state,
                                  Coordinator& coordinator)
    : options(ForRun(std::move(run_options), *state.updater, coordinator.service_)),
      runner(coordinator.aggregation_, coordinator.clock_, options.stage_timeout,
             coordinator.metrics_, coordinator.board_, options.misbehaviour_log_period),
      driver(options, std::move(state), coordinator.aggregation_, runner, coordinator.clock_,
             coordinator.board_) {}

Coordinator::Coordinator(CoordinatorOptions options, Clock& clock)
    : options_(std::move(options)),
      service_(true),
      clock_(clock),
      streams_(std::make_unique<DeviceStreams>(options_, clock, streams_mu_, aggregation_)),
      aggregation_(clock, streams_mu_, *streams_) {
  streams_->SetNumUsers(Registry::kAnyUser);
  board_.SetStage("idle");
}

Coordinator::Coordinator(CoordinatorOptions options, CoordinatorState state, Clock& clock)
    : options_(options),
      service_(false),
      clock_(clock),
      streams_(std::make_unique<DeviceStreams>(options_, clock, streams_mu_, aggregation_)),
      aggregation_(clock, streams_mu_, *streams_) {
  StartRun(std::move(options), std::move(state));
}

Coordinator::Coordinator(CoordinatorOptions options, CombinerRole, Clock& clock)
    : options_(std::move(options)),
      service_(true),
      clock_(clock),
      fleet_(std::make_unique<FrontFleet>(streams_mu_, aggregation_, clock, options_)),
      aggregation_(clock, streams_mu_, *fleet_) {
  fleet_->SetNumUsers(Registry::kAnyUser);
  board_.SetStage("idle");
}

Coordinator::Coordinator(CoordinatorOptions options, CoordinatorState state, CombinerRole,
                         Clock& clock)
    : options_(options),
      service_(false),
      clock_(clock),
      fleet_(std::make_unique<FrontFleet>(streams_mu_, aggregation_, clock, options_)),
      aggregation_(clock, streams_mu_, *fleet_) {
  StartRun(std::move(options), std::move(state));
}

int64_t Coordinator::AttachFront(FrontFleet::Link link, std::string name) {
  if (fleet_ == nullptr) return -1;
  return static_cast<int64_t>(fleet_->Attach(std::move(link), std::move(name)));
}

void Coordinator::ReceiveFromFront(size_t front, const v1::FrontMessage& message) {
  if (fleet_ != nullptr) fleet_->Receive(front, message);
}

void Coordinator::FrontLost(size_t front) {
  if (fleet_ != nullptr) fleet_->Lost(front);
}

void Coordinator::StartRun(CoordinatorOptions options, CoordinatorState state) {
  if (streams_ != nullptr) streams_->SetNumUsers(options.num_users);
  if (fleet_ != nullptr) fleet_->SetNumUsers(options.num_users);
  aggregation_.BeginRun();
  run_.reset();  // the last run's model is freed before the next one's is built
  run_ = std::make_unique<ActiveRun>(std::move(options), std::move(state), *this);
}

absl::Status Coordinator::Run() {
  if (run_ == nullptr) return absl::FailedPreconditionError("no run was started");
  absl::Status status = run_->driver.Run();
  if (service_) {
    if (streams_ != nullptr) streams_->SetNumUsers(Registry::kAnyUser);
    if (fleet_ != nullptr) fleet_->SetNumUsers(Registry::kAnyUser);
    board_.SetStage("idle");
  }
  return status;
}

absl::Status Coordinator::Register(const v1::RegisterRequest& request,
                                   v1::RegisterResponse& response, absl::string_view identity) {
  if (streams_ == nullptr) return ServesNoDevice();
  absl::StatusOr<std::string> token = streams_->Register(request, identity);
  if (!token.ok()) return token.status();
  const std::shared_ptr<const StatusBoard::Snapshot> snapshot = board_.Read();
  if (snapshot->population != nullptr) {
    const std::vector<uint32_t> outsiders = snapshot->population->Outsiders(
        {request.participant_ids().data(), static_cast<size_t>(request.participant_ids_size())});
    if (!outsiders.empty()) {
      EventLine("not_in_population")
          .Add("client", request.client_name().substr(0, 128))
          .Add("users", outsiders.size())
          .Add("population", snapshot->population->size())
          .Add("effect", "registered after the fixed population froze: never invited");
    }
  }
  response.set_session_token(*token);
  response.set_current_round(snapshot->status.round());
  // A service's training is never over: a device registering as a run ends waits for the next.
  response.set_training_done(!service_ && snapshot->status.stage() == "done");
  NameLatestModel(response);
  return absl::OkStatus();
}

absl::Status Coordinator::CheckSessionToken(absl::string_view session_token,
                                            absl::string_view identity) {
  if (streams_ == nullptr) return ServesNoDevice();
  return streams_->CheckSessionToken(session_token, identity);
}

uint64_t Coordinator::NextConnectionId() {
  return streams_ != nullptr ? streams_->NextConnectionId() : 0;
}

absl::Status Coordinator::OnStreamOpen(const std::shared_ptr<Connection>& connection,
                                       absl::string_view session_token) {
  if (streams_ == nullptr) return ServesNoDevice();
  return streams_->OnStreamOpen(connection, session_token);
}

absl::Status Coordinator::OnClientMessage(const std::shared_ptr<Connection>& connection,
                                          const v1::ClientMessage& message) {
  if (streams_ == nullptr) return ServesNoDevice();
  return streams_->OnClientMessage(connection, message);
}

void Coordinator::OnStreamClosed(const std::shared_ptr<Connection>& connection) {
  if (streams_ != nullptr) streams_->OnStreamClosed(connection);
}

void Coordinator::OnMessageRefused(const std::shared_ptr<Connection>& connection,
                                   const absl::Status& status) {
  if (streams_ != nullptr) streams_->OnMessageRefused(connection, status);
}

MessageBounds Coordinator::ClientMessageBounds() const {
  return streams_ != nullptr ? streams_->ClientMessageBounds() : kUnplannedBounds;
}

v1::StatusResponse Coordinator::Status() const {
  v1::StatusResponse status = board_.Read()->status;
  if (streams_ != nullptr) streams_->AddTo(status);
  if (fleet_ != nullptr) fleet_->AddTo(status);
  aggregation_.AddTo(status);
  if (options_.models != nullptr) *status.mutable_models() = options_.models->Report();
  return status;
}

}  // namespace fedmf::server
