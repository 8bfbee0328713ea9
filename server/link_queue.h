// The sending side of one replica link (replica.proto's Attach call), the same at both ends: the
// combiner's reactor (replica_service.h) and the front's (front_link.h). Send never blocks, so
// either side may send under its own lock: a message is queued and written once the write before
// it is done (gRPC's callback API allows one write in flight). The queue is bounded: past
// max_queued_bytes the other end is not reading, and the link is closed with RESOURCE_EXHAUSTED
// (docs/scale-out.md section 9: such a front is a lost front). Close ends the link once the write
// in flight, if any, is done: `end` is called exactly once, and never while a write is in flight,
// so that a reactor may then Finish. After Close, Send drops. Thread-safe; held by a shared_ptr
// by everything that may still send on it, which may outlive the reactor.
#ifndef FEDMF_SERVER_LINK_QUEUE_H_
#define FEDMF_SERVER_LINK_QUEUE_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <utility>

namespace fedmf::server {

template <typename Message>
class LinkQueue {
 public:
  // The reactor's StartWrite of a message the queue holds until WriteDone.
  using StartWrite = std::function<void(const Message&)>;
  // The link is over, with this status (the reactor finishes or cancels its call).
  using End = std::function<void(const grpc::Status&)>;

  LinkQueue(uint64_t max_queued_bytes, StartWrite start_write, End end)
      : max_queued_bytes_(max_queued_bytes),
        start_write_(std::move(start_write)),
        end_(std::move(end)) {}

  void Send(Message message) {
    const uint64_t size = message.ByteSizeLong();
    const Message* next = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_) return;
      // The queue holds a message only while one is in flight, whose WriteDone ends the link.
      if (queued_bytes_ + size > max_queued_bytes_ && writing_) {
        CloseLocked(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                 "replica link: the other end does not read (send queue full)"));
        return;
      }
      queue_.push_back(std::move(message));
      queued_bytes_ += size;
      if (writing_) return;
      writing_ = true;
      next = &queue_.front();  // a deque's elements stay put while others are added
    }
    start_write_(*next);
  }

  // The reactor's OnWriteDone: the next message, or the end that waited for this write.
  void WriteDone() {
    const Message* next = nullptr;
    std::optional<grpc::Status> end;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!queue_.empty()) {
        queued_bytes_ -= queue_.front().ByteSizeLong();
        queue_.pop_front();
      }
      if (closed_) {
        writing_ = false;
        end = std::exchange(pending_end_, std::nullopt);
      } else if (!queue_.empty()) {
        next = &queue_.front();
      } else {
        writing_ = false;
      }
    }
    if (end) end_(*end);
    if (next != nullptr) start_write_(*next);
  }

  // Drops what is queued and ends the link with `status` (at once, or when the write in flight
  // is done). Only the first call counts.
  void Close(const grpc::Status& status) {
    std::optional<grpc::Status> end;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_) return;
      CloseLocked(status);
      if (writing_) return;  // WriteDone ends it
      end = std::exchange(pending_end_, std::nullopt);
    }
    if (end) end_(*end);
  }

 private:
  // Under mu_: keeps only the message in flight; the end is pending until it is written.
  void CloseLocked(const grpc::Status& status) {
    closed_ = true;
    pending_end_ = status;
    while (queue_.size() > (writing_ ? 1u : 0u)) {
      queued_bytes_ -= queue_.back().ByteSizeLong();
      queue_.pop_back();
    }
  }

  const uint64_t max_queued_bytes_;
  const StartWrite start_write_;
  const End end_;
  std::mutex mu_;
  std::deque<Message> queue_;  // front: the message in flight while writing_
  uint64_t queued_bytes_ = 0;
  bool writing_ = false;
  bool closed_ = false;
  std::optional<grpc::Status> pending_end_;  // set by the first Close, taken by whoever ends
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_LINK_QUEUE_H_
