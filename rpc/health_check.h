// Asks a gRPC server's standard health service (grpc.health.v1.Health/Check) whether it serves:
// what `fedmf-coordinator health` and the container and Kubernetes probes run.
#ifndef FEDMF_RPC_HEALTH_CHECK_H_
#define FEDMF_RPC_HEALTH_CHECK_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace fedmf::rpc {

// The serving status `service` ("" = the whole server) reports, by its protocol name (SERVING,
// NOT_SERVING, UNKNOWN, ...), when the server answered within `timeout`; otherwise the RPC's error
// (UNAVAILABLE when nothing answers, NOT_FOUND for a service the server does not know, ...).
absl::StatusOr<std::string> CheckHealth(const std::shared_ptr<grpc::Channel>& channel,
                                        absl::string_view service, absl::Duration timeout);

}  // namespace fedmf::rpc

#endif  // FEDMF_RPC_HEALTH_CHECK_H_
