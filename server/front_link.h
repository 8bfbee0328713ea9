// The front's end of its replica link (docs/scale-out.md sections 7 and 9): it keeps one
// Replica.Attach call to the combiner open. Each call starts with a FrontHello; what the combiner
// sends goes to the Front in order, what the Front sends goes up the current call (a bounded
// LinkQueue, so the Front sends under its lock without blocking), and is dropped while there is
// none. When a call ends, however it ends, the Front loses its combiner (Front::CombinerLost:
// its device streams end with UNAVAILABLE) and the link attaches again after a backoff; the
// combiner treats the new call as a new front. The channel carries keepalive pings, so a
// combiner that went silent is found without waiting for TCP.
#ifndef FEDMF_SERVER_FRONT_LINK_H_
#define FEDMF_SERVER_FRONT_LINK_H_

#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "fedmf/v1/replica.grpc.pb.h"
#include "server/front.h"
#include "server/link_queue.h"

namespace fedmf::server {

class FrontLink {
 public:
  // `channel` reaches the combiner; `name` is this front's, in the combiner's logs.
  FrontLink(std::shared_ptr<grpc::Channel> channel, std::string name, uint64_t max_queued_bytes);

  // The Front's Link: sends up the current call; dropped when there is none. Any thread.
  void Send(v1::FrontMessage message);

  // Attaches `front` to the combiner until Stop: a call, then CombinerLost when it ends, a
  // backoff (from 100 ms doubling to 5 s, back to 100 ms after a call that got its Welcome), and
  // the next. Blocks the calling thread.
  void Run(Front& front);
  // Any thread: Run returns (the call in progress is cancelled, and the front loses its combiner).
  void Stop();

 private:
  class Call;

  const std::shared_ptr<grpc::Channel> channel_;
  const std::unique_ptr<v1::Replica::Stub> stub_;
  const std::string name_;
  const uint64_t max_queued_bytes_;
  // How a call ended.
  struct Ended {
    grpc::Status status;
    bool welcomed;  // the combiner accepted the front (a Welcome came)
  };

  std::mutex mu_;
  std::condition_variable changed_;  // stop_ or ended_
  bool stop_ = false;
  std::shared_ptr<LinkQueue<v1::FrontMessage>> current_;  // the call's queue; null between calls
  Call* call_ = nullptr;                                  // the call in progress, for Stop
  std::optional<Ended> ended_;                            // set by the call's OnDone
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_FRONT_LINK_H_
