#include "server/replica_service.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/util/event_log.h"
#include "server/link_queue.h"
#include "server/server_tls.h"

namespace fedmf::server {
namespace {

// One front's Attach call.
class AttachReactor final : public grpc::ServerBidiReactor<v1::FrontMessage, v1::CombinerMessage> {
 public:
  AttachReactor(Coordinator& combiner, std::string peer, std::string identity,
                uint64_t max_queued_bytes, const absl::Status& admitted, ReplicaTrace* trace)
      : combiner_(combiner),
        trace_(trace),
        peer_(std::move(peer)),
        identity_(std::move(identity)),
        queue_(std::make_shared<LinkQueue<v1::CombinerMessage>>(
            max_queued_bytes, [this](const v1::CombinerMessage& m) { StartWrite(&m); },
            [this](const grpc::Status& status) { Finish(status); })) {
    if (!admitted.ok()) {
      queue_->Close(grpc::Status(static_cast<grpc::StatusCode>(admitted.code()),
                                 std::string(admitted.message())));
      return;
    }
    StartRead(&in_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // the front closed its side, its process died, or a message did not parse
      queue_->Close(grpc::Status::OK);
      return;
    }
    if (front_ < 0) {
      if (!in_.has_hello()) {
        queue_->Close(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                   "a replica link starts with a FrontHello"));
        return;
      }
      name_ = in_.hello().name().substr(0, 128);
      front_ = combiner_.AttachFront(
          [queue = queue_, trace = trace_, name = name_](v1::CombinerMessage message) {
            if (trace != nullptr) trace->Down(name, message);
            queue->Send(std::move(message));
          },
          name_);
      if (front_ < 0) {
        queue_->Close(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                                   "this coordinator is not a combiner (--role=combiner)"));
        return;
      }
      EventLine("front_attached")
          .Add("front", front_)
          .Add("name", name_)
          .Add("peer", peer_)
          .Add("identity", identity_.empty() ? "-" : identity_);
    } else {
      if (trace_ != nullptr) trace_->Up(name_, in_);
      combiner_.ReceiveFromFront(static_cast<size_t>(front_), in_);
    }
    in_.Clear();
    StartRead(&in_);
  }

  void OnWriteDone(bool ok) override {
    if (!ok)
      queue_->Close(grpc::Status(grpc::StatusCode::UNAVAILABLE, "replica link write failed"));
    queue_->WriteDone();
  }

  void OnCancel() override { queue_->Close(grpc::Status::CANCELLED); }

  void OnDone() override {
    if (front_ >= 0) {
      EventLine("front_detached").Add("front", front_).Add("name", name_).Add("peer", peer_);
      combiner_.FrontLost(static_cast<size_t>(front_));
    }
    delete this;
  }

 private:
  Coordinator& combiner_;
  ReplicaTrace* const trace_;
  const std::string peer_;
  const std::string identity_;
  // Shared with the combiner's link to this front, which may outlive the call (sends then drop).
  const std::shared_ptr<LinkQueue<v1::CombinerMessage>> queue_;
  v1::FrontMessage in_;
  int64_t front_ = -1;  // the combiner's index of this front, from its hello on
  std::string name_;
};

}  // namespace

grpc::ServerBidiReactor<v1::FrontMessage, v1::CombinerMessage>* ReplicaService::Attach(
    grpc::CallbackServerContext* context) {
  std::string identity = PeerIdentity(*context);
  absl::Status admitted;
  if (!identities_.empty() && !identities_.contains(identity)) {
    admitted = absl::PermissionDeniedError(
        absl::StrCat("identity '", identity, "' is not a front's (--front_identities)"));
    EventLine("front_refused")
        .Add("peer", context->peer())
        .Add("identity", identity.empty() ? "-" : identity);
  }
  return new AttachReactor(combiner_, context->peer(), std::move(identity), max_queued_bytes_,
                           admitted, trace_);
}

}  // namespace fedmf::server
