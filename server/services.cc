#include "server/services.h"

#include <string>

#include "common/util/event_log.h"
#include "server/connection.h"

namespace fedmf::server {
namespace {

// A Participate stream over the limit: ended at once, nothing read.
class RefusedStream final : public grpc::ServerBidiReactor<v1::ClientMessage, v1::ServerMessage> {
 public:
  explicit RefusedStream(int64_t max) {
    Finish(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        "too many streams: the coordinator serves at most " + std::to_string(max)));
  }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::ServerUnaryReactor* FederationService::Register(grpc::CallbackServerContext* context,
                                                      const v1::RegisterRequest* request,
                                                      v1::RegisterResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(coordinator_->Register(*request, *response));
  return reactor;
}

grpc::ServerBidiReactor<v1::ClientMessage, v1::ServerMessage>* FederationService::Participate(
    grpc::CallbackServerContext* context) {
  if (!streams_.TryAcquire()) {
    EventLine("stream_refused")
        .Add("peer", context->peer())
        .Add("max_streams", limits_.max_streams);
    return new RefusedStream(limits_.max_streams);
  }
  return new FederationReactor(coordinator_, coordinator_->NextConnectionId(), context->peer(),
                               limits_, &streams_);
}

grpc::ServerUnaryReactor* AdminService::Status(grpc::CallbackServerContext* context,
                                               const v1::StatusRequest*,
                                               v1::StatusResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  *response = coordinator_->Status();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace fedmf::server
