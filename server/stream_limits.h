// Limits on what clients can make the coordinator's Federation service do, so that no client can
// make it spend memory or CPU without bound: Register calls per second per peer address (token
// bucket, peer_rate_limiter.h), concurrent Participate streams (the extra ones are refused),
// messages per second per stream (token bucket; a stream over it is ended), and the bytes queued
// for a client that does not read (past them the stream is dropped from the round and ended).
// Sizes of single messages are bounded by gRPC itself (--max_message_mib).
#ifndef FEDMF_SERVER_STREAM_LIMITS_H_
#define FEDMF_SERVER_STREAM_LIMITS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "absl/time/time.h"

namespace fedmf::server {

struct StreamLimits {
  double registrations_per_second = 1000;  // per peer address; 0: no limit
  double registration_burst = 10000;       // a load generator registers thousands at once
  int64_t max_streams = 65536;        // concurrent Participate streams; more: RESOURCE_EXHAUSTED
  double messages_per_second = 1000;  // per stream, refill rate of its bucket; 0: no limit
  double message_burst = 20000;       // bucket size: a process hosting many users answers a
                                      // stage with one message per user at once
  uint64_t max_queued_bytes = 256ULL << 20;  // unsent bytes per stream beyond the message in flight
};

// Token bucket: starts full with `burst` tokens, refills `rate` per second up to `burst`.
class TokenBucket {
 public:
  TokenBucket(double rate, double burst, absl::Time now)
      : rate_(rate), burst_(burst), tokens_(burst), last_(now) {}
  // Takes one token; false (nothing taken) when the bucket is empty. Always true when rate <= 0.
  bool Take(absl::Time now);
  // Whether the bucket has refilled completely by `now` (its owner has been idle long enough).
  bool Full(absl::Time now) const;

 private:
  double rate_;
  double burst_;
  double tokens_;
  absl::Time last_;
};

// Whether queueing a message of `next_bytes` behind `queued_messages` messages of `queued_bytes`
// would exceed `max_bytes`: a message alone in the queue always goes (a plan larger than the
// limit is still sent), a backlog is bounded.
inline bool QueueWouldOverflow(size_t queued_messages, uint64_t queued_bytes, uint64_t next_bytes,
                               uint64_t max_bytes) {
  return queued_messages > 0 && queued_bytes + next_bytes > max_bytes;
}

// Counts live streams against a maximum (thread-safe).
class StreamCounter {
 public:
  explicit StreamCounter(int64_t max) : max_(max) {}
  bool TryAcquire();
  void Release() { live_.fetch_sub(1); }
  int64_t live() const { return live_.load(); }

 private:
  const int64_t max_;
  std::atomic<int64_t> live_{0};
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_STREAM_LIMITS_H_
