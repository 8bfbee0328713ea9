// The time the round driver and the stream router go by: what time it is, and waiting on a
// condition variable until a deadline by that time. Injected so that deadline tests run on a
// fake clock (tests/unit/server/fake_clock.h) without sleeping; SteadyClock is the real one.
#ifndef FEDMF_SERVER_CLOCK_H_
#define FEDMF_SERVER_CLOCK_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "absl/time/time.h"

namespace fedmf::server {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
  // Waits on `cv` (with `lock` held, released while waiting) until it is notified or `deadline`
  // passes by this clock; may return early (spuriously), so callers re-check their condition.
  virtual void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                         absl::Time deadline) = 0;
};

// Work in flight whose outcome a deadline must wait for: fedmf-sim's clock
// (tools/sim/progress_clock.h) stands still while any is pending, so that a message queued
// between in-process parties (a client's inbox, a replica link) is never late.
class PendingWork {
 public:
  virtual ~PendingWork() = default;
  // `n` units of work were taken up; call before anyone waiting on their outcome can see them.
  virtual void WorkAdded(int64_t n) = 0;
  // `n` units are done; call after their results were delivered.
  virtual void WorkDone(int64_t n) = 0;
};

// std::chrono::steady_clock as an absl::Time (only differences between its times mean anything).
class SteadyClock final : public Clock {
 public:
  absl::Time Now() const override;
  void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 absl::Time deadline) override;
  // The process's one instance.
  static SteadyClock& Get();
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_CLOCK_H_
