// One simulated client process of fedmf-sim: a ParticipantHost on its own worker thread, joined
// to a coordinator or a front (a DeviceEndpoint) the way fedmf-client joins over gRPC (Register,
// then a stream whose first message is the session token), through an in-process Connection
// instead of a socket. The connection's sink only queues (the stream router calls it under its
// lock); the worker answers the messages in order and hands each reply to
// DeviceEndpoint::OnClientMessage as the host produces it (ParticipantHost's reply sink: a task's
// replies are never all held at once), so the client processes compute in parallel while the
// coordinator stays the single round driver. Given the coordinator's ProgressClock, a client holds
// the clock still from the moment a message is queued until its replies are delivered (or the
// worker ends and drops what is queued).
#ifndef FEDMF_TOOLS_SIM_IN_PROCESS_CLIENT_H_
#define FEDMF_TOOLS_SIM_IN_PROCESS_CLIENT_H_

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "client/participant_host.h"
#include "server/device_endpoint.h"
#include "tools/sim/progress_clock.h"

namespace fedmf::sim {

class InProcessClient {
 public:
  // Registers `host`'s users with `enrollment_token`, opens the stream and starts the worker.
  // Errors are the coordinator's refusals (e.g. UNAUTHENTICATED, ALREADY_EXISTS). `clock`: the
  // coordinator's, if a ProgressClock (null: none), which must outlive this client.
  static absl::StatusOr<std::unique_ptr<InProcessClient>> Connect(
      server::DeviceEndpoint& coordinator, std::unique_ptr<client::ParticipantHost> host,
      const std::string& name, const std::string& enrollment_token, ProgressClock* clock = nullptr);

  // Stops the worker (pending messages are dropped) and closes the stream if still open. The
  // worker ends by itself, closing its stream, once the coordinator says training is done or
  // refuses a reply (as a gRPC status would end the stream).
  ~InProcessClient();
  InProcessClient(const InProcessClient&) = delete;
  InProcessClient& operator=(const InProcessClient&) = delete;

 private:
  // What the sink and the worker share; the sink keeps it alive on its own.
  struct Inbox {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<v1::ServerMessage> messages;
    bool stop = false;
    bool closed = false;  // the worker ended: messages are dropped, not queued
    ProgressClock* clock = nullptr;
  };

  InProcessClient(server::DeviceEndpoint& coordinator,
                  std::unique_ptr<client::ParticipantHost> host, std::string name,
                  ProgressClock* clock);
  void Work();
  // Drops what is queued and what arrives from now on (the worker is ending).
  void CloseInbox();
  void CloseStream();

  server::DeviceEndpoint& coordinator_;
  std::unique_ptr<client::ParticipantHost> host_;
  const std::string name_;
  std::shared_ptr<Inbox> inbox_;
  std::shared_ptr<server::Connection> connection_;
  bool stream_open_ = false;  // touched by Connect, then the worker, then the destructor
  std::thread worker_;
};

}  // namespace fedmf::sim

#endif  // FEDMF_TOOLS_SIM_IN_PROCESS_CLIENT_H_
