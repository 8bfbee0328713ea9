#include "tools/loadgen/load_schedule.h"

#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace fedmf::loadgen {
namespace {

uint64_t Mix(uint64_t x) {  // SplitMix64's finalizer: a bijection with full avalanche
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

enum Domain : uint64_t { kDrop = 1, kSlow = 2, kReconnect = 3, kLatency = 4 };

absl::Status CheckFraction(absl::string_view name, double value) {
  if (!(value >= 0 && value <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be in [0, 1], got ", value));
  }
  return absl::OkStatus();
}

}  // namespace

const char* DropStageName(DropStage stage) {
  switch (stage) {
    case DropStage::kAdvertise:
      return "advertise";
    case DropStage::kShareKeys:
      return "share";
    case DropStage::kMaskedInput:
      return "masked";
    case DropStage::kUnmasking:
      return "unmask";
  }
  return "?";
}

absl::StatusOr<LatencyRange> ParseLatencyRange(absl::string_view text) {
  LatencyRange range;
  if (text.empty()) return range;
  const std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  double lo = 0, hi = 0;
  if (parts.size() > 2 || !absl::SimpleAtod(parts[0], &lo) ||
      !absl::SimpleAtod(parts.back(), &hi) || !(lo >= 0) || !(hi >= lo)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "latency must be MIN:MAX milliseconds with 0 <= MIN <= MAX, or MS; got '", text, "'"));
  }
  range.min = absl::Milliseconds(lo);
  range.max = absl::Milliseconds(hi);
  return range;
}

absl::Status ValidateScheduleOptions(const ScheduleOptions& options) {
  for (int s = 0; s < kNumDropStages; ++s) {
    if (absl::Status st = CheckFraction(
            absl::StrCat("drop_", DropStageName(static_cast<DropStage>(s))), options.drop[s]);
        !st.ok()) {
      return st;
    }
  }
  if (absl::Status st = CheckFraction("slow_fraction", options.slow_fraction); !st.ok()) return st;
  if (absl::Status st = CheckFraction("reconnect_fraction", options.reconnect_fraction); !st.ok()) {
    return st;
  }
  if (options.extra_latency.min < absl::ZeroDuration() ||
      options.extra_latency.max < options.extra_latency.min) {
    return absl::InvalidArgumentError("extra_latency must satisfy 0 <= min <= max");
  }
  if (options.slow_latency < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("slow_latency must be >= 0");
  }
  if (options.drop_phase < ScheduleOptions::kEveryPhase) {
    return absl::InvalidArgumentError(absl::StrCat(
        "drop_phase must be a phase (>= 0) or -1 for every phase, got ", options.drop_phase));
  }
  if (options.reconnect_after < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("reconnect_after must be >= 0, got ", options.reconnect_after));
  }
  return absl::OkStatus();
}

double LoadSchedule::Uniform(uint64_t domain, uint64_t a, uint64_t b) const {
  const uint64_t h = Mix(Mix(Mix(Mix(options_.seed) ^ domain) ^ a) ^ b);
  return static_cast<double>(h >> 11) * 0x1.0p-53;  // 53 random bits: exact in [0, 1)
}

bool LoadSchedule::Drops(uint32_t participant, int64_t round, int attempt, int phase,
                         DropStage stage) const {
  const double p = options_.drop[static_cast<int>(stage)];
  if (p <= 0) return false;
  if (options_.drop_phase != ScheduleOptions::kEveryPhase && phase != options_.drop_phase) {
    return false;
  }
  // The phase is not in the key (runs without drop_phase keep their decisions), and the attempt
  // only from the first retry on (first attempts keep theirs): round < 2^40.
  const uint64_t round_stage = (static_cast<uint64_t>(attempt) << 42) |
                               (static_cast<uint64_t>(round) << 2) | static_cast<uint64_t>(stage);
  return Uniform(kDrop, participant, round_stage) < p;
}

bool LoadSchedule::Slow(uint32_t participant) const {
  return Uniform(kSlow, participant, 0) < options_.slow_fraction;
}

bool LoadSchedule::Reconnects(uint32_t participant) const {
  return Uniform(kReconnect, participant, 0) < options_.reconnect_fraction;
}

absl::Duration LoadSchedule::Latency(uint32_t participant, uint64_t index) const {
  const LatencyRange& r = options_.extra_latency;
  absl::Duration d = r.min;
  if (r.max > r.min) d += (r.max - r.min) * Uniform(kLatency, participant, index);
  if (options_.slow_fraction > 0 && Slow(participant)) d += options_.slow_latency;
  return d;
}

}  // namespace fedmf::loadgen
