// A front (docs/scale-out.md, sections 2 and 5): the device half of the coordinator
// (DeviceStreams: registrations, streams, chunks, sending, check-in) with the combiner at the
// other end of a replica link instead of an aggregation in the same process. What its devices do
// goes up the link in the order it happened: its streams as they bind and end, each
// member's message and drop (Relayed), except masked inputs, which it checks and sums itself
// (FrontAggregation) and sends as one partial sum once every member asked has answered or dropped,
// or when the combiner seals the stage. What comes down (a task for its members, routed replies,
// Seal, results, the round's release, CloseAll, the streams the combiner refused or another
// front took over) goes to its streams; a member without a stream any more goes back up as a
// drop. The models the combiner publishes come down too, into the front's own store
// (options.models), from which its devices download them. Which streams' users are live is the
// combiner's decision (FrontFleet's Placement). It is the DeviceEndpoint of its devices and the
// DeviceEvents of its DeviceStreams, with which it shares its one lock; the link must not block
// (InProcessChannel::Send), so the front sends under that lock and the combiner's lock is never
// held with it.
#ifndef FEDMF_SERVER_FRONT_H_
#define FEDMF_SERVER_FRONT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "fedmf/v1/federation.pb.h"
#include "fedmf/v1/replica.pb.h"
#include "server/aggregation_inbox.h"
#include "server/clock.h"
#include "server/coordinator_options.h"
#include "server/device_endpoint.h"
#include "server/device_link.h"
#include "server/device_streams.h"
#include "server/front_aggregation.h"
#include "wire/envelope.h"

namespace fedmf::server {

class Front final : public DeviceEndpoint, public DeviceEvents {
 public:
  // Sends a message up the link to the combiner, in order; must not block.
  using Link = std::function<void(v1::FrontMessage)>;

  // `options`' process fields (enrollment, credentials, stream limits), num_users and
  // models (a store in memory for the combiner's models; null: the front serves none) serve the
  // devices (copied); `clock` bounds WaitForDisconnects.
  Front(const CoordinatorOptions& options, Clock& clock, Link link);

  // What the combiner sent (the link's thread). The front serves devices from a link's Welcome
  // (the combiner's first message, and again for each run of a service: the participant range,
  // whether training is over, the published models and check-in) until the link is lost.
  void Receive(v1::CombinerMessage message);
  // The link to the combiner ended: the front can do nothing for its devices, so it ends their
  // streams with UNAVAILABLE, which sends them to reconnect (to a front that has a combiner), and
  // the aggregation is over for it (docs/scale-out.md section 7). It refuses registrations until
  // the next Welcome, from a new link.
  void CombinerLost();
  // The front process's sweeps, every second (DeviceStreams'): streams of revoked identities,
  // stalled chunked uploads, and with check-in the streams no round needs. Any thread.
  int EndRevokedStreams() { return streams_.EndRevokedStreams(); }
  int EndStalledUploads(absl::Time now) { return streams_.EndStalledUploads(now); }
  int DismissIdleStreams(absl::Time now) { return streams_.DismissIdleStreams(now); }
  // Sends the combiner its devices' figures (streams, users, bytes; Admin.Status's fronts). The
  // front process's watcher calls it every second. Any thread.
  void ReportStats();
  // Between a Welcome and the link's loss (health: SERVING). Any thread.
  bool attached() const {
    std::lock_guard<std::mutex> lock(mu_);
    return attached_;
  }

  // DeviceEndpoint: the devices' calls (gRPC threads). Register refuses with UNAVAILABLE while
  // the front has no combiner; its RegisterResponse carries the session token, the round of the
  // last task, whether training is done (a result said so) and the newest model it keeps.
  absl::Status Register(const v1::RegisterRequest& request, v1::RegisterResponse& response,
                        absl::string_view identity) override;
  absl::Status CheckSessionToken(absl::string_view session_token,
                                 absl::string_view identity) override {
    return streams_.CheckSessionToken(session_token, identity);
  }
  uint64_t NextConnectionId() override { return streams_.NextConnectionId(); }
  ModelStore* published_models() const override { return options_.models.get(); }
  absl::Status OnStreamOpen(const std::shared_ptr<Connection>& connection,
                            absl::string_view session_token) override {
    return streams_.OnStreamOpen(connection, session_token);
  }
  absl::Status OnClientMessage(const std::shared_ptr<Connection>& connection,
                               const v1::ClientMessage& message) override {
    return streams_.OnClientMessage(connection, message);
  }
  void OnStreamClosed(const std::shared_ptr<Connection>& connection) override {
    streams_.OnStreamClosed(connection);
  }
  void OnMessageRefused(const std::shared_ptr<Connection>& connection,
                        const absl::Status& status) override {
    streams_.OnMessageRefused(connection, status);
  }
  MessageBounds ClientMessageBounds() const override { return streams_.ClientMessageBounds(); }

  // DeviceEvents (DeviceStreams, under mu_).
  // Relays the delivery, or sums a masked input a member was asked for; true for the drop of a
  // member of the aggregation in progress.
  bool Deliver(AggregationInbox::Delivery delivery) override;
  // Sends the combiner the streams bound and ended since it was last told.
  void StreamsChanged() override;
  // From a task until the round's result or release.
  bool InAggregation() const override { return open_.has_value(); }

 private:
  // The aggregation of the last task: its tag and the cohort's members on this front.
  struct OpenAggregation {
    wire::AggregationTag tag;
    std::set<uint32_t> members;
  };
  // Keeps a model the combiner published in options_.models (a refusal is logged). Not under mu_.
  void KeepModel(v1::StoredModel model);
  // Under mu_.
  void OpenTask(const v1::Open& open);
  void RouteEnvelopes(v1::Route& route);
  // Sends the partial sum (and what it held back) if due, or now when `seal`.
  void SendPartialIf(bool seal);
  // A member the front cannot reach is gone for the aggregation.
  void DropUnreachable(const std::vector<uint32_t>& ids);
  // Relays one item now.
  void Relay(v1::Relayed::Item item);
  // The aggregation is over for the front.
  void Close();

  const CoordinatorOptions options_;  // streams_ keeps a reference
  const Link link_;
  mutable std::mutex mu_;  // shared with streams_
  DeviceStreams streams_;
  std::optional<OpenAggregation> open_;
  // The MaskedInput stage of the aggregation whose MaskedInputRequests came last.
  std::optional<FrontAggregation> masked_input_;
  // The bound streams the combiner was last told of, by id.
  std::map<uint64_t, std::shared_ptr<Connection>> reported_streams_;
  bool attached_ = false;
  int64_t current_round_ = 0;
  bool training_done_ = false;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_FRONT_H_
