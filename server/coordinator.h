// The coordinator, composed of its parts (docs/runtime.md, "Inside the coordinator"): the
// DeviceStreams (device_streams.h: registrations, streams, chunks, sending, check-in, revocation)
// and the AggregationRouter (aggregation_router.h: the aggregation in progress as the streams
// reach it, eligibility, exclusions, stops), the two halves of the stream router, which share the
// coordinator's only lock (device_link.h), the RoundDriver (round_driver.h: the round loop on the
// thread that calls Run, with cohort choice, budget, ledger, checkpoints and evaluation rounds) and
// the RouterPhaseRunner (phase_runner.h: one aggregation, training or evaluation), which share a
// Clock and a StatusBoard. It is the StreamHandler of every Participate reactor and what the gRPC
// services, fedmf-sim and the tests hold; its methods only forward, except Register and Status,
// which add the driver's published snapshot to the streams' answer. The two halves (the transport:
// registrations, streams) live as long as the coordinator; driver and runner live for one run. A
// one-shot coordinator is built with its run; the long-running service (run_service.h) is built
// without one and starts each run of its queue in turn (StartRun, Run).
// On the scale-out roles (docs/scale-out.md, section 2) the combiner is a Coordinator whose
// aggregation half reaches the devices through its fronts (FrontFleet, front_fleet.h) instead of
// streams of its own: it serves no device, and its DeviceEndpoint calls refuse.
#ifndef FEDMF_SERVER_COORDINATOR_H_
#define FEDMF_SERVER_COORDINATOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "fedmf/v1/federation.pb.h"
#include "fedmf/v1/replica.pb.h"
#include "server/aggregation_router.h"
#include "server/checkpoint.h"
#include "server/clock.h"
#include "server/connection.h"
#include "server/coordinator_metrics.h"
#include "server/coordinator_options.h"
#include "server/device_endpoint.h"
#include "server/device_streams.h"
#include "server/front_fleet.h"
#include "server/phase_runner.h"
#include "server/round_driver.h"
#include "server/status_board.h"

namespace fedmf::server {

class Coordinator final : public DeviceEndpoint {
 public:
  // A service with no run yet: `options`' process fields (transport limits, credentials, model
  // store) serve for its life, its run fields are ignored. Until the first run starts, Status
  // says stage "idle" and Register accepts any participant id and tells clients to wait for one. `clock` (default: the steady
  // clock) bounds every wait and deadline and must outlive the coordinator.
  explicit Coordinator(CoordinatorOptions options, Clock& clock = SteadyClock::Get());
  // One run: the service above with StartRun(options, state) done. `state` is the checkpoint to
  // resume from or a fresh run.
  Coordinator(CoordinatorOptions options, CoordinatorState state,
              Clock& clock = SteadyClock::Get());
  // A combiner (docs/scale-out.md): the service, or the one run, above, whose devices are those
  // of the fronts that attach (AttachFront).
  struct CombinerRole {};
  Coordinator(CoordinatorOptions options, CombinerRole, Clock& clock = SteadyClock::Get());
  Coordinator(CoordinatorOptions options, CoordinatorState state, CombinerRole,
              Clock& clock = SteadyClock::Get());
  // The combiner's (FrontFleet): front `name` attached, `link` sends down its replica link;
  // returns the index that names it in ReceiveFromFront and FrontLost. -1 on a coordinator that
  // is not a combiner.
  int64_t AttachFront(FrontFleet::Link link, std::string name);
  // What front `front` sent up its link (the link's thread), and that its link ended.
  void ReceiveFromFront(size_t front, const v1::FrontMessage& message);
  void FrontLost(size_t front);

