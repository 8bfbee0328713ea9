#include "server/services.h"

#include "server/connection.h"

namespace fedmf::server {

grpc::ServerUnaryReactor* FederationService::Register(grpc::CallbackServerContext* context,
                                                      const v1::RegisterRequest* request,
                                                      v1::RegisterResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(coordinator_->Register(*request, *response));
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
