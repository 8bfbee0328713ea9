#include "tools/sim/in_process_client.h"

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "client/registration.h"
#include "common/util/event_log.h"

namespace fedmf::sim {
InProcessClient::InProcessClient(server::DeviceEndpoint& coordinator,
                                 std::unique_ptr<client::ParticipantHost> host, std::string name,
                                 ProgressClock* clock)
    : coordinator_(coordinator),
      host_(std::move(host)),
      name_(std::move(name)),
      inbox_(std::make_shared<Inbox>()) {
  inbox_->clock = clock;
  connection_ =
      std::make_shared<server::Connection>(coordinator_.NextConnectionId(), "in-process:" + name_,
                                           [inbox = inbox_](const v1::ServerMessage& m) {
                                             std::lock_guard<std::mutex> lock(inbox->mu);
                                             if (inbox->closed) return;
                                             // Before anyone can wait on the answer.
                                             if (inbox->clock != nullptr)
                                               inbox->clock->WorkAdded(1);
                                             inbox->messages.push_back(m);
                                             inbox->cv.notify_one();
                                           });
}

absl::StatusOr<std::unique_ptr<InProcessClient>> InProcessClient::Connect(
    server::DeviceEndpoint& coordinator, std::unique_ptr<client::ParticipantHost> host,
    const std::string& name, const std::string& enrollment_token, ProgressClock* clock) {
  v1::RegisterResponse response;
  if (absl::Status s = coordinator.Register(
          client::MakeRegisterRequest(*host, name, enrollment_token), response, "");
      !s.ok()) {
    return s;
  }

  std::unique_ptr<InProcessClient> c(new InProcessClient(coordinator, std::move(host), name, clock));
  if (absl::Status s = coordinator.OnStreamOpen(c->connection_, response.session_token());
      !s.ok()) {
    return s;
  }
  c->stream_open_ = true;
  c->worker_ = std::thread([client = c.get()] { client->Work(); });
  return c;
}

InProcessClient::~InProcessClient() {
  {
    std::lock_guard<std::mutex> lock(inbox_->mu);
    inbox_->stop = true;
    inbox_->cv.notify_all();
  }
  if (worker_.joinable()) worker_.join();
  CloseInbox();
  CloseStream();
}

void InProcessClient::Work() {
  while (true) {
    v1::ServerMessage message;
    {
      std::unique_lock<std::mutex> lock(inbox_->mu);
      inbox_->cv.wait(lock, [this] { return inbox_->stop || !inbox_->messages.empty(); });
      if (inbox_->stop) break;
      message = std::move(inbox_->messages.front());
      inbox_->messages.pop_front();
    }
    // Each reply reaches the coordinator before the host builds the next batch.
    bool refused = false;
    const absl::Status handled = host_->Handle(message, [this, &refused](v1::ClientMessage reply) {
      const absl::Status s = coordinator_.OnClientMessage(connection_, reply);
      refused = !s.ok();
      return s;
    });
    if (!handled.ok()) {
      EventLine("client_error").Add("client", name_).Add("error", handled.ToString());
    }
    // Its replies are delivered: the coordinator's clock may move on.
    if (inbox_->clock != nullptr) inbox_->clock->WorkDone(1);
    // A refusal ends the stream, as the gRPC reactor's error status would.
    if (refused || host_->training_done()) break;
  }
  CloseInbox();
  CloseStream();
}

void InProcessClient::CloseInbox() {
  std::lock_guard<std::mutex> lock(inbox_->mu);
  if (inbox_->closed) return;
  inbox_->closed = true;
  if (inbox_->clock != nullptr) {
    inbox_->clock->WorkDone(static_cast<int64_t>(inbox_->messages.size()));
  }
  inbox_->messages.clear();
}

void InProcessClient::CloseStream() {
  if (!stream_open_) return;
  stream_open_ = false;
  coordinator_.OnStreamClosed(connection_);
}

}  // namespace fedmf::sim
