#include "server/clock.h"

#include <chrono>

namespace fedmf::server {

absl::Time SteadyClock::Now() const {
  return absl::UnixEpoch() + absl::FromChrono(std::chrono::steady_clock::now().time_since_epoch());
}

void SteadyClock::WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                            absl::Time deadline) {
  const std::chrono::nanoseconds since_epoch =
      absl::ToChronoNanoseconds(deadline - absl::UnixEpoch());
  cv.wait_until(lock,
                std::chrono::steady_clock::time_point(
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(since_epoch)));
}

SteadyClock& SteadyClock::Get() {
  static SteadyClock clock;
  return clock;
}

}  // namespace fedmf::server
