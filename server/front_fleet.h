// The combiner's Devices (device_link.h) over the replica links to its fronts (docs/scale-out.md,
// sections 2 and 9): a task goes to each front with the cohort's members it hosts, each reply to
// the front its receiver is on, results, the round's release and CloseAll to every front; what a
// front sends (its streams bound and ended, its members' messages, drops and rejections, its
// partial sums) reaches the aggregation half as DeviceEvents, in the order of its link. It places
// every front's streams in one Placement (one live stream per user across the fronts, the
// per-client stream cap, takeover by the same credential: docs/scale-out.md section 6) and tells
// a front to end the streams it refuses or another front's stream took over; the live users are
// those of the streams it placed. A front that was sent a MaskedInputRequest owes the
// aggregation its partial sum (or word that it has none); SealStage asks the fronts that still owe
// one for it and waits for their answers up to a seal timeout. Every model the combiner's store
// publishes goes to every front (the fronts' model cache), and a front that attaches is sent
// those the store keeps. It shares the combiner's mutex with
// the aggregation half (AggregationRouter), as DeviceStreams does in one process.
#ifndef FEDMF_SERVER_FRONT_FLEET_H_
#define FEDMF_SERVER_FRONT_FLEET_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "fedmf/v1/federation.pb.h"
#include "fedmf/v1/replica.pb.h"
#include "server/aggregation.h"
#include "server/clock.h"
#include "server/connection.h"
#include "server/coordinator_options.h"
#include "server/device_link.h"
#include "server/phase_runner.h"
#include "server/placement.h"
#include "wire/envelope.h"
#include "wire/traffic.h"

namespace fedmf::server {

class FrontFleet final : public Devices {
 public:
  // Sends a message down one front's link, in order; must not block (InProcessChannel::Send).
  using Link = std::function<void(v1::CombinerMessage)>;

  // `mu` is the lock shared with `events`' side; SealStage waits up to options.seal_timeout past
  // the stage's deadline (or the call, if later) on `clock`; options.num_users and
  // max_streams_per_client configure the Placement; the fleet is options.models' publish
  // listener until it is destroyed. No front is attached yet.
  FrontFleet(std::mutex& mu, DeviceEvents& events, Clock& clock, const CoordinatorOptions& options);
  ~FrontFleet();
  FrontFleet(const FrontFleet&) = delete;
  FrontFleet& operator=(const FrontFleet&) = delete;
  // Participant ids are in [1, num_users] from now on (Placement::set_num_users; a service's
  // next run, or Registry::kAnyUser between runs): every front is told so in a Welcome, as fronts
  // that attach later are. Takes the lock.
  void SetNumUsers(int64_t num_users);
  // A front named `name` attached: `link` sends down its replica link from now on, starting
  // with a Welcome: the participant range, whether training is over (a result said so), the
  // published models the store keeps and the check-in period and window. Returns the
  // front's index, which names it in Receive and Lost; indices are never reused (a front that
  // attaches again is a new one). Any thread; takes the lock.
  size_t Attach(Link link, std::string name);

  // What front `front` sent (its link's thread; takes the lock). A participant's message or drop
  // relayed by a front while it is live on another is ignored (MovedFrom).
  void Receive(size_t front, const v1::FrontMessage& message);
  // Front `front`'s link ended (its process died, it went silent, its send queue overflowed or a
  // partition cut it; docs/scale-out.md section 7): its users are live no more, those in the
  // aggregation drop out of it, and it owes no partial sum. What it sends from now on is ignored:
  // a front that comes back is a new one. Any thread; takes the lock.
  void Lost(size_t front);

