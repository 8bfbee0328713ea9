#include "server/services.h"

#include <string>

#include "common/util/event_log.h"
#include "server/connection.h"
#include "server/server_tls.h"

namespace fedmf::server {
namespace {

// A Participate stream refused at open (over the limit, or a revoked identity): ended at once
// with `status`, nothing read.
class RefusedStream final : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  explicit RefusedStream(const grpc::Status& status) { Finish(status); }
  void OnDone() override { delete this; }
};

std::string IdentityOf(const grpc::CallbackServerContext& context) {
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  return auth != nullptr ? PeerIdentity(*auth) : std::string();
}

}  // namespace

grpc::ServerUnaryReactor* FederationService::Register(grpc::CallbackServerContext* context,
                                                      const v1::RegisterRequest* request,
                                                      v1::RegisterResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const std::string identity = IdentityOf(*context);
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
  // A session token registered before its identity was revoked opens no stream.
  if (policy_ != nullptr) {
    const std::string identity = IdentityOf(*context);
    if (const absl::Status admitted = policy_->Admit(identity); !admitted.ok()) {
      EventLine("stream_refused")
          .Add("identity", identity)
          .Add("peer", context->peer())
          .Add("status", admitted.ToString());
      return new RefusedStream(grpc::Status(static_cast<grpc::StatusCode>(admitted.code()),
                                            std::string(admitted.message())));
    }
  }
  if (!streams_.TryAcquire()) {
    EventLine("stream_refused")
        .Add("peer", context->peer())
        .Add("max_streams", limits_.max_streams);
    return new RefusedStream(grpc::Status(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        "too many streams: the coordinator serves at most " + std::to_string(limits_.max_streams)));
  }
  return new FederationReactor(coordinator_, coordinator_->NextConnectionId(), context->peer(),
                               limits_, &streams_);
}

grpc::ServerUnaryReactor* AdminService::Status(grpc::CallbackServerContext* context,
                                               const v1::StatusRequest*,
                                               v1::StatusResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (!admins_.empty()) {
    if (const std::string identity = IdentityOf(*context); !admins_.contains(identity)) {
      EventLine("admin_refused").Add("identity", identity).Add("peer", context->peer());
      reactor->Finish(grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                                   "identity '" + identity + "' is not an admin identity"));
      return reactor;
    }
  }
  *response = coordinator_->Status();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace fedmf::server
