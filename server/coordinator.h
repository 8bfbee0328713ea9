// The coordinator, composed of its parts (docs/runtime.md, "Inside the coordinator"): the
// StreamRouter (stream_router.h: registrations, streams, dispatch, sending; the only lock), the
// RoundDriver (round_driver.h: the round loop on the thread that calls Run, with cohort choice,
// budget, ledger, checkpoints and evaluation rounds) and the RouterPhaseRunner (phase_runner.h:
// one aggregation, training or evaluation), which share a Clock and a StatusBoard. It is the
// StreamHandler of every Participate reactor and what the gRPC services, fedmf-sim and the tests
// hold; its methods only forward, except Register and Status, which add the driver's published
// snapshot to the router's answer.
#ifndef FEDMF_SERVER_COORDINATOR_H_
#define FEDMF_SERVER_COORDINATOR_H_

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "fedmf/v1/federation.pb.h"
#include "server/checkpoint.h"
#include "server/clock.h"
#include "server/connection.h"
#include "server/coordinator_metrics.h"
#include "server/coordinator_options.h"
#include "server/phase_runner.h"
#include "server/round_driver.h"
#include "server/status_board.h"
#include "server/stream_router.h"

namespace fedmf::server {

class Coordinator final : public StreamHandler {
 public:
  // `state` is the checkpoint to resume from or a fresh run; `clock` (default: the steady clock)
  // bounds every wait and deadline and must outlive the coordinator.
  Coordinator(CoordinatorOptions options, CoordinatorState state,
              Clock& clock = SteadyClock::Get());

  // `identity`: the client's verified TLS identity (empty: none), see Registry.
  absl::Status Register(const v1::RegisterRequest& request, v1::RegisterResponse& response,
                        absl::string_view identity = "");
  // OK when `session_token` may open a stream from `identity` (Registry::CheckPending);
  // OnStreamOpen decides.
  absl::Status CheckSessionToken(absl::string_view session_token, absl::string_view identity) {
    return router_.CheckSessionToken(session_token, identity);
  }
  absl::Status OnStreamOpen(const std::shared_ptr<Connection>& connection,
                            absl::string_view session_token) override {
    return router_.OnStreamOpen(connection, session_token);
  }
  absl::Status OnClientMessage(const std::shared_ptr<Connection>& connection,
                               const v1::ClientMessage& message) override {
    return router_.OnClientMessage(connection, message);
  }
  void OnStreamClosed(const std::shared_ptr<Connection>& connection) override {
    router_.OnStreamClosed(connection);
  }
  void OnMessageRefused(const std::shared_ptr<Connection>& connection,
                        const absl::Status& status) override {
    router_.OnMessageRefused(connection, status);
  }
  MessageBounds ClientMessageBounds() const override { return router_.ClientMessageBounds(); }
  // The driver's latest snapshot with the router's figures; never waits for the driver.
  v1::StatusResponse Status() const;
  // Published model `version` for a Models.Download that presents `session_token` from
  // `identity` (checked as for a stream, CheckSessionToken; the registration stays pending):
  // UNAUTHENTICATED for an unknown or expired token, PERMISSION_DENIED for one issued to another
  // TLS identity, NOT_FOUND for a version the store does not keep (or no store).
  absl::StatusOr<std::shared_ptr<const ModelStore::Published>> ModelForDownload(
      absl::string_view session_token, absl::string_view identity, int64_t version);
  // Models.Download sent all of a model.
  void CountDownload() const {
    if (options_.models != nullptr) options_.models->CountDownload();
  }
  // The counters of the Prometheus scrape (--metrics_listen), which renders them with Status().
  const CoordinatorMetrics& metrics() const { return metrics_; }

  // RoundDriver::Run on this thread; Stop() (any thread) ends it.
  absl::Status Run() { return driver_.Run(); }
  void Stop() { router_.Stop(); }
  // StreamRouter's revocation, stalled uploads and disconnect wait.
  int EndRevokedStreams() { return router_.EndRevokedStreams(); }
  int EndStalledUploads(absl::Time now) { return router_.EndStalledUploads(now); }
  uint64_t upload_buffer_bytes() const { return router_.upload_buffer_bytes(); }
  void WaitForDisconnects(absl::Duration timeout) { router_.WaitForDisconnects(timeout); }
  uint64_t NextConnectionId() { return router_.NextConnectionId(); }
  // The updater, ledger and seed; only while Run() is not running (e.g. after it returned).
  const CoordinatorState& state() const { return driver_.state(); }

 private:
  const CoordinatorOptions options_;
  CoordinatorMetrics metrics_;
  StatusBoard board_;
  StreamRouter router_;
  RouterPhaseRunner runner_;
  RoundDriver driver_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_COORDINATOR_H_
