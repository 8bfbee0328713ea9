// The replica link (docs/scale-out.md, section 9) between a front and the combiner in one
// process: each direction is an ordered queue with a thread of its own that hands every message,
// in the order sent, to the receiver. Sending never waits for the receiver, so a side may send
// under its own lock (as a device Connection's sink is called under the device half's) and the
// receiver may take its own lock: the two sides' locks are never held together.
#ifndef FEDMF_SERVER_IN_PROCESS_LINK_H_
#define FEDMF_SERVER_IN_PROCESS_LINK_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "fedmf/v1/replica.pb.h"

namespace fedmf::server {

// One direction. Thread-safe.
template <typename Message>
class InProcessChannel {
 public:
  using Receiver = std::function<void(Message)>;

  // `receiver` gets each message on the channel's thread, one at a time.
  explicit InProcessChannel(Receiver receiver)
      : receiver_(std::move(receiver)), thread_([this] { Run(); }) {}
  // Delivers what was sent before, then stops.
  ~InProcessChannel() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  InProcessChannel(const InProcessChannel&) = delete;
  InProcessChannel& operator=(const InProcessChannel&) = delete;

  void Send(Message message) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(message));
      ++sent_;
    }
    changed_.notify_all();
  }
  // Waits until every message sent before the call has been handled by the receiver; returns
  // how many the receiver has handled since the channel was built. Not from the receiver itself.
  uint64_t Drain() {
    std::unique_lock<std::mutex> lock(mu_);
    const uint64_t target = sent_;
    changed_.wait(lock, [&] { return delivered_ >= target; });
    return delivered_;
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything delivered
      Message message = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      receiver_(std::move(message));
      lock.lock();
      ++delivered_;
      changed_.notify_all();
    }
  }

  const Receiver receiver_;
  std::mutex mu_;
  std::condition_variable changed_;  // sent, delivered or stopping
  std::deque<Message> queue_;
  uint64_t sent_ = 0, delivered_ = 0;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the rest is built
};

// Both directions of one front's link.
struct InProcessLink {
  InProcessLink(InProcessChannel<v1::FrontMessage>::Receiver combiner,
                InProcessChannel<v1::CombinerMessage>::Receiver front)
      : to_combiner(std::move(combiner)), to_front(std::move(front)) {}

  InProcessChannel<v1::FrontMessage> to_combiner;
  InProcessChannel<v1::CombinerMessage> to_front;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_IN_PROCESS_LINK_H_
