// One client process's Participate stream on the coordinator: a gRPC callback-API reactor (no
// thread of its own) over raw bytes, and the thread-safe Connection handle the round driver sends
// through. The stream is authenticated when it opens, by the session token in its metadata
// (wire::kSessionTokenMetadataKey), before anything is read: a stream without a valid one ends at
// once and costs no memory. The reactor then parses each ClientMessage itself, into a message that
// lives only while it is handled, so that bytes that are not one end the stream with
// INVALID_ARGUMENT (the typed API reports them like a half-close). Writes are queued and issued
// one at a time; after the stream ends, Send is a no-op. A Connection may
// instead deliver to a sink (an in-process transport, e.g. for tests of the orchestrator).
// The queue is bounded (StreamLimits::max_queued_bytes beyond the message being written): a
// client that does not read overflows it; the rest is then discarded and the stream ends with
// RESOURCE_EXHAUSTED once the write in flight completes or the client sends anything.
#ifndef FEDMF_SERVER_CONNECTION_H_
#define FEDMF_SERVER_CONNECTION_H_

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/codegen/proto_utils.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "fedmf/v1/federation.pb.h"
#include "server/chunked_upload.h"
#include "server/stream_limits.h"

namespace fedmf::server {

class FederationReactor;

// The gRPC status of a domain status (same code and message): made at the service edge (the
// reactor, the services), since the coordinator's parts speak absl::Status.
grpc::Status ToGrpc(const absl::Status& status);

// A ServerMessage as streams send it, serialized at most once (when a gRPC stream first writes
// it; an in-process sink takes the message itself) and then shared: the streams that send the
// same OutgoingMessage (a broadcast, e.g. the final model to every device) write the same
// reference-counted bytes, so N streams hold one copy of it, not N. Thread-safe.
class OutgoingMessage {
 public:
  explicit OutgoingMessage(v1::ServerMessage message)
      : message_(std::move(message)), size_(message_.ByteSizeLong()) {}
  const v1::ServerMessage& message() const { return message_; }
  size_t size() const { return size_; }
  // The serialized message, made on the first call; `status` says whether serializing worked.
  const grpc::ByteBuffer& Bytes(grpc::Status& status) const;

 private:
  const v1::ServerMessage message_;
  const size_t size_;
  mutable std::once_flag serialized_;
  mutable grpc::ByteBuffer bytes_;
  mutable grpc::Status status_;
};

class Connection {
 public:
  // For an in-process transport: messages go to `sink` (on the sender's thread, possibly under
  // the stream router's lock, so it must only hand them off) instead of a gRPC stream.
  using Sink = std::function<void(const v1::ServerMessage&)>;

  // `identity`: the verified TLS identity the stream was opened with (empty: none).
  Connection(uint64_t id, std::string peer, Sink sink = nullptr,
             uint64_t max_queued_bytes = StreamLimits().max_queued_bytes,
             std::string identity = "")
      : id_(id),
        peer_(std::move(peer)),
        identity_(std::move(identity)),
        sink_(std::move(sink)),
        max_queued_bytes_(max_queued_bytes) {}

  // Queues `message` for the client; returns its serialized size (0 once the stream ended or its
  // queue overflowed).
  size_t Send(std::shared_ptr<const OutgoingMessage> message);
  size_t Send(v1::ServerMessage message) {
    return Send(std::make_shared<const OutgoingMessage>(std::move(message)));
  }
  // Queues `message` as the stream's last: the stream ends with `status` once everything queued,
  // it included, is written (a check-in's CheckInLater). Its size, as Send; Send is a no-op from
  // now on.
  size_t SendLast(v1::ServerMessage message, const absl::Status& status);
  // True once, after the queue first overflowed (the coordinator then drops the stream's users).
  bool TakeOverflow();
  bool overflowed();
  uint64_t queued_bytes();

  uint64_t id() const { return id_; }
  const std::string& peer() const { return peer_; }
  const std::string& identity() const { return identity_; }
  // The chunked upload in progress; only the stream's reader (one message at a time) uses it.
  ChunkedUpload& upload() { return upload_; }
  // Ends the stream with `status` (as the gRPC status of the same code and message) from any
  // thread (after the write in flight; queued messages are dropped), e.g. when its client's
  // identity is revoked. A no-op once it is ending.
  void Close(const absl::Status& status) { FinishOnce(ToGrpc(status)); }

