// fedmf-loadgen's StreamObserver: applies the LoadSchedule to every message a simulated user's
// stream receives (withholds the rest of a round from a user that drops, delays messages,
// cuts a reconnecting user's stream once) and records, from the client's view, the time from each
// SecAgg stage's server message to the next one and from RoundTask to RoundResult.
#ifndef FEDMF_TOOLS_LOADGEN_LOAD_OBSERVER_H_
#define FEDMF_TOOLS_LOADGEN_LOAD_OBSERVER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <vector>

#include "absl/time/time.h"
#include "client/stream_pool.h"
#include "fedmf/v1/federation.pb.h"
#include "tools/loadgen/latency_stats.h"
#include "tools/loadgen/load_schedule.h"

namespace fedmf::loadgen {

// Training messages a client receives, by what they open (kTask..kUnmasking: the SecAgg stages in
// protocol order); evaluation-round messages, chunks and anything else are kOther.
enum class MessageKind {
  kTask,
  kShareKeys,
  kMaskedInput,
  kConsistencyCheck,
  kUnmasking,
  kAbort,
  kResult,
  kOther
};
MessageKind Classify(const v1::ServerMessage& message);
// The latency series a message of `kind` opens ("advertise" for the task, ...); "" for results
// and kOther.
const char* StageSeries(MessageKind kind);

struct LoadCounters {
  int64_t tasks = 0;                   // RoundTasks received (user in a cohort)
  int64_t drops[kNumDropStages] = {};  // replies withheld, by stage
  int64_t reconnects = 0;              // streams cut by reconnecting users
  int64_t reconnects_in_round = 0;     // ... of them, in the middle of a round they were in
  int64_t check_ins = 0;  // CheckInLater received: streams ended until a round needs them
  int64_t rounds_applied = 0;          // distinct rounds with an applied RoundResult
  int64_t failed_attempts = 0;         // non-applied RoundResults (most any user saw)
  absl::Time first_task = absl::InfiniteFuture();
  absl::Time last_result = absl::InfinitePast();
  int64_t DropsTotal() const { return drops[0] + drops[1] + drops[2] + drops[3]; }
};

class LoadObserver final : public client::StreamObserver {
 public:
  // participants[i]: the (only) participant id of host i.
  LoadObserver(const LoadSchedule* schedule, std::vector<uint32_t> participants,
               LatencyRecorder* latencies);

  client::StreamAction OnReceive(size_t host, const v1::ServerMessage& message) override;
  // Records the registration's latency (series register, and register_unmasking when it
  // overlapped an unmasking window).
  void OnRegistered(size_t host, absl::Time asked, absl::Time answered) override;
  // [asked, answered] overlaps an unmasking window: from the first Unmasking request of a
  // training aggregation any user received to the RoundResult that closed it, which spans the
  // coordinator's unmasking (the heavy part of a round). For the _unmasking series.
  bool OverlapsUnmasking(absl::Time asked, absl::Time answered) const;
  // Called once, on a gRPC thread, at the first RoundResult with training_done (while the
  // coordinator still serves); must be cheap.
  void set_on_training_done(std::function<void()> f) { on_training_done_ = std::move(f); }

  // Call after RunStreamPool returned.
  LoadCounters Counters() const;

 private:
  // Opens (an Unmasking request) or closes (a training RoundResult) an unmasking window at `now`.
  void MarkUnmasking(bool starts, absl::Time now);

  // Touched only by its host's stream (one message at a time), read after the pool ended.
  struct HostState {
    int64_t round = -1;  // of the last training message
    MessageKind last = MessageKind::kOther;
    absl::Time last_at;
    absl::Time task_at;
    int32_t attempt = 0;  // of the last task
    // The (round, attempt) the user dropped out of: it withholds the rest of that attempt.
    int64_t dropped_round = -1;
    int32_t dropped_attempt = -1;
    bool Gone(int64_t r) const { return dropped_round == r && dropped_attempt == attempt; }
    void DropOut(int64_t r) {
      dropped_round = r;
      dropped_attempt = attempt;
    }
    bool reconnected = false;
    uint64_t messages = 0;
    int64_t failed_results = 0;
  };

  const LoadSchedule* schedule_;
  const std::vector<uint32_t> participants_;
  LatencyRecorder* latencies_;
  std::vector<HostState> hosts_;
  std::function<void()> on_training_done_;
  std::atomic<bool> training_done_seen_{false};
  std::atomic<int64_t> tasks_{0};
  std::atomic<int64_t> drops_[kNumDropStages] = {};
  std::atomic<int64_t> reconnects_{0};
  std::atomic<int64_t> reconnects_in_round_{0};
  std::atomic<int64_t> check_ins_{0};
  std::atomic<bool> unmasking_open_{false};  // a hint: unmasking_'s last window is open
  mutable std::mutex mu_;  // guards the rest
  std::set<int64_t> applied_rounds_;
  // Unmasking windows seen so far, [start, end); the last may be open (end InfiniteFuture).
  std::vector<std::pair<absl::Time, absl::Time>> unmasking_;
  absl::Time first_task_ = absl::InfiniteFuture();
  absl::Time last_result_ = absl::InfinitePast();
};

}  // namespace fedmf::loadgen

#endif  // FEDMF_TOOLS_LOADGEN_LOAD_OBSERVER_H_
