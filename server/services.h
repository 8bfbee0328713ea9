// The coordinator's gRPC services over the callback API: Federation (Register, Participate
// streams handed to FederationReactor, at most limits.max_streams at a time: the extra ones end at
// once with RESOURCE_EXHAUSTED; served by a coordinator or a front, whichever DeviceEndpoint it
// is given) and Admin (Status and the runs). Thin shells over Coordinator (or the front);
// Register first checks the peer address's rate limit and the peer's TLS identity against the
// PeerPolicy, if there is one.
#ifndef FEDMF_SERVER_SERVICES_H_
#define FEDMF_SERVER_SERVICES_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdint>

#include "absl/container/flat_hash_set.h"
#include "fedmf/v1/federation.grpc.pb.h"
#include "server/coordinator.h"
#include "server/device_endpoint.h"
#include "server/peer_policy.h"
#include "server/peer_rate_limiter.h"
#include "server/run_control.h"
#include "server/stream_limits.h"

namespace fedmf::server {

// Participate is a raw method: FederationReactor parses each message itself (see connection.h).
class FederationService final
    : public v1::Federation::WithCallbackMethod_Register<
          v1::Federation::WithRawCallbackMethod_Participate<v1::Federation::Service>> {
 public:
  // `policy` may be null (no identity checks); both outlive the service.
  explicit FederationService(DeviceEndpoint* endpoint, PeerPolicy* policy = nullptr,
                             StreamLimits limits = StreamLimits())
      : endpoint_(endpoint),
        policy_(policy),
        limits_(limits),
        registrations_(limits.registrations_per_second, limits.registration_burst),
        streams_(limits.max_streams) {}

  grpc::ServerUnaryReactor* Register(grpc::CallbackServerContext* context,
                                     const v1::RegisterRequest* request,
                                     v1::RegisterResponse* response) override;
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* Participate(
      grpc::CallbackServerContext* context) override;
  int64_t live_streams() const { return streams_.live(); }

 private:
  DeviceEndpoint* endpoint_;
  PeerPolicy* policy_;
  const StreamLimits limits_;
  PeerRateLimiter registrations_;
  StreamCounter streams_;
  // Register calls refused by the rate limit since the last event=register_rate_limited line
  // (at most one a second, so that a flood does not flood the log too).
  std::atomic<int64_t> refused_registrations_{0};
  std::atomic<int64_t> last_refusal_line_ns_{0};
};

// The Models service: Download streams a published model (DeviceEndpoint::ModelForDownload
// checks the session token; the single coordinator's store, or a front's copy of the combiner's)
// from the request's offset in chunks of at most wire::kModelChunkBytes, one written at a time (a
// slow reader holds one chunk, not the model). The peer's TLS identity is checked against the
// PeerPolicy first, as for Register.
class ModelsService final : public v1::Models::CallbackService {
 public:
  // `policy` may be null; both outlive the service.
  explicit ModelsService(DeviceEndpoint* endpoint, PeerPolicy* policy = nullptr)
      : endpoint_(endpoint), policy_(policy) {}

  grpc::ServerWriteReactor<v1::ModelChunk>* Download(
      grpc::CallbackServerContext* context, const v1::DownloadModelRequest* request) override;

 private:
  DeviceEndpoint* endpoint_;
  PeerPolicy* policy_;
};

// Who may call the Admin service: under mutual TLS only `identities` (certificate CNs; empty:
// any caller, as without mutual TLS), and, when `token` is set, only callers presenting it as
// metadata "authorization: Bearer TOKEN" (compared in constant time).
struct AdminAccess {
  absl::flat_hash_set<std::string> identities;
  std::string token;
};

// The Admin service: Status, and the runs (SubmitRun, ListRuns, CancelRun, forwarded to a
// RunControl with the caller's identity), for the callers `access` admits: PERMISSION_DENIED for
// an identity that is not an admin's (a participant's certificate neither shows run state nor
// submits runs), UNAUTHENTICATED for a missing or wrong token; each refusal logged as
// event=admin_refused.
class AdminService final : public v1::Admin::CallbackService {
 public:
  // `runs` null: the run calls answer UNIMPLEMENTED (a coordinator that trains only the run of its
  // command line). Both outlive the service.
  explicit AdminService(const Coordinator* coordinator, AdminAccess access = {},
                        RunControl* runs = nullptr)
      : coordinator_(coordinator), access_(std::move(access)), runs_(runs) {}

  grpc::ServerUnaryReactor* Status(grpc::CallbackServerContext* context,
                                   const v1::StatusRequest* request,
                                   v1::StatusResponse* response) override;
  grpc::ServerUnaryReactor* SubmitRun(grpc::CallbackServerContext* context,
                                      const v1::RunSpec* request, v1::RunRecord* response) override;
  grpc::ServerUnaryReactor* ListRuns(grpc::CallbackServerContext* context,
                                     const v1::ListRunsRequest* request,
                                     v1::ListRunsResponse* response) override;
  grpc::ServerUnaryReactor* CancelRun(grpc::CallbackServerContext* context,
                                      const v1::CancelRunRequest* request,
                                      v1::RunRecord* response) override;

 private:
  // The caller's identity when `access_` admits it to `method`; PERMISSION_DENIED or
  // UNAUTHENTICATED (logged) when not.
  absl::StatusOr<std::string> Authorize(const grpc::CallbackServerContext& context,
                                        absl::string_view method) const;
  // The run calls' common part: authorized and `runs_` set, `call` answers.
  template <typename Call>
  grpc::ServerUnaryReactor* RunCall(grpc::CallbackServerContext* context, absl::string_view method,
                                    Call call);

  const Coordinator* coordinator_;
  const AdminAccess access_;
  RunControl* runs_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_SERVICES_H_
