#include "tools/sim/progress_clock.h"

namespace fedmf::sim {

absl::Time ProgressClock::Now() const {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time base = pending_ > 0 ? stopped_at_ : base_.Now();
  return base - stopped_total_;
}

void ProgressClock::WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                              absl::Time deadline) {
  const absl::Duration missing = deadline - Now();
  if (missing <= absl::ZeroDuration()) return;
  base_.WaitUntil(cv, lock, base_.Now() + missing);
}

void ProgressClock::WorkAdded(int64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  if (pending_ == 0 && n > 0) stopped_at_ = base_.Now();
  pending_ += n;
}

void ProgressClock::WorkDone(int64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_ -= n;
  if (pending_ == 0 && n > 0) stopped_total_ += base_.Now() - stopped_at_;
}

}  // namespace fedmf::sim
