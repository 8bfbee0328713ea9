// Rate limits per peer address for calls anyone who reaches the port can make (Register): each
// address (the peer's host, without its port) has a token bucket of `burst` calls refilled at
// `rate` per second. Bounded memory: at most `max_peers` buckets; when that many addresses are
// tracked, the buckets that have refilled (idle peers) are forgotten, and if none has, a new
// address is refused until one does. Thread-safe.
#ifndef FEDMF_SERVER_PEER_RATE_LIMITER_H_
#define FEDMF_SERVER_PEER_RATE_LIMITER_H_

#include <cstddef>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "server/stream_limits.h"

namespace fedmf::server {

// "ipv4:10.0.0.7:52908" -> "ipv4:10.0.0.7", "ipv6:[::1]:4000" -> "ipv6:[::1]"; other forms
// (unix sockets) stay whole.
absl::string_view PeerAddress(absl::string_view peer);

class PeerRateLimiter {
 public:
  // rate <= 0: no limit.
  PeerRateLimiter(double rate, double burst, size_t max_peers = 100000)
      : rate_(rate), burst_(burst), max_peers_(max_peers) {}

  // Takes one call from `peer`'s bucket (a gRPC peer string); false when it is empty.
  bool Allow(absl::string_view peer, absl::Time now);
  size_t tracked() const;

 private:
  const double rate_;
  const double burst_;
  const size_t max_peers_;
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, TokenBucket> buckets_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_PEER_RATE_LIMITER_H_
