#include "server/services.h"

#include <string>

#include "common/util/event_log.h"
#include "server/connection.h"
#include "server/server_tls.h"

namespace fedmf::server {
namespace {

// A Participate stream over the limit: ended at once, nothing read.
class RefusedStream final : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
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
  const std::shared_ptr<const grpc::AuthContext> auth = context->auth_context();
  const std::string identity = auth != nullptr ? PeerIdentity(*auth) : std::string();
  if (policy_ != nullptr) {
    if (const absl::Status admitted = policy_->Admit(identity); !admitted.ok()) {
      EventLine("register")
          .Add("client", request->client_name().substr(0, 128))
          .Add("identity", identity)
          .Add("peer", context->peer())
          .Add("status", admitted.ToString());
      reactor->Finish(grpc::Status(static_cast<grpc::StatusCode>(admitted.code()),
                                   std::string(admitted.message())));
      return reactor;
    }
  }
  reactor->Finish(coordinator_->Register(*request, *response, identity));
  return reactor;
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* FederationService::Participate(
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
