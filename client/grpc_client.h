// The gRPC transport of a client process: registers its users with the coordinator, then keeps
// one Participate stream for all of them, feeding every coordinator message to the
// ParticipantHost and writing back its replies. Reconnects (and re-registers) with exponential
// backoff when the coordinator is unreachable or the stream breaks, and after the delay a
// CheckInLater asked for when the coordinator ended the stream with one (check-in: the channel,
// so the connection, is closed meanwhile).
#ifndef FEDMF_CLIENT_GRPC_CLIENT_H_
#define FEDMF_CLIENT_GRPC_CLIENT_H_

#include <atomic>
#include <string>

#include "absl/status/status.h"
#include "client/participant_host.h"
#include "client/registration.h"
#include "rpc/channel.h"

namespace fedmf::client {

struct GrpcClientOptions {
  std::string target;  // host:port of the coordinator
  rpc::ClientTls tls;  // plaintext unless tls.ca_file is set
  std::string name;    // for the coordinator's logs
  std::string enrollment_token;
  BackoffOptions backoff;  // waits between attempts, and when to give up
};

// Runs until the coordinator reports the training done (OK), `stop` becomes true (Cancelled), the
// coordinator refuses the registration (its status: UNAUTHENTICATED for a wrong token,
// INVALID_ARGUMENT for bad users, PERMISSION_DENIED for a revoked or duplicate TLS identity),
// backoff.give_up_after passes (Unavailable) or a TLS file cannot be read (its status).
absl::Status RunGrpcClient(ParticipantHost& host, const GrpcClientOptions& options,
                           const std::atomic<bool>& stop);

}  // namespace fedmf::client

#endif  // FEDMF_CLIENT_GRPC_CLIENT_H_
