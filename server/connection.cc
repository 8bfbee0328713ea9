#include "server/connection.h"

#include <utility>

namespace fedmf::server {

size_t Connection::Send(v1::ServerMessage message) {
  const size_t size = message.ByteSizeLong();
  if (sink_) {
    sink_(message);
    return size;
  }
  FederationReactor* reactor = nullptr;
  const v1::ServerMessage* next = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (reactor_ == nullptr || finishing_) return 0;
    queue_.push_back(std::move(message));
    if (writing_) return size;
    writing_ = true;
    reactor = reactor_;
    next = &queue_.front();  // deque elements stay put while others are appended
  }
  reactor->StartWrite(next);
  return size;
}

void Connection::Attach(FederationReactor* reactor) {
  std::lock_guard<std::mutex> lock(mu_);
  reactor_ = reactor;
}

void Connection::WriteDone() {
  FederationReactor* reactor = nullptr;
  const v1::ServerMessage* next = nullptr;
  std::optional<grpc::Status> finish;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.pop_front();
    if (finishing_) {
      writing_ = false;
      queue_.clear();
      finish = std::exchange(pending_finish_, std::nullopt);
    } else if (!queue_.empty()) {
      next = &queue_.front();
    } else {
      writing_ = false;
    }
    reactor = reactor_;
  }
  if (reactor == nullptr) return;
  if (finish) reactor->Finish(*finish);
  if (next != nullptr) reactor->StartWrite(next);
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
    reactor = reactor_;
  }
  if (reactor != nullptr) reactor->Finish(status);
}

void Connection::Detach() {
  std::lock_guard<std::mutex> lock(mu_);
  reactor_ = nullptr;
  finishing_ = true;
  queue_.clear();
}

FederationReactor::FederationReactor(StreamHandler* handler, uint64_t id, std::string peer)
    : handler_(handler), connection_(std::make_shared<Connection>(id, std::move(peer))) {
  connection_->Attach(this);
  StartRead(&incoming_);
}

void FederationReactor::OnReadDone(bool ok) {
  if (!ok) {  // the client closed its side or the connection broke
    connection_->FinishOnce(grpc::Status::OK);
    return;
  }
  const grpc::Status status = handler_->OnClientMessage(connection_, incoming_);
  if (!status.ok()) {
    connection_->FinishOnce(status);
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
  delete this;
}

}  // namespace fedmf::server
