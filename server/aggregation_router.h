// The aggregation half of the coordinator: the aggregation a phase runner attached, as the device
// streams reach it (Devices, device_link.h), and who may be in a cohort. It hands each message or
// drop the devices report into the aggregation and routes its replies back (AggregationInbox:
// while the runner closes a stage, Suspend .. Resume, what arrives is queued, so no stream waits
// for unmasking), has the devices send each task and drops the members they cannot reach, keeps
// the exclusions and the run's stops, and wakes the driver's waits. It is the PhaseTransport of
// the phase runner, the Roster of the round driver and the DeviceEvents of the device half, with
// which it shares one mutex (device_link.h); nothing heavy runs under it.
#ifndef FEDMF_SERVER_AGGREGATION_ROUTER_H_
#define FEDMF_SERVER_AGGREGATION_ROUTER_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "fedmf/v1/federation.pb.h"
#include "server/aggregation.h"
#include "server/aggregation_inbox.h"
#include "server/clock.h"
#include "server/device_link.h"
#include "server/exclusions.h"
#include "server/phase_runner.h"
#include "server/roster.h"

namespace fedmf::server {

class AggregationRouter final : public PhaseTransport, public Roster, public DeviceEvents {
 public:
  // `mu` is the lock shared with `devices`; `clock` bounds AwaitStageEnd, AwaitChange and
  // AwaitStop.
  AggregationRouter(Clock& clock, std::mutex& mu, Devices& devices)
      : clock_(clock), mu_(mu), devices_(devices) {}

  // PhaseTransport (the driver thread).
  absl::StatusOr<std::shared_ptr<const secagg::SigningKeyDirectory>> SigningKeys(
      const std::vector<uint32_t>& cohort) override;
  StageStart Open(Aggregation* aggregation, const v1::RoundTask& task) override;
  void AwaitStageEnd(absl::Time deadline) override;
  // The devices deliver what they hold back (Devices::SealStage), without the lock.
  void SealStage(absl::Time deadline) override { devices_.SealStage(deadline); }
  void Suspend() override;
  StageStart Resume(Aggregation::Envelopes envelopes) override;
  void Detach() override;
  Traffic CurrentTraffic() const override { return devices_.CurrentTraffic(); }
  void Broadcast(const v1::RoundResult& result) override { devices_.Broadcast(result); }
  bool Exclude(uint32_t participant_id, std::string reason) override;

  // Roster (the driver thread).
  std::vector<uint32_t> EligibleUsers() const override;
  int64_t EligibleCount() const override;
  int64_t ExcludedCount() const override;
  uint64_t Generation() const override;
  void AwaitChange(uint64_t seen, absl::Time deadline) override;
  bool AwaitStop(absl::Time deadline) override;
  bool stopped() const override;
  // StopRun without a process Stop.
  bool run_cancelled() const override;
  int CloseAll(const absl::Status& status) override { return devices_.CloseAll(status); }
  void ReleaseRound() override { devices_.ReleaseRound(); }

  // DeviceEvents (under the shared lock).
  bool Deliver(AggregationInbox::Delivery delivery) override;
  void StreamsChanged() override { Changed(); }
  bool InAggregation() const override { return inbox_.aggregation() != nullptr; }

  // Any thread.
  void Stop();
  // A long-running service's runs (run_service.h): StopRun ends the run in progress as Stop does
  // (stopped(), AwaitStop and the stage waits see it) without stopping the process; BeginRun
  // starts the next run: no exclusions (they were the last run's), no run stop. A process Stop
  // stays.
  void StopRun();
  void BeginRun();
  // Admin.Status's exclusions.
  void AddTo(v1::StatusResponse& status) const;

 private:
  // Sends the aggregation's replies; their receivers without a stream are dropped. Under mu_.
  void RouteReplies(Aggregation::Envelopes envelopes);
  // StageStart of the attached aggregation; detaches it once finished. Under mu_.
  StageStart Where();
  // Something the driver may wait for happened. Under mu_.
  void Changed();

  Clock& clock_;
  std::mutex& mu_;
  Devices& devices_;
  std::condition_variable cv_;
  AggregationInbox inbox_;  // the phase runner's aggregation, while attached
  Exclusions exclusions_;
  uint64_t generation_ = 0;  // counts Changed()
  bool stop_ = false;
  // The run's stop (StopRun, until BeginRun), apart from the process's stop_.
  bool run_stop_ = false;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_AGGREGATION_ROUTER_H_
