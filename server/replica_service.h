// The combiner's end of the replica links (replica.proto's Replica service, docs/scale-out.md
// section 9): each Attach call is one front. Its first message must be a FrontHello; the call is
// then attached to the combiner (Coordinator::AttachFront), whose messages to the front are
// written from a bounded LinkQueue, and each later message from the front goes to
// Coordinator::ReceiveFromFront in order. When the call ends, however it ends (the front's process
// died or closed it, the combiner's send queue overflowed, a message failed to parse, the
// server shut down), the combiner loses the front (Coordinator::FrontLost). Under mutual TLS only
// the identities the service was given may attach (PERMISSION_DENIED, logged); without mutual TLS
// anyone who reaches the port may (fedmf-coordinator refuses that off loopback). With a
// ReplicaTrace, every message each way is recorded as well (--insecure_replica_trace).
#ifndef FEDMF_SERVER_REPLICA_SERVICE_H_
#define FEDMF_SERVER_REPLICA_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "fedmf/v1/replica.grpc.pb.h"
#include "server/coordinator.h"
#include "server/replica_trace.h"

namespace fedmf::server {

class ReplicaService final : public v1::Replica::CallbackService {
 public:
  // `identities` empty: any caller (no mutual TLS). `max_queued_bytes` bounds each link's send
  // queue. `combiner` and `trace` (null: none) outlive the service and its calls.
  ReplicaService(Coordinator& combiner, absl::flat_hash_set<std::string> identities,
                 uint64_t max_queued_bytes, ReplicaTrace* trace = nullptr)
      : combiner_(combiner),
        identities_(std::move(identities)),
        max_queued_bytes_(max_queued_bytes),
        trace_(trace) {}

  grpc::ServerBidiReactor<v1::FrontMessage, v1::CombinerMessage>* Attach(
      grpc::CallbackServerContext* context) override;

 private:
  Coordinator& combiner_;
  const absl::flat_hash_set<std::string> identities_;
  const uint64_t max_queued_bytes_;
  ReplicaTrace* const trace_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_REPLICA_SERVICE_H_
