// Conversion between the wire form of a SecAgg session's parameters (fedmf.v1.SecAggParams) and
// crypto/secagg's SessionConfig, shared by the coordinator and the client core. The result is
// validated, so a malformed task from the network is an error, never a crash.
#ifndef FEDMF_CLIENT_SECAGG_PARAMS_H_
#define FEDMF_CLIENT_SECAGG_PARAMS_H_

#include "absl/status/statusor.h"
#include "crypto/secagg/config.h"
#include "fedmf/v1/federation.pb.h"

namespace fedmf::client {

v1::SecAggParams ToProto(const secagg::SessionConfig& config);

// InvalidArgument (from secagg::ValidateConfig) for out-of-range parameters.
absl::StatusOr<secagg::SessionConfig> FromProto(const v1::SecAggParams& params);

}  // namespace fedmf::client

#endif  // FEDMF_CLIENT_SECAGG_PARAMS_H_
