// Many client identities in one process, each with its own registration (signing key, session
// token) and its own Participate stream, on gRPC's callback client API: no thread per stream.
// Streams are spread round-robin over `channels` channels, each its own TCP connection (to a
// target of several addresses, "ipv4:A,B,C" for front replicas, channel c starts from the c-th
// address, so the channels spread over them: rpc::RotatedTarget). A few
// worker threads run the participants' work (local training, SecAgg); one message per stream is
// in flight at a time, so a stream's messages are handled in order. For load tests and for hosts
// that want one identity (one trust domain) per user; RunGrpcClient is the one-stream form.
#ifndef FEDMF_CLIENT_STREAM_POOL_H_
#define FEDMF_CLIENT_STREAM_POOL_H_

#include <atomic>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "client/grpc_client.h"
#include "client/participant_host.h"

namespace fedmf::client {

// What a stream does with a message it received (StreamObserver).
struct StreamAction {
  bool deliver = true;                          // false: the host never sees it (no reply)
  absl::Duration delay = absl::ZeroDuration();  // before a worker hands it to the host
  bool disconnect = false;  // cancel the stream instead; the host re-registers with backoff
};

// Load generation hook (tools/loadgen): called for every whole message a host's stream receives,
// on a gRPC thread as it arrives, so it must be cheap and thread-safe. `host` indexes the hosts
// given to RunStreamPool.
class StreamObserver {
 public:
  virtual ~StreamObserver() = default;
  virtual StreamAction OnReceive(size_t host, const v1::ServerMessage& message) = 0;
  // A registration of `host` was asked at `asked` and answered OK at `answered` (called on the
  // pool's main thread, after the answer).
  virtual void OnRegistered(size_t /*host*/, absl::Time /*asked*/, absl::Time /*answered*/) {}
};

struct StreamPoolOptions {
  GrpcClientOptions client;  // target, token, backoff, give-up; `name` prefixes each stream's name
  int channels = 1;          // >= 1; capped at the number of hosts
  int workers = 2;           // threads running the hosts' work, >= 1
  StreamObserver* observer = nullptr;  // optional, not owned; outlives RunStreamPool
};

// Runs every host on its own stream until all hosts report the training done (OK), `stop`
// becomes true (Cancelled), the coordinator refuses a registration or stream (its status), or one
// host has had no working stream for give_up_after (Unavailable). Broken streams re-register with
// exponential backoff, each host on its own schedule; a stream the coordinator ended with a
// CheckInLater re-registers after the delay it asked for. InvalidArgument for bad options.
absl::Status RunStreamPool(const std::vector<std::unique_ptr<ParticipantHost>>& hosts,
                           const StreamPoolOptions& options, const std::atomic<bool>& stop);

}  // namespace fedmf::client

#endif  // FEDMF_CLIENT_STREAM_POOL_H_
