#include "server/connection.h"

#include <grpcpp/support/proto_buffer_reader.h>

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/util/event_log.h"
#include "wire/chunking.h"
#include "wire/repeated_fields.h"

namespace fedmf::server {

grpc::Status ToGrpc(const absl::Status& status) {
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

const grpc::ByteBuffer& OutgoingMessage::Bytes(grpc::Status& status) const {
  std::call_once(serialized_, [this] {
    bool own_buffer = false;
    status_ =
        grpc::SerializationTraits<v1::ServerMessage>::Serialize(message_, &bytes_, &own_buffer);
  });
  status = status_;
  return bytes_;
}

size_t Connection::Send(std::shared_ptr<const OutgoingMessage> message) {
  return Queue(std::move(message), nullptr);
}

size_t Connection::SendLast(v1::ServerMessage message, const absl::Status& status) {
  return Queue(std::make_shared<const OutgoingMessage>(std::move(message)), &status);
}

size_t Connection::Queue(std::shared_ptr<const OutgoingMessage> message,
                         const absl::Status* then_finish) {
  const size_t size = message->size();
  if (sink_) {
    sink_(message->message());
    if (then_finish != nullptr) Close(*then_finish);
    return size;
  }
  FederationReactor* reactor = nullptr;
  const OutgoingMessage* next = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (reactor_ == nullptr || finishing_ || overflowed_ || finish_when_written_) return 0;
    if (then_finish != nullptr) {
      finish_when_written_ = ToGrpc(*then_finish);  // small: never counted as an overflow
    } else if (QueueWouldOverflow(queue_.size(), queued_bytes_, size, max_queued_bytes_)) {
      overflowed_ = true;  // keep only the message in flight
      while (queue_.size() > 1) {
        queued_bytes_ -= queue_.back()->size();
        queue_.pop_back();
      }
      return 0;
    }
    queue_.push_back(std::move(message));
    queued_bytes_ += size;
    if (writing_) return size;
    writing_ = true;
    reactor = reactor_;
    next = queue_.front().get();  // held by the queue until its write is done
  }
  reactor->Write(*next);
  return size;
}

bool Connection::TakeOverflow() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!overflowed_ || overflow_reported_) return false;
  overflow_reported_ = true;
  return true;
}

bool Connection::overflowed() {
  std::lock_guard<std::mutex> lock(mu_);
  return overflowed_;
}

uint64_t Connection::queued_bytes() {
  std::lock_guard<std::mutex> lock(mu_);
  return queued_bytes_;
}

void Connection::Attach(FederationReactor* reactor) {
  std::lock_guard<std::mutex> lock(mu_);
  reactor_ = reactor;
}

void Connection::WriteDone() {
  FederationReactor* reactor = nullptr;
  const OutgoingMessage* next = nullptr;
  std::optional<grpc::Status> finish;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queued_bytes_ -= queue_.front()->size();
    queue_.pop_front();
    if (overflowed_ && !finishing_) {
      finishing_ = true;
      pending_finish_ = grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                     "outbound queue full: the client does not read its stream");
    }
    if (finishing_) {
      writing_ = false;
      queue_.clear();
      queued_bytes_ = 0;
      finish = std::exchange(pending_finish_, std::nullopt);
    } else if (!queue_.empty()) {
      next = queue_.front().get();
    } else {
      writing_ = false;
      if (finish_when_written_) {
        finishing_ = true;
        finish = std::exchange(finish_when_written_, std::nullopt);
      }
    }
    reactor = reactor_;
  }
  if (reactor == nullptr) return;
  if (finish) reactor->Finish(*finish);
  if (next != nullptr) reactor->Write(*next);
}

void Connection::FinishOnce(const grpc::Status& status) {
  FederationReactor* reactor = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (finishing_) return;
    finishing_ = true;
    if (writing_) {
      pending_finish_ = status;  // WriteDone finishes
      return;
    }
    queue_.clear();
    queued_bytes_ = 0;
    reactor = reactor_;
  }
  if (reactor != nullptr) reactor->Finish(status);
}

void Connection::Detach() {
  std::lock_guard<std::mutex> lock(mu_);
  reactor_ = nullptr;
  finishing_ = true;
  queue_.clear();
  queued_bytes_ = 0;
}

