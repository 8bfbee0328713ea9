#include "server/services.h"

#include "common/util/event_log.h"
#include "server/connection.h"
#include "server/server_tls.h"

namespace fedmf::server {

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

grpc::ServerBidiReactor<v1::ClientMessage, v1::ServerMessage>* FederationService::Participate(
    grpc::CallbackServerContext* context) {
  return new FederationReactor(coordinator_, coordinator_->NextConnectionId(), context->peer());
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
