// Which client processes are enrolled and which users each live stream hosts. Register checks
// the client's credential, the protocol version and the users, and hands out a random session
// token, bound to the TLS identity it was issued on; a Participate stream presents it in its
// metadata when it opens (Bind), from that same identity (a token copied to another certificate
// opens nothing). The credential is the shared enrollment token (constant-time compare; any id
// may then be claimed), or, with a credentials file (credentials.h), the client's own token or
// TLS identity, which names the ids it may host: then a client without the credential of an id
// can neither register it nor keep its legitimate holder out, and a holder that reconnects while
// its old stream still looks alive takes the ids over (the old stream is ended). A token
// credential is a bearer secret: whoever holds it registers its ids from any certificate (or none),
// so that deployments without client certificates can use it; ids bound to a certificate are an
// identity credential's. Live streams are capped per client: one TLS identity, and one token
// credential, holds at most max_streams_per_client each (the shared token, without a TLS
// identity, is nobody's in particular: no cap). Registrations waiting for their stream are
// bounded in number (in all, and per client credential or identity) and expire after
// pending_ttl, so a flood of registrations that never bind locks nobody out for longer than that.
// Not thread-safe: the stream router calls it under its lock.
#ifndef FEDMF_SERVER_REGISTRY_H_
#define FEDMF_SERVER_REGISTRY_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "fedmf/v1/federation.pb.h"
#include "server/connection.h"
#include "server/credentials.h"

namespace fedmf::server {

// How many registrations may wait for their stream, and for how long.
struct PendingLimits {
  size_t max_pending = 100000;  // in all
  // per client: its credential from the credentials file, else its TLS identity (registrations
  // with the shared token and no TLS identity: no cap)
  size_t max_pending_per_client = 64;
  absl::Duration ttl = absl::Seconds(60);  // a session token not presented by then expires
};

class Registry {
 public:
  // Participant ids must be in [1, num_users].
  Registry(std::string enrollment_token, int64_t num_users, PendingLimits limits = {})
      : token_(std::move(enrollment_token)), num_users_(num_users), limits_(limits) {}
  // Participant ids are in [1, num_users] from now on (a long-running service's next run, or
  // kAnyUser between runs); live registrations are kept, but only those in range are LiveUsers.
  void set_num_users(int64_t num_users);
  // Every participant id (a long-running service between runs: the next run's range is unknown).
  static constexpr int64_t kAnyUser = std::numeric_limits<uint32_t>::max();

  // The session token. UNAUTHENTICATED for a wrong token (or, with credentials, neither token nor
  // identity listed), PERMISSION_DENIED for an id its credential does not hold, INVALID_ARGUMENT
  // for a bad version, signing key or participant id, RESOURCE_EXHAUSTED when too many
  // registrations wait (in all, or of `identity`). `identity`: the client's verified TLS identity
  // (empty: none).
  absl::StatusOr<std::string> Register(const v1::RegisterRequest& request,
                                       absl::string_view identity = "");
  // What a Bind took over: the live streams it replaced (same credential from a credentials file,
  // hosting some of its users), already unbound, for the caller to end, and the users they hosted.
  struct Takeover {
    std::vector<std::shared_ptr<Connection>> streams;
    std::vector<uint32_t> participant_ids;
  };
  // Binds the registration to `connection` (taking over as above). NOT_FOUND and
  // PERMISSION_DENIED as CheckPending for connection->identity(); ALREADY_EXISTS when one of its
  // users is hosted by a live stream of another credential (or any live stream, without
  // credentials) or its identity or token credential already has max_streams_per_client live
  // streams (a refused registration is used up: register again), FAILED_PRECONDITION if the
  // stream is already bound.
  absl::StatusOr<Takeover> Bind(absl::string_view session_token,
                                const std::shared_ptr<Connection>& connection);
  // The check Bind starts with, for refusing a stream before it takes a place: NOT_FOUND unless
  // `session_token` names a registration not yet bound and not expired (register again),
  // PERMISSION_DENIED when it was issued on another TLS identity than `identity` (the stream's;
  // the registration stays for its own client).
  absl::Status CheckPending(absl::string_view session_token, absl::string_view identity);
  // Binds ids to credentials from now on: `credentials` returns the current file (credentials.h).
  void set_credentials(std::function<std::shared_ptr<const Credentials>()> credentials) {
    credentials_ = std::move(credentials);
  }
  // Live streams per TLS identity and per token credential; 0: no limit. Default 1: one client,
  // one live stream (a copied certificate or token cannot join a second time); a
  // --one_stream_per_user client needs its user count.
  void set_max_streams_per_client(int64_t n) { max_streams_per_client_ = n; }
  // Tests: the clock pending registrations expire by (default absl::Now).
  void set_clock(std::function<absl::Time()> clock) { clock_ = std::move(clock); }
  size_t pending() const { return pending_.size(); }
  // Forgets the stream; returns the users it hosted.
  std::vector<uint32_t> Unbind(const Connection* connection);

