// The device half of the coordinator: the client streams and what only they need. It holds the
// registry (registrations waiting for their stream) and the placement (which stream hosts which
// user), reassembles chunked uploads, checks that a stream hosts the participant it speaks for
// and reports each message and each drop to the aggregation side (DeviceEvents, device_link.h),
// sends tasks, replies and results (in chunks when large, each serialized once for every stream),
// ends revoked streams and stalled uploads, and sends idle devices away with check-in. It is the
// StreamHandler of every Participate reactor and the Devices of the aggregation half, with which
// it shares one mutex (device_link.h). Nothing heavy runs under it: parsing, routing, bookkeeping;
// reassembly, revocation checks and the sending of large or final messages happen outside it.
#ifndef FEDMF_SERVER_DEVICE_STREAMS_H_
#define FEDMF_SERVER_DEVICE_STREAMS_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "fedmf/v1/federation.pb.h"
#include "server/chunked_upload.h"
#include "server/clock.h"
#include "server/connection.h"
#include "server/coordinator_options.h"
#include "server/device_link.h"
#include "server/message_bounds.h"
#include "server/placement.h"
#include "server/registry.h"
#include "wire/traffic.h"

namespace fedmf::server {

class DeviceStreams final : public StreamHandler, public Devices {
 public:
  // `mu` is the lock shared with `events`' side; `clock` bounds WaitForDisconnects.
  DeviceStreams(const CoordinatorOptions& options, Clock& clock, std::mutex& mu,
                DeviceEvents& events);

  // The session token of a registration (Registry::Register), logged as event=register.
  absl::StatusOr<std::string> Register(const v1::RegisterRequest& request,
                                       absl::string_view identity);
  // Registry::CheckPending, before a stream takes a place.
  absl::Status CheckSessionToken(absl::string_view session_token, absl::string_view identity);
  // Participant ids are in [1, num_users] from now on (Registry::kAnyUser between a service's
  // runs: any id registers and is live); registrations and streams stay.
  void SetNumUsers(int64_t num_users);
  // Check-in's period and window from now on (a front's, from its combiner's Welcome; at first
  // options.check_in_period and check_in_window). A zero period turns check-in off.
  void SetCheckIn(absl::Duration period, absl::Duration window);

  // StreamHandler (gRPC threads).
  absl::Status OnStreamOpen(const std::shared_ptr<Connection>& connection,
                            absl::string_view session_token) override;
  absl::Status OnClientMessage(const std::shared_ptr<Connection>& connection,
                               const v1::ClientMessage& message) override;
  void OnStreamClosed(const std::shared_ptr<Connection>& connection) override;
  void OnMessageRefused(const std::shared_ptr<Connection>& connection,
                        const absl::Status& status) override;
  // The largest of the tasks opened so far (message_bounds.h), so that late messages of earlier
  // aggregations fit too; kUnplannedBounds before the first.
  MessageBounds ClientMessageBounds() const override;

  // Devices (device_link.h).
  std::vector<uint32_t> Open(const v1::RoundTask& task,
                             const std::vector<uint32_t>& cohort) override;
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
  int CloseAll(const absl::Status& status) override;
  // With check-in, the round's users' streams (of clients that accept it, whatever their age)
  // are ended as DismissIdleStreams ends the others', so the next cohort is drawn from others.
  void ReleaseRound() override;
  PhaseTransport::Traffic CurrentTraffic() const override;
  // Every message reaches the aggregation as it arrives: nothing is held back.
  void SealStage(absl::Time) override {}

  // Under the shared lock: the bound streams, and the registration one hosts (null: unbound).
  std::vector<std::shared_ptr<Connection>> Streams() const { return placement_.Connections(); }
  const Registration* RegistrationOf(const Connection& stream) const {
    return placement_.RegistrationOf(&stream);
  }

