// The seam between the coordinator's two halves (docs/scale-out.md section 11): Devices is what
// the aggregation half (aggregation_router.h) needs of the device streams, DeviceEvents what the
// device half (device_streams.h) tells it. In one process DeviceStreams and AggregationRouter
// implement them for each other and share one mutex, so that a stream's message reaches the
// aggregation, and the replies it makes go out, in the order that lock saw them; on the scale-out
// roles a front and the combiner's fleet of fronts implement them over the replica link.
#ifndef FEDMF_SERVER_DEVICE_LINK_H_
#define FEDMF_SERVER_DEVICE_LINK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "fedmf/v1/federation.pb.h"
#include "server/aggregation.h"
#include "server/aggregation_inbox.h"
#include "server/phase_runner.h"

namespace fedmf::server {

// What the device half reports, under the shared lock, as it happens.
class DeviceEvents {
 public:
  virtual ~DeviceEvents() = default;
  // A participant's message, or that it is gone, for the aggregation in progress (ignored when
  // none is). True for the drop of one of its cohort's members.
  virtual bool Deliver(AggregationInbox::Delivery delivery) = 0;
  // A stream was bound or ended: the live users changed.
  virtual void StreamsChanged() = 0;
  // An aggregation is in progress (check-in ends idle streams only then: between aggregations
  // the driver may be choosing a cohort among the live users).
  virtual bool InAggregation() const = 0;
};

// What the aggregation half asks of the device streams.
class Devices {
 public:
  virtual ~Devices() = default;

  // Under the shared lock.
  // Sends `task` to the streams hosting `cohort`'s members, one per stream listing its members;
  // returns the members without a stream. A task of phase 0 (or an evaluation's) starts a round.
  virtual std::vector<uint32_t> Open(const v1::RoundTask& task,
                                     const std::vector<uint32_t>& cohort) = 0;
  // Sends each envelope to its participant's stream; returns the participants without one.
  virtual std::vector<uint32_t> Route(Aggregation::Envelopes envelopes) = 0;
  // Users on live streams in the run's range, ascending; their number; whether one is.
  virtual std::vector<uint32_t> LiveUsers() const = 0;
  virtual int64_t LiveUserCount() const = 0;
  virtual bool IsLiveUser(uint32_t participant_id) const = 0;
  // The registered signing key of a live user (empty: none).
  virtual std::string SigningKeyOf(uint32_t participant_id) const = 0;

  // Without it (they take it, and send outside it what is large or may block).
  // To every stream, and to every stream that opens later for a training_done result.
  virtual void Broadcast(const v1::RoundResult& result) = 0;
  // Ends every stream with `status`; how many there were.
  virtual int CloseAll(const absl::Status& status) = 0;
  // The round's users are no longer needed (Roster::ReleaseRound).
  virtual void ReleaseRound() = 0;
  // The traffic counted since the last Open, and the streams' byte totals.
  virtual PhaseTransport::Traffic CurrentTraffic() const = 0;
  // The stage's wait is over (PhaseTransport::SealStage): what is held back for the aggregation
  // is delivered, or given up after a bounded wait past `deadline`. In one process nothing is.
  virtual void SealStage(absl::Time deadline) = 0;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_DEVICE_LINK_H_
