// fedmf-sim's clock: the coordinator's time (server/clock.h) as a base clock's, standing still
// while any simulated client has work pending (a server message queued or being answered). A
// stage deadline therefore passes only after stage_timeout of time in which every client was idle:
// an honest simulated user is never late however slow its computation or the machine, and a
// missing answer (one that will never come) still times out. Thread-safe.
#ifndef FEDMF_TOOLS_SIM_PROGRESS_CLOCK_H_
#define FEDMF_TOOLS_SIM_PROGRESS_CLOCK_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "absl/time/time.h"
#include "server/clock.h"

namespace fedmf::sim {

class ProgressClock final : public server::Clock, public server::PendingWork {
 public:
  // `base` (e.g. server::SteadyClock::Get()) must outlive this clock.
  explicit ProgressClock(server::Clock& base) : base_(base) {}

  // The base clock's time less every stretch during which work was pending.
  absl::Time Now() const override;
  // Waits on the base clock for the time still missing to `deadline` by this clock; when work
  // was pending meanwhile this clock is short of `deadline` on return, and callers wait again.
  void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 absl::Time deadline) override;

  // PendingWork: a client or a link took up `n` units of work (e.g. queued messages): time stops
  // until as many are done.
  void WorkAdded(int64_t n) override;
  void WorkDone(int64_t n) override;

 private:
  server::Clock& base_;
  mutable std::mutex mu_;
  int64_t pending_ = 0;
  absl::Time stopped_at_;            // base time when pending_ last rose from 0
  absl::Duration stopped_total_;     // base time spent with work pending, before stopped_at_
};

}  // namespace fedmf::sim

#endif  // FEDMF_TOOLS_SIM_PROGRESS_CLOCK_H_