  bool IsBound(const Connection* connection) const { return streams_.contains(connection); }
  bool Owns(const Connection* connection, uint32_t participant_id) const;
  std::shared_ptr<Connection> ConnectionOf(uint32_t participant_id) const;
  std::string NameOf(const Connection* connection) const;
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
  // The live streams a check-in may end (stream_router.h): of clients that accept check-in,
  // hosting none of `kept`, and either bound at or before `bound_by` or hosting one of `done`
  // (both ascending).
  std::vector<std::shared_ptr<Connection>> CheckInCandidates(
      absl::Time bound_by, const std::vector<uint32_t>& kept,
      const std::vector<uint32_t>& done = {}) const;
  // Connections().size() without copying them.
  int64_t ConnectionCount() const { return static_cast<int64_t>(streams_.size()); }

 private:
  struct Registration {
    absl::Time expires;
    std::string name;
    std::string identity;    // verified TLS identity, empty without mutual TLS
    std::string credential;  // from the credentials file; empty with the shared token
    std::string signing_key;
    std::vector<uint32_t> participant_ids;  // ascending, distinct
    bool accepts_check_in = false;          // RegisterRequest.accepts_check_in
    // Who max_pending_per_client counts this registration against (empty: nobody).
    std::string PendingKey() const { return credential.empty() ? identity : credential; }
    // Who max_streams_per_client counts its stream against, as error messages name them: its
    // TLS identity and its token credential (an identity credential is the identity itself).
    std::vector<std::string> StreamOwners() const;
  };
  struct Stream {
    std::shared_ptr<Connection> connection;
    Registration registration;
    absl::Time bound_at;
  };

  // Forgets the registrations whose session token expired by `now`.
  void ExpirePending(absl::Time now);
  // The pending registration `session_token` names, checked as CheckPending says.
  absl::StatusOr<absl::flat_hash_map<std::string, Registration>::iterator> FindPending(
      absl::string_view session_token, absl::string_view identity);
  // Removes a pending registration (its identity's count too).
  void ErasePending(absl::flat_hash_map<std::string, Registration>::iterator it);

  std::string token_;
  int64_t num_users_;
  PendingLimits limits_;
  int64_t max_streams_per_client_ = 1;
  std::function<absl::Time()> clock_ = [] { return absl::Now(); };
  std::function<std::shared_ptr<const Credentials>()> credentials_;
  absl::flat_hash_map<std::string, Registration> pending_;  // by session token
  // Session tokens in order of registration (so of expiry); some may be bound already.
  std::deque<std::string> pending_order_;
  absl::flat_hash_map<std::string, size_t> pending_per_client_;
  absl::flat_hash_map<const Connection*, Stream> streams_;
  std::map<uint32_t, const Connection*> owner_;  // live users
  int64_t live_in_range_ = 0;                    // owner_'s ids <= num_users_
  // Live streams per StreamOwners() entry.
  absl::flat_hash_map<std::string, int64_t> client_streams_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_REGISTRY_H_
