#include "server/stream_limits.h"

#include <algorithm>

namespace fedmf::server {

bool TokenBucket::Take(absl::Time now) {
  if (rate_ <= 0) return true;
  if (now > last_) {
    tokens_ = std::min(burst_, tokens_ + rate_ * absl::ToDoubleSeconds(now - last_));
    last_ = now;
  }
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

bool TokenBucket::Full(absl::Time now) const {
  return rate_ <= 0 || tokens_ + rate_ * absl::ToDoubleSeconds(now - last_) >= burst_;
}

bool StreamCounter::TryAcquire() {
  int64_t live = live_.load();
  while (live < max_) {
    if (live_.compare_exchange_weak(live, live + 1)) return true;
  }
  return false;
}

}  // namespace fedmf::server