  // Any thread.
  // Ends `stream` with `status` (a front's stream that the combiner refused or another front's
  // stream took over): unbound at once, its users drop out as on any closed stream, logged as
  // event=stream_ended.
  void EndStream(const std::shared_ptr<Connection>& stream, const absl::Status& status);
  // Admin.Status's figures of the streams: users, streams, check-ins, bytes.
  void AddTo(v1::StatusResponse& status) const;
  // Ends (PERMISSION_DENIED) the live streams whose client identity options.revoked names,
  // logging event=stream_revoked; their users then drop out as on any closed stream. A stream
  // that sends is refused at its next message anyway (OnClientMessage): this sweep is for the
  // silent ones. Returns how many streams it ended.
  int EndRevokedStreams();
  // Ends (DEADLINE_EXCEEDED) the streams whose chunked upload started more than
  // options.upload_timeout before `now`, logging event=upload_stalled; returns how many.
  int EndStalledUploads(absl::Time now);
  // Check-in (options.check_in_period > 0): ends, each with a CheckInLater, the streams of
  // clients that accept check-in, bound at least the check-in window before `now`, hosting
  // no user of the round in progress (its phases' cohorts so far), while an aggregation is in
  // progress; their users are no longer live at once. Nothing is ended between aggregations,
  // while the driver may be choosing a cohort among the live users (ReleaseRound ends the last
  // round's). Logs event=check_in_dismissed; returns how many streams it ended.
  int DismissIdleStreams(absl::Time now);
  // When the last stream DismissIdleStreams ended is due back (InfinitePast: none), so that a
  // one-shot coordinator can stay until every dismissed device has heard that training is over.
  absl::Time CheckInsDueBy() const;
  uint64_t upload_buffer_bytes() const { return upload_budget_.held(); }
  // Waits (up to `timeout`) until every client stream has closed.
  void WaitForDisconnects(absl::Duration timeout);
  uint64_t NextConnectionId() { return next_connection_id_.fetch_add(1); }

 private:
  // Redeems the session token (registry) and places its registration on `connection`
  // (placement): Registry::Redeem's and Placement::Bind's errors, FAILED_PRECONDITION if the
  // stream is already bound. Under mu_.
  absl::StatusOr<Placement::Takeover> Bind(absl::string_view session_token,
                                           const std::shared_ptr<Connection>& connection);
  // A whole (unchunked or reassembled) message of a bound stream: to the aggregation side if
  // the stream hosts its participant. Under mu_.
  absl::Status Dispatch(const std::shared_ptr<Connection>& connection,
                        const v1::ClientMessage& message);
  // Reassembles outside mu_ (the stream's reader owns its ChunkedUpload); locks to check the
  // participant and to dispatch the whole message.
  absl::Status HandleChunk(const std::shared_ptr<Connection>& connection,
                           const v1::ClientMessage& message);
  // PERMISSION_DENIED, logged as event=stream_revoked, if the identity the stream was opened with
  // is revoked now (options.revoked, called without mu_: it may re-read a file); else OK.
  absl::Status CheckRevoked(const Connection& connection) const;
  // The event=message_refused line for a stream ended with `status`. Under mu_.
  void LogRefused(const Connection& connection, const absl::Status& status) const;
  // A message ready to send to any number of streams: its pieces (chunks when large), each
  // serialized once for all of them (OutgoingMessage).
  struct Outgoing {
    wire::Stage stage;
    std::vector<std::shared_ptr<const OutgoingMessage>> pieces;
  };
  Outgoing Prepare(v1::ServerMessage message) const;
  // Sends `message` (as chunks when large) and counts its bytes. Under mu_.
  void Send(Connection& connection, v1::ServerMessage message);
  void Send(Connection& connection, const Outgoing& message);
  // The stream's outbound queue overflowed (a client that does not read): its users leave the
  // round; the stream itself ends as Connection says. Under mu_.
  void DropOverflowed(const Connection& connection);
  // The streams bound changed. Under mu_.
  void Changed();
  // Check-in: ends the streams Placement::CheckInCandidates names for `bound_by` and `done`
  // (keeping round_users_'s); locked on entry, unlocked to send. `why` is logged.
  int Dismiss(std::unique_lock<std::mutex>& lock, absl::Time now, absl::Time bound_by,
              const std::vector<uint32_t>& done, const char* why);

  const CoordinatorOptions& options_;
  Clock& clock_;
  DeviceEvents& events_;
  UploadBudget upload_budget_;  // of all streams' chunked uploads
  std::atomic<int64_t> bytes_in_{0}, bytes_out_{0};
  std::atomic<uint64_t> next_connection_id_{1};

  std::mutex& mu_;
  std::condition_variable disconnected_;  // a stream was unbound (WaitForDisconnects)
  Registry registry_;
  Placement placement_;
  wire::TrafficCounter traffic_;             // since the last Open
  MessageBounds bounds_ = kUnplannedBounds;  // what a client message may be now
  // The cohorts of the round in progress so far, ascending: a later phase's participants come
  // from an earlier phase's cohort, so check-in keeps them all until the next round.
  std::vector<uint32_t> round_users_;
  absl::Duration check_in_period_;  // options.check_in_period, or SetCheckIn's
  absl::Duration check_in_window_;
  absl::BitGen check_in_delays_;
  int64_t dismissed_streams_ = 0;  // by check-in, since the start (Status)
  absl::Time check_ins_due_by_ = absl::InfinitePast();
  // Connection ids of the streams DismissIdleStreams ended, until they close.
  absl::flat_hash_set<uint64_t> checking_in_;
  // The training_done result once broadcast: a stream bound later gets it when it opens.
  std::shared_ptr<const Outgoing> training_done_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_DEVICE_STREAMS_H_
