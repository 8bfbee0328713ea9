// Registrations waiting for their stream, on the process devices connect to (a front, or the
// single coordinator). Register checks the client's credential, the protocol version and the
// users, and hands out a random session token, bound to the TLS identity it was issued on; a
// Participate stream presents it in its metadata when it opens and redeems it (Redeem), from that
// same identity (a token copied to another certificate opens nothing). The credential is the
// shared enrollment token (constant-time compare; any id may then be claimed), or, with a
// credentials file (credentials.h), the client's own token or TLS identity, which names the ids it
// may host: then a client without the credential of an id cannot register it. A token credential
// is a bearer secret: whoever holds it registers its ids from any certificate (or none), so that
// deployments without client certificates can use it; ids bound to a certificate are an identity
// credential's. Registrations waiting for their stream are bounded in number (in all, and per
// client credential or identity) and expire after pending_ttl, so a flood of registrations that
// never bind locks nobody out for longer than that. Which stream hosts which user, and the limits
// across streams, are the Placement's (placement.h), which binds what Redeem returns.
// Not thread-safe: DeviceStreams calls it under its lock.
#ifndef FEDMF_SERVER_REGISTRY_H_
#define FEDMF_SERVER_REGISTRY_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "fedmf/v1/federation.pb.h"
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

// What a registration claims, checked by Register: the users a stream that redeems it hosts and
// who it is.
struct Registration {
  std::string name;
  std::string identity;    // verified TLS identity, empty without mutual TLS
  std::string credential;  // from the credentials file; empty with the shared token
  std::string signing_key;
  std::vector<uint32_t> participant_ids;  // ascending, distinct
  bool accepts_check_in = false;          // RegisterRequest.accepts_check_in
};

class Registry {
 public:
  // Participant ids must be in [1, num_users].
  Registry(std::string enrollment_token, int64_t num_users, PendingLimits limits = {})
      : token_(std::move(enrollment_token)), num_users_(num_users), limits_(limits) {}
  // Participant ids are in [1, num_users] from now on (a long-running service's next run, or
  // kAnyUser between runs).
  void set_num_users(int64_t num_users) { num_users_ = num_users; }
  // Every participant id (a long-running service between runs: the next run's range is unknown).
  static constexpr int64_t kAnyUser = std::numeric_limits<uint32_t>::max();

  // The session token. UNAUTHENTICATED for a wrong token (or, with credentials, neither token nor
  // identity listed), PERMISSION_DENIED for an id its credential does not hold, INVALID_ARGUMENT
  // for a bad version, signing key or participant id, RESOURCE_EXHAUSTED when too many
  // registrations wait (in all, or of `identity`). `identity`: the client's verified TLS identity
  // (empty: none).
  absl::StatusOr<std::string> Register(const v1::RegisterRequest& request,
                                       absl::string_view identity = "");
  // NOT_FOUND unless `session_token` names a registration not yet redeemed and not expired
  // (register again), PERMISSION_DENIED when it was issued on another TLS identity than
  // `identity` (the stream's; the registration stays for its own client).
  absl::Status CheckPending(absl::string_view session_token, absl::string_view identity);
  // The registration, checked as CheckPending, and no longer pending: a session token opens one
  // stream, whether the Placement then binds it or refuses it.
  absl::StatusOr<Registration> Redeem(absl::string_view session_token, absl::string_view identity);
  // Binds ids to credentials from now on: `credentials` returns the current file (credentials.h).
  void set_credentials(std::function<std::shared_ptr<const Credentials>()> credentials) {
    credentials_ = std::move(credentials);
  }
  // Tests: the clock pending registrations expire by (default absl::Now).
  void set_clock(std::function<absl::Time()> clock) { clock_ = std::move(clock); }
  size_t pending() const { return pending_.size(); }

 private:
  struct Pending {
    Registration registration;
    absl::Time expires;
  };
  using PendingMap = absl::flat_hash_map<std::string, Pending>;  // by session token

  // Forgets the registrations whose session token expired by `now`.
  void ExpirePending(absl::Time now);
  // The pending registration `session_token` names, checked as CheckPending says.
  absl::StatusOr<PendingMap::iterator> FindPending(absl::string_view session_token,
                                                   absl::string_view identity);
  // Removes a pending registration (its client's count too) and returns it.
  Registration TakePending(PendingMap::iterator it);

  std::string token_;
  int64_t num_users_;
  PendingLimits limits_;
  std::function<absl::Time()> clock_ = [] { return absl::Now(); };
  std::function<std::shared_ptr<const Credentials>()> credentials_;
  PendingMap pending_;
  // Session tokens in order of registration (so of expiry); some may be redeemed already.
  std::deque<std::string> pending_order_;
  absl::flat_hash_map<std::string, size_t> pending_per_client_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_REGISTRY_H_
