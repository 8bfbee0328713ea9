// Which live stream hosts which user: the invariants across streams, which on the scale-out
// combiner span every front (docs/scale-out.md section 6). Bind places a redeemed registration
// (registry.h) on its stream: one live stream per user; live streams capped per client (one TLS
// identity, and one token credential, holds at most max_streams_per_client each; the shared
// token, without a TLS identity, is nobody's in particular: no cap). With a credentials file, a
// client without the credential of an id cannot keep its legitimate holder out, and a holder that
// reconnects while its old stream still looks alive takes the ids over (the old stream is handed
// back to be ended). It also answers for the live users: their signing keys, who a cohort may be
// drawn from, and which streams check-in may end.
// Not thread-safe: DeviceStreams calls it under its lock.
#ifndef FEDMF_SERVER_PLACEMENT_H_
#define FEDMF_SERVER_PLACEMENT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "server/connection.h"
#include "server/registry.h"

namespace fedmf::server {

class Placement {
 public:
  // Live users are those with ids in [1, num_users].
  explicit Placement(int64_t num_users) : num_users_(num_users) {}
  // Live users are those in [1, num_users] from now on (Registry::kAnyUser: every id); streams
  // bound stay, hosting their users out of range too.
  void set_num_users(int64_t num_users);
  // Live streams per TLS identity and per token credential; 0: no limit. Default 1: one client,
  // one live stream (a copied certificate or token cannot join a second time); a
  // --one_stream_per_user client needs its user count.
  void set_max_streams_per_client(int64_t n) { max_streams_per_client_ = n; }
  // Tests: the clock streams are bound by (default absl::Now).
  void set_clock(std::function<absl::Time()> clock) { clock_ = std::move(clock); }

  // What a Bind took over: the live streams it replaced (same credential from a credentials file,
  // hosting some of its users), already unbound, for the caller to end, and the users they hosted.
  struct Takeover {
    std::vector<std::shared_ptr<Connection>> streams;
    std::vector<uint32_t> participant_ids;
  };
  // Binds `registration` to `connection`, which must not be bound yet (IsBound), taking over as
  // above. ALREADY_EXISTS when one of its users is hosted by a live stream of another credential
  // (or any live stream, without credentials) or its identity or token credential already has
  // max_streams_per_client live streams.
  absl::StatusOr<Takeover> Bind(Registration registration,
                                const std::shared_ptr<Connection>& connection);
  // Forgets the stream; returns the users it hosted.
  std::vector<uint32_t> Unbind(const Connection* connection);

  bool IsBound(const Connection* connection) const { return streams_.contains(connection); }
  bool Owns(const Connection* connection, uint32_t participant_id) const;
  std::shared_ptr<Connection> ConnectionOf(uint32_t participant_id) const;
  std::string NameOf(const Connection* connection) const;
  // The registration a bound stream hosts (null: not bound).
  const Registration* RegistrationOf(const Connection* connection) const;
  // The registered Ed25519 signing key of the stream hosting `participant_id` (empty if none).
  std::string SigningKeyOf(uint32_t participant_id) const;
  // Users on live streams with ids in [1, num_users], ascending.
  std::vector<uint32_t> LiveUsers() const;
  // LiveUsers().size() in O(1): kept as streams bind and end, since a waiting round driver asks
  // on every change (O(n) each would make n connecting devices cost O(n^2)).
  int64_t LiveUserCount() const { return live_in_range_; }
  // `participant_id` is among LiveUsers().
  bool IsLiveUser(uint32_t participant_id) const {
    return participant_id <= num_users_ && owner_.contains(participant_id);
  }
  std::vector<std::shared_ptr<Connection>> Connections() const;
  // The live streams a check-in may end (DeviceStreams::DismissIdleStreams): of clients that accept
  // check-in, hosting none of `kept`, and either bound at or before `bound_by` or hosting one of
  // `done` (both ascending).
  std::vector<std::shared_ptr<Connection>> CheckInCandidates(
      absl::Time bound_by, const std::vector<uint32_t>& kept,
      const std::vector<uint32_t>& done = {}) const;
  // Connections().size() without copying them.
  int64_t ConnectionCount() const { return static_cast<int64_t>(streams_.size()); }

 private:
  struct Stream {
    std::shared_ptr<Connection> connection;
    Registration registration;
    absl::Time bound_at;
  };

  int64_t num_users_;
  int64_t max_streams_per_client_ = 1;
  std::function<absl::Time()> clock_ = [] { return absl::Now(); };
  absl::flat_hash_map<const Connection*, Stream> streams_;
  std::map<uint32_t, const Connection*> owner_;  // live users
  int64_t live_in_range_ = 0;                    // owner_'s ids <= num_users_
  // Live streams per StreamOwners() entry (placement.cc).
  absl::flat_hash_map<std::string, int64_t> client_streams_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_PLACEMENT_H_
