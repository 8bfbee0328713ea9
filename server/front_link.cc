#include "server/front_link.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/util/event_log.h"

namespace fedmf::server {
namespace {

constexpr absl::Duration kMinBackoff = absl::Milliseconds(100);
constexpr absl::Duration kMaxBackoff = absl::Seconds(5);

}  // namespace

// One Attach call. A hold keeps it from being done until its queue has ended (so that no write
// can start on a finished call); its OnDone reports to the link and deletes it.
class FrontLink::Call final
    : public grpc::ClientBidiReactor<v1::FrontMessage, v1::CombinerMessage> {
 public:
  Call(FrontLink& link, Front& front)
      : link_(link),
        front_(front),
        queue_(std::make_shared<LinkQueue<v1::FrontMessage>>(
            link.max_queued_bytes_, [this](const v1::FrontMessage& m) { StartWrite(&m); },
            [this](const grpc::Status&) {
              context_.TryCancel();  // the read in progress ends too
              RemoveHold();
            })) {}

  const std::shared_ptr<LinkQueue<v1::FrontMessage>>& queue() const { return queue_; }

  void Start() {
    link_.stub_->async()->Attach(&context_, this);
    AddHold();
    v1::FrontMessage hello;
    hello.mutable_hello()->set_name(link_.name_);
    queue_->Send(std::move(hello));
    StartRead(&in_);
    StartCall();
  }
  void Cancel() { context_.TryCancel(); }

  void OnReadDone(bool ok) override {
    if (!ok) {  // the combiner ended the call, or the connection broke
      queue_->Close(grpc::Status::CANCELLED);
      return;
    }
    if (in_.has_welcome()) welcomed_ = true;
    front_.Receive(std::move(in_));
    in_.Clear();
    StartRead(&in_);
  }
  void OnWriteDone(bool ok) override {
    if (!ok)
      queue_->Close(grpc::Status(grpc::StatusCode::UNAVAILABLE, "replica link write failed"));
    queue_->WriteDone();
  }
  void OnDone(const grpc::Status& status) override {
    {
      std::lock_guard<std::mutex> lock(link_.mu_);
      link_.call_ = nullptr;
      link_.current_ = nullptr;
      link_.ended_ = Ended{.status = status, .welcomed = welcomed_};
      link_.changed_.notify_all();
    }
    delete this;
  }

 private:
  FrontLink& link_;
  Front& front_;
  grpc::ClientContext context_;
  const std::shared_ptr<LinkQueue<v1::FrontMessage>> queue_;
  v1::CombinerMessage in_;
  bool welcomed_ = false;  // only the reactor's reads touch it
};

FrontLink::FrontLink(std::shared_ptr<grpc::Channel> channel, std::string name,
                     uint64_t max_queued_bytes)
    : channel_(std::move(channel)),
      stub_(v1::Replica::NewStub(channel_)),
      name_(std::move(name)),
      max_queued_bytes_(max_queued_bytes) {}

void FrontLink::Send(v1::FrontMessage message) {
  std::shared_ptr<LinkQueue<v1::FrontMessage>> queue;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue = current_;
  }
  if (queue != nullptr) queue->Send(std::move(message));
}

void FrontLink::Run(Front& front) {
  absl::Duration backoff = kMinBackoff;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    auto* call = new Call(*this, front);  // deletes itself when done
    call_ = call;
    current_ = call->queue();
    ended_.reset();
    call->Start();  // its callbacks run on gRPC's threads, never inline here
    changed_.wait(lock, [this] { return ended_.has_value(); });
    const Ended ended = *std::exchange(ended_, std::nullopt);
    lock.unlock();
    front.CombinerLost();
    backoff = ended.welcomed ? kMinBackoff : std::min(backoff * 2, kMaxBackoff);
    EventLine("combiner_lost")
        .Add("code",
             absl::StatusCodeToString(static_cast<absl::StatusCode>(ended.status.error_code())))
        .Add("message", ended.status.error_message())
        .Add("was_attached", ended.welcomed)
        .Add("retry_in_s", absl::ToDoubleSeconds(backoff));
    lock.lock();
    changed_.wait_for(lock, absl::ToChronoMilliseconds(backoff), [this] { return stop_; });
  }
}

void FrontLink::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_ = true;
  if (call_ != nullptr) call_->Cancel();
  changed_.notify_all();
}

}  // namespace fedmf::server
