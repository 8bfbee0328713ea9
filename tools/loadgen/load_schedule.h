// What each simulated user of fedmf-loadgen does, decided up front from a seed so a run is
// reproducible: whether it drops out at a SecAgg stage of an attempt at a round (withholds its
// reply to that stage's request and everything after it in the attempt; in every phase of a
// multi-phase round, or in one chosen phase only; a retried attempt draws afresh), whether it is
// a slow client, whether it disconnects and comes back, and the extra latency of each message.
// Decisions are a keyed hash of (seed, participant, round, attempt, stage or message index), so
// they do not depend on thread timing.
#ifndef FEDMF_TOOLS_LOADGEN_LOAD_SCHEDULE_H_
#define FEDMF_TOOLS_LOADGEN_LOAD_SCHEDULE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace fedmf::loadgen {

// The stage whose reply a dropping user withholds: AdvertiseKeys (the answer to the RoundTask),
// ShareKeys, MaskedInput, Unmasking.
enum class DropStage { kAdvertise = 0, kShareKeys = 1, kMaskedInput = 2, kUnmasking = 3 };
inline constexpr int kNumDropStages = 4;
const char* DropStageName(DropStage stage);

struct LatencyRange {
  absl::Duration min = absl::ZeroDuration();
  absl::Duration max = absl::ZeroDuration();
};

// "MIN:MAX" in milliseconds (0 <= MIN <= MAX), or "MS" for a fixed latency, or "" for none.
absl::StatusOr<LatencyRange> ParseLatencyRange(absl::string_view text);

struct ScheduleOptions {
  uint64_t seed = 1;
  // Probability that a user still in the round drops at that stage (indexed by DropStage).
  double drop[kNumDropStages] = {0, 0, 0, 0};
  // The only phase of a round whose requests users drop at (e.g. 1: lfl-sgdmf's noise
  // replacement), or kEveryPhase.
  int drop_phase = kEveryPhase;
  static constexpr int kEveryPhase = -1;
  LatencyRange extra_latency;  // every message of every user, uniform in [min, max]
  double slow_fraction = 0;    // users whose every message waits slow_latency more
  absl::Duration slow_latency = absl::Seconds(1);
  double reconnect_fraction = 0;  // users that drop their stream once and re-register
  int64_t reconnect_after = 1;    // ... at the first message of this round or later
  // A dropping user cuts its stream (the coordinator sees it at once, like a crashed client; it
  // re-registers with backoff) instead of going silent (the coordinator waits for the stage
  // deadline).
  bool disconnect_on_drop = false;
};

// InvalidArgument naming the option when a probability or fraction is outside [0, 1], a
// latency is negative, reconnect_after < 0 or drop_phase < kEveryPhase.
absl::Status ValidateScheduleOptions(const ScheduleOptions& options);

class LoadSchedule {
 public:
  explicit LoadSchedule(const ScheduleOptions& options) : options_(options) {}

  // Whether `participant`, still in attempt `attempt` at round `round` when `stage`'s request of
  // phase `phase` arrives, drops there: never outside drop_phase (when set); otherwise
  // independent across (participant, round, attempt, stage) with probability drop[stage], the
  // same draw in every phase.
  bool Drops(uint32_t participant, int64_t round, int attempt, int phase, DropStage stage) const;
  bool Slow(uint32_t participant) const;
  bool Reconnects(uint32_t participant) const;
  // Latency added to the `index`-th message `participant` receives.
  absl::Duration Latency(uint32_t participant, uint64_t index) const;
  const ScheduleOptions& options() const { return options_; }

 private:
  // Uniform in [0, 1) from (seed, domain, a, b): SplitMix64 finalizers chained over the inputs.
  double Uniform(uint64_t domain, uint64_t a, uint64_t b) const;

  ScheduleOptions options_;
};

}  // namespace fedmf::loadgen

#endif  // FEDMF_TOOLS_LOADGEN_LOAD_SCHEDULE_H_