  // DeviceEndpoint (device_endpoint.h): the streams' (DeviceStreams), with the run's state in
  // the RegisterResponse. On the combiner, FAILED_PRECONDITION (devices reach its fronts).
  absl::Status Register(const v1::RegisterRequest& request, v1::RegisterResponse& response,
                        absl::string_view identity) override;
  absl::Status CheckSessionToken(absl::string_view session_token,
                                 absl::string_view identity) override;
  uint64_t NextConnectionId() override;
  ModelStore* published_models() const override { return options_.models.get(); }
  absl::Status OnStreamOpen(const std::shared_ptr<Connection>& connection,
                            absl::string_view session_token) override;
  absl::Status OnClientMessage(const std::shared_ptr<Connection>& connection,
                               const v1::ClientMessage& message) override;
  void OnStreamClosed(const std::shared_ptr<Connection>& connection) override;
  void OnMessageRefused(const std::shared_ptr<Connection>& connection,
                        const absl::Status& status) override;
  MessageBounds ClientMessageBounds() const override;
  // The driver's latest snapshot with the streams' figures; never waits for the driver.
  v1::StatusResponse Status() const;
  // The counters of the Prometheus scrape (--metrics_listen), which renders them with Status().
  const CoordinatorMetrics& metrics() const { return metrics_; }

  // Makes `state` the run Run() trains, with `options`' run fields (the process fields stay the
  // constructor's): participant ids 1..options.num_users, no exclusions, no run stop. Only while
  // Run() is not running.
  void StartRun(CoordinatorOptions options, CoordinatorState state);
  // RoundDriver::Run of the started run on this thread; FailedPrecondition when none was. A
  // service (built without a run) is idle again once it returns, so that clients that register
  // between runs (any id) wait for the next one instead of leaving.
  absl::Status Run();
  // Any thread: the process stops; Run() returns and its clients reconnect to the restart.
  void Stop() { aggregation_.Stop(); }
  // Any thread: the run in progress is cancelled: Run() tells its clients it is over and returns
  // Cancelled. A cancel between runs is forgotten (StartRun begins the next without one).
  void CancelRun() { aggregation_.StopRun(); }
  // DeviceStreams' revocation, stalled uploads, check-in and disconnect wait (the combiner has
  // no streams: nothing to do).
  int EndRevokedStreams() { return streams_ ? streams_->EndRevokedStreams() : 0; }
  int EndStalledUploads(absl::Time now) { return streams_ ? streams_->EndStalledUploads(now) : 0; }
  int DismissIdleStreams(absl::Time now) {
    return streams_ ? streams_->DismissIdleStreams(now) : 0;
  }
  absl::Time CheckInsDueBy() const {
    return streams_ ? streams_->CheckInsDueBy() : absl::InfinitePast();
  }
  uint64_t upload_buffer_bytes() const { return streams_ ? streams_->upload_buffer_bytes() : 0; }
  void WaitForDisconnects(absl::Duration timeout) {
    if (streams_) streams_->WaitForDisconnects(timeout);
  }
  // The started run's updater, ledger and seed; only while Run() is not running (e.g. after it
  // returned). Needs a started run.
  const CoordinatorState& state() const { return run_->driver.state(); }

 private:
  // One run's options and the parts that live for it; the driver holds the options by reference.
  struct ActiveRun {
    ActiveRun(CoordinatorOptions run_options, CoordinatorState state, Coordinator& coordinator);
    const CoordinatorOptions options;
    RouterPhaseRunner runner;
    RoundDriver driver;
  };

  const CoordinatorOptions options_;  // the process fields (see the constructors)
  const bool service_;                // built without a run
  Clock& clock_;
  CoordinatorMetrics metrics_;
  StatusBoard board_;
  std::mutex streams_mu_;  // the two halves' (device_link.h)
  // The device half: the streams in one process, or the fronts on the combiner (one is null).
  std::unique_ptr<DeviceStreams> streams_;
  std::unique_ptr<FrontFleet> fleet_;
  AggregationRouter aggregation_;
  std::unique_ptr<ActiveRun> run_;  // the started run; only the thread of StartRun and Run
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_COORDINATOR_H_
