#include "rpc/health_check.h"

#include "absl/time/clock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "rpc/channel.h"

namespace fedmf::rpc {

absl::StatusOr<std::string> CheckHealth(const std::shared_ptr<grpc::Channel>& channel,
                                        absl::string_view service, absl::Duration timeout) {
  using grpc::health::v1::HealthCheckResponse;
  auto stub = grpc::health::v1::Health::NewStub(channel);
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(std::string(service));
  HealthCheckResponse response;
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  if (const grpc::Status s = stub->Check(&context, request, &response); !s.ok()) {
    return FromGrpc(s);
  }
  return HealthCheckResponse::ServingStatus_Name(response.status());
}

}  // namespace fedmf::rpc
