// Test support: a Clock that only moves when told to, or when someone waits: WaitUntil jumps to
// the deadline at once (the deadline passes without anything happening), so deadline tests never
// sleep. Thread-safe.
#ifndef FEDMF_TESTS_UNIT_SERVER_FAKE_CLOCK_H_
#define FEDMF_TESTS_UNIT_SERVER_FAKE_CLOCK_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "absl/time/time.h"
#include "server/clock.h"

namespace fedmf::server::testing {

class FakeClock final : public Clock {
 public:
  absl::Time Now() const override { return absl::FromUnixNanos(nanos_.load()); }
  void WaitUntil(std::condition_variable&, std::unique_lock<std::mutex>&,
                 absl::Time deadline) override {
    AdvanceTo(deadline);
  }
  void AdvanceTo(absl::Time t) {
    int64_t now = nanos_.load();
    const int64_t target = absl::ToUnixNanos(t);
    while (now < target && !nanos_.compare_exchange_weak(now, target)) {
    }
  }
  void Advance(absl::Duration d) { AdvanceTo(Now() + d); }
  // Time since the clock was made.
  absl::Duration Elapsed() const { return Now() - absl::UnixEpoch(); }

 private:
  std::atomic<int64_t> nanos_{0};
};

}  // namespace fedmf::server::testing

#endif  // FEDMF_TESTS_UNIT_SERVER_FAKE_CLOCK_H_