  // Devices (device_link.h).
  std::vector<uint32_t> Open(const v1::RoundTask& task,
                             const std::vector<uint32_t>& cohort) override;
  // The receivers that are live somewhere go to their front, which drops those it cannot reach.
  std::vector<uint32_t> Route(Aggregation::Envelopes envelopes) override;
  std::vector<uint32_t> LiveUsers() const override { return placement_.LiveUsers(); }
  int64_t LiveUserCount() const override { return placement_.LiveUserCount(); }
  bool IsLiveUser(uint32_t participant_id) const override {
    return placement_.IsLiveUser(participant_id);
  }
  std::string SigningKeyOf(uint32_t participant_id) const override {
    return placement_.SigningKeyOf(participant_id);
  }
  void Broadcast(const v1::RoundResult& result) override;
  // Tells every front to end its streams; returns how many fronts it told (each ends its own).
  int CloseAll(const absl::Status& status) override;
  // Sends every front Release; with check-in, returns once each has said it released the round's
  // users (Released), was lost, or the seal timeout passed, so that the next cohort is drawn
  // from the users still live, as on a single coordinator.
  void ReleaseRound() override;
  // The link's bytes since the last Open, by the stage of what they carry: relayed messages and
  // partial sums up, tasks, routed messages and results down.
  PhaseTransport::Traffic CurrentTraffic() const override;
  // Sends Seal to the fronts that owe the aggregation whose MaskedInputRequests went out its
  // partial sum, and returns once each has answered or the seal timeout passed (a front that
  // did not answer loses its members that did not send, when the stage closes).
  void SealStage(absl::Time deadline) override;

  // Any thread: Admin.Status's figures (the live users, the links' bytes, each attached front's
  // last report).
  void AddTo(v1::StatusResponse& status) const;

 private:
  // A front's stream: the front, and its id there.
  using RemoteStream = std::pair<size_t, uint64_t>;
  // Under mu_.
  void Changed(size_t front, const v1::StreamsChanged& changed);
  void Relay(size_t front, const v1::Relayed& relayed);
  // Settles what front `front` owed; delivers a partial with members.
  void DeliverPartial(size_t front, const v1::PartialSum& partial);
  // The front of the stream `participant_id` is live on (none: not live).
  std::optional<size_t> FrontOf(uint32_t participant_id) const;
  // Whether `participant_id` is live on a front other than `front` (its stream there was refused
  // or taken over). A user live nowhere is not: the drop of a member whose stream ended before
  // its task reached the front must count.
  bool MovedFrom(size_t front, uint32_t participant_id) const;
  // Sends to front `front` (not lost), counting its bytes.
  void SendTo(size_t front, v1::CombinerMessage message);
  // Sends to every front that is not lost (outside the lock: a result is large); returns how many.
  int SendAll(const v1::CombinerMessage& message);
  // The Welcome's run state (not its models). Under mu_.
  v1::Welcome WelcomeUnderLock() const;
  // Counts `message` as sent down `front`'s link and returns the link, empty once it is lost.
  Link CountSent(size_t front, const v1::CombinerMessage& message);

  std::mutex& mu_;
  DeviceEvents& events_;
  const std::shared_ptr<ModelStore> models_;  // null: the run publishes none
  // An attached front: its link (empty once lost) and its last report, with the link's bytes.
  struct Attached {
    Link link;
    v1::FrontStatus status;
  };
  std::vector<Attached> fronts_;  // by index
  Clock& clock_;
  const absl::Duration seal_timeout_;
  // A front's partial arrived (SealStage), or its word that it released the round (ReleaseRound).
  std::condition_variable settled_;
  // The aggregation whose MaskedInputRequests went out last, and the fronts that owe its partial.
  wire::AggregationTag masked_input_tag_;
  std::set<size_t> owing_;
  std::set<size_t> releasing_;     // with check-in: the fronts that have not yet said Released
  std::set<size_t> lost_;          // fronts whose link ended
  int64_t num_users_;              // the Welcome's
  const absl::Duration check_in_period_;  // the Welcome's: options.check_in_period and window
  const absl::Duration check_in_window_;
  bool training_done_ = false;     // the Welcome's: a result said so (until a next run's range)
  Placement placement_;            // every front's streams, each as a Connection that only names it
  std::map<RemoteStream, std::shared_ptr<Connection>> streams_;
  absl::flat_hash_map<const Connection*, RemoteStream> where_;
  uint64_t next_proxy_id_ = 1;
  wire::TrafficCounter traffic_;   // since the last Open
  int64_t bytes_in_ = 0, bytes_out_ = 0;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_FRONT_FLEET_H_