namespace {

// A whole message is at most the plan's largest; a chunk of one carries its header besides.
absl::Status CheckBounds(const MessageBounds& bounds, grpc::ByteBuffer& bytes) {
  const uint64_t size = bytes.Length();
  if (size > bounds.max_bytes + wire::kChunkOverheadBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("ClientMessage of ", size, " bytes exceeds the plan's largest message of ",
                     bounds.max_bytes, " bytes"));
  }
  grpc::ProtoBufferReader reader(&bytes);
  return wire::CheckRepeatedElements(*v1::ClientMessage::descriptor(), reader,
                                     bounds.max_elements);
}

}  // namespace

absl::Status DeliverClientMessage(StreamHandler& handler,
                                  const std::shared_ptr<Connection>& connection,
                                  grpc::ByteBuffer& bytes) {
  const absl::Status bounded = CheckBounds(handler.ClientMessageBounds(), bytes);
  v1::ClientMessage message;
  const bool parsed =
      bounded.ok() &&
      grpc::SerializationTraits<v1::ClientMessage>::Deserialize(&bytes, &message).ok();
  bytes.Clear();
  if (!parsed) {
    const absl::Status refused =
        bounded.ok() ? absl::InvalidArgumentError("unparseable ClientMessage") : bounded;
    handler.OnMessageRefused(connection, refused);
    return refused;
  }
  return handler.OnClientMessage(connection, message);
}

FederationReactor::FederationReactor(StreamHandler* handler, uint64_t id, std::string peer,
                                     std::string identity, absl::string_view session_token,
                                     const StreamLimits& limits, StreamCounter* counter)
    : handler_(handler),
      connection_(std::make_shared<Connection>(id, std::move(peer), nullptr,
                                               limits.max_queued_bytes, std::move(identity))),
      bucket_(limits.messages_per_second, limits.message_burst, absl::Now()),
      counter_(counter) {
  connection_->Attach(this);
  // Attached first: the round driver may send as soon as the stream is bound.
  if (const absl::Status opened = handler_->OnStreamOpen(connection_, session_token);
      !opened.ok()) {
    connection_->FinishOnce(ToGrpc(opened));
    return;
  }
  StartRead(&incoming_);
}

void FederationReactor::Write(const OutgoingMessage& message) {
  grpc::Status serialized;
  outgoing_ = message.Bytes(serialized);  // a reference to the shared bytes, not a copy
  if (!serialized.ok()) {  // as if the write failed: nothing is sent
    outgoing_.Clear();
    connection_->FinishOnce(
        grpc::Status(grpc::StatusCode::INTERNAL,
                     "cannot serialize a ServerMessage: " + serialized.error_message()));
    connection_->WriteDone();
    return;
  }
  StartWrite(&outgoing_);
}

void FederationReactor::OnReadDone(bool ok) {
  if (!ok) {  // the client closed its side or the connection broke
    connection_->FinishOnce(grpc::Status::OK);
    return;
  }
  if (!bucket_.Take(absl::Now())) {
    EventLine("stream_rate_limited")
        .Add("connection", connection_->id())
        .Add("peer", connection_->peer());
    connection_->FinishOnce(
        grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "message rate limit exceeded"));
    return;
  }
  if (connection_->overflowed()) {
    connection_->FinishOnce(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                         "outbound queue full: the client does not read"));
    return;
  }
  // After the cheap checks: parsing is what costs.
  const absl::Status status = DeliverClientMessage(*handler_, connection_, incoming_);
  if (!status.ok()) {
    connection_->FinishOnce(ToGrpc(status));
    return;
  }
  StartRead(&incoming_);
}

void FederationReactor::OnWriteDone(bool ok) {
  if (!ok) connection_->FinishOnce(grpc::Status(grpc::StatusCode::UNAVAILABLE, "write failed"));
  connection_->WriteDone();
}

void FederationReactor::OnDone() {
  connection_->Detach();
  handler_->OnStreamClosed(connection_);
  if (counter_ != nullptr) counter_->Release();
  delete this;
}

}  // namespace fedmf::server