 private:
  friend class FederationReactor;

  // Send, and SendLast when `then_finish` is set.
  size_t Queue(std::shared_ptr<const OutgoingMessage> message, const absl::Status* then_finish);
  // Reactor side (all under mu_ except the gRPC calls themselves).
  void Attach(FederationReactor* reactor);
  void WriteDone();
  // Finishes the stream with `status` once no write is in flight.
  void FinishOnce(const grpc::Status& status);
  void Detach();

  const uint64_t id_;
  const std::string peer_;
  const std::string identity_;
  const Sink sink_;
  const uint64_t max_queued_bytes_;
  ChunkedUpload upload_;
  std::mutex mu_;
  FederationReactor* reactor_ = nullptr;
  // Front is being written while writing_.
  std::deque<std::shared_ptr<const OutgoingMessage>> queue_;
  uint64_t queued_bytes_ = 0;
  bool overflowed_ = false;
  bool overflow_reported_ = false;
  bool writing_ = false;
  bool finishing_ = false;  // no new writes; finish when the current one completes
  std::optional<grpc::Status> pending_finish_;
  // Set by SendLast: no new writes; finish with it once the queue is written.
  std::optional<grpc::Status> finish_when_written_;
};

// What the coordinator does with a stream's events (called on gRPC threads); the reactor makes
// the gRPC statuses.
class StreamHandler {
 public:
  virtual ~StreamHandler() = default;
  // Before the stream reads anything: binds it to the registration `session_token` names. A
  // non-OK status ends the stream with it (OnStreamClosed still follows).
  virtual absl::Status OnStreamOpen(const std::shared_ptr<Connection>& connection,
                                    absl::string_view session_token) = 0;
  // A non-OK status ends the stream with it.
  virtual absl::Status OnClientMessage(const std::shared_ptr<Connection>& connection,
                                       const v1::ClientMessage& message) = 0;
  virtual void OnStreamClosed(const std::shared_ptr<Connection>& connection) = 0;
  // A message the reactor refused (over the bounds, or it did not parse); the stream ends with
  // `status` (for the log).
  virtual void OnMessageRefused(const std::shared_ptr<Connection>& connection,
                                const absl::Status& status) = 0;
  // What a client message may be at most now (any thread).
  virtual MessageBounds ClientMessageBounds() const = 0;
};

// What FederationReactor does with the bytes of one message: refuses them (INVALID_ARGUMENT,
// OnMessageRefused) above the handler's ClientMessageBounds, bytes plus a chunk's header or repeated
// elements counted before parsing; else parses them as a ClientMessage and hands that to
// `handler`; bytes that do not parse are refused (INVALID_ARGUMENT "unparseable ClientMessage").
// A non-OK status ends the stream with it.
// Consumes `bytes`; the parsed message is gone when it returns. The stream fuzzer calls it as the
// reactor does.
absl::Status DeliverClientMessage(StreamHandler& handler,
                                  const std::shared_ptr<Connection>& connection,
                                  grpc::ByteBuffer& bytes);

class FederationReactor final : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  // Opens the stream with `session_token` (StreamHandler::OnStreamOpen) and starts reading if it
  // is accepted. `identity`: the peer's verified TLS identity (empty: none). `counter` (may be
  // null) is released when the stream ends.
  FederationReactor(StreamHandler* handler, uint64_t id, std::string peer, std::string identity,
                    absl::string_view session_token, const StreamLimits& limits = StreamLimits(),
                    StreamCounter* counter = nullptr);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnDone() override;

 private:
  friend class Connection;

  // Starts writing `message`'s bytes (one write in flight, see Connection).
  void Write(const OutgoingMessage& message);

  StreamHandler* handler_;
  std::shared_ptr<Connection> connection_;
  grpc::ByteBuffer incoming_;
  grpc::ByteBuffer outgoing_;  // the write in flight
  TokenBucket bucket_;
  StreamCounter* counter_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_CONNECTION_H_
