#include "tools/loadgen/load_observer.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "crypto/secagg/stages.h"
#include "wire/envelope.h"

namespace fedmf::loadgen {
namespace {

std::optional<DropStage> DropStageOf(MessageKind kind) {
  switch (kind) {
    case MessageKind::kTask:
      return DropStage::kAdvertise;
    case MessageKind::kShareKeys:
      return DropStage::kShareKeys;
    case MessageKind::kMaskedInput:
      return DropStage::kMaskedInput;
    case MessageKind::kUnmasking:
      return DropStage::kUnmasking;
    default:
      return std::nullopt;
  }
}

int64_t RoundOf(const v1::ServerMessage& m) {
  if (m.has_task()) return m.task().round();
  if (m.has_secagg()) return m.secagg().round();
  if (m.has_result()) return m.result().round();
  return -1;
}

// The phase of a training task or SecAgg message (the only ones a user drops at).
int PhaseOf(const v1::ServerMessage& m) {
  if (m.has_task()) return m.task().plan().phase();
  if (m.has_secagg()) return wire::TagOf(m.secagg()).phase;
  return 0;
}

}  // namespace

MessageKind Classify(const v1::ServerMessage& message) {
  if (message.has_task()) return MessageKind::kTask;
  if (message.has_result()) {
    return message.result().phase() == wire::kEvaluationPhase ? MessageKind::kOther
                                                              : MessageKind::kResult;
  }
  if (!message.has_secagg() || wire::TagOf(message.secagg()).evaluation()) {
    return MessageKind::kOther;
  }
  switch (message.secagg().message().message_case()) {
    case v1::secagg::ServerToClient::kShareKeys:
      return MessageKind::kShareKeys;
    case v1::secagg::ServerToClient::kMaskedInput:
      return MessageKind::kMaskedInput;
    case v1::secagg::ServerToClient::kConsistencyCheck:
      return MessageKind::kConsistencyCheck;
    case v1::secagg::ServerToClient::kUnmasking:
      return MessageKind::kUnmasking;
    case v1::secagg::ServerToClient::kAbort:
      return MessageKind::kAbort;
    default:
      return MessageKind::kOther;
  }
}

// kTask..kUnmasking open the SecAgg stages in protocol order (the task opens AdvertiseKeys).
static_assert(static_cast<int>(MessageKind::kTask) ==
              static_cast<int>(secagg::ServerStage::kAdvertiseKeys));
static_assert(static_cast<int>(MessageKind::kUnmasking) ==
              static_cast<int>(secagg::ServerStage::kUnmasking));

const char* StageSeries(MessageKind kind) {
  if (kind > MessageKind::kUnmasking) return "";
  return secagg::NamesOf(static_cast<secagg::ServerStage>(kind)).key;
}

LoadObserver::LoadObserver(const LoadSchedule* schedule, std::vector<uint32_t> participants,
                           LatencyRecorder* latencies)
    : schedule_(schedule),
      participants_(std::move(participants)),
      latencies_(latencies),
      hosts_(participants_.size()) {}

client::StreamAction LoadObserver::OnReceive(size_t host, const v1::ServerMessage& message) {
  const absl::Time now = absl::Now();
  HostState& h = hosts_[host];
  const uint32_t participant = participants_[host];
  client::StreamAction action;
  action.delay = schedule_->Latency(participant, h.messages++);
  if (message.has_check_in_later()) check_ins_.fetch_add(1);
  const MessageKind kind = Classify(message);
  if (kind == MessageKind::kOther) return action;
  if (kind == MessageKind::kUnmasking || kind == MessageKind::kResult) {
    MarkUnmasking(kind == MessageKind::kUnmasking, now);
  }
  const int64_t round = RoundOf(message);
  // A task opens an attempt: a user gone from an earlier attempt at the round is back for it.
  if (kind == MessageKind::kTask) h.attempt = message.task().attempt();
  const bool final_result = kind == MessageKind::kResult && message.result().training_done();
  if (final_result && !training_done_seen_.exchange(true) && on_training_done_) {
    on_training_done_();
  }

  if (!h.reconnected && !final_result && round >= schedule_->options().reconnect_after &&
      schedule_->Reconnects(participant)) {
    h.reconnected = true;
    reconnects_.fetch_add(1);
    if (kind != MessageKind::kResult && !h.Gone(round)) reconnects_in_round_.fetch_add(1);
    h.DropOut(round);
    action.disconnect = true;
    return action;
  }
  if (kind == MessageKind::kResult) {
    if (h.round == round && !h.Gone(round) && h.last != MessageKind::kResult) {
      latencies_->Add(StageSeries(h.last), absl::ToDoubleSeconds(now - h.last_at));
      latencies_->Add("round", absl::ToDoubleSeconds(now - h.task_at));
    }
    h.round = round;
    h.last = kind;
    std::lock_guard<std::mutex> lock(mu_);
    last_result_ = std::max(last_result_, now);
    if (message.result().applied()) {
      applied_rounds_.insert(round);
    } else if (!final_result) {  // the closing message of the run is not a round
      ++h.failed_results;
    }
    return action;
  }
  if (h.Gone(round)) {  // gone for this attempt: nothing more of it reaches the user
    action.deliver = false;
    return action;
  }
  if (kind == MessageKind::kTask) {
    tasks_.fetch_add(1);
    h.task_at = now;
    std::lock_guard<std::mutex> lock(mu_);
    first_task_ = std::min(first_task_, now);
  } else if (h.round == round && h.last != MessageKind::kResult) {
    latencies_->Add(StageSeries(h.last), absl::ToDoubleSeconds(now - h.last_at));
  }
  h.round = round;
  h.last = kind;
  h.last_at = now;
  if (std::optional<DropStage> stage = DropStageOf(kind);
      stage && schedule_->Drops(participant, round, h.attempt, PhaseOf(message), *stage)) {
    drops_[static_cast<int>(*stage)].fetch_add(1);
    h.DropOut(round);
    action.deliver = false;
    action.disconnect = schedule_->options().disconnect_on_drop;
  }
  return action;
}

void LoadObserver::MarkUnmasking(bool starts, absl::Time now) {
  if (unmasking_open_.load() == starts) return;
  std::lock_guard<std::mutex> lock(mu_);
  const bool open = !unmasking_.empty() && unmasking_.back().second == absl::InfiniteFuture();
  if (starts && !open) unmasking_.emplace_back(now, absl::InfiniteFuture());
  if (!starts && open) unmasking_.back().second = now;
  unmasking_open_.store(starts);
}

bool LoadObserver::OverlapsUnmasking(absl::Time asked, absl::Time answered) const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::any_of(unmasking_.begin(), unmasking_.end(), [&](const auto& window) {
    return window.first <= answered && asked < window.second;
  });
}

void LoadObserver::OnRegistered(size_t /*host*/, absl::Time asked, absl::Time answered) {
  const double seconds = absl::ToDoubleSeconds(answered - asked);
  latencies_->Add("register", seconds);
  if (OverlapsUnmasking(asked, answered)) latencies_->Add("register_unmasking", seconds);
}

LoadCounters LoadObserver::Counters() const {
  LoadCounters c;
  c.tasks = tasks_.load();
  for (int s = 0; s < kNumDropStages; ++s) c.drops[s] = drops_[s].load();
  c.reconnects = reconnects_.load();
  c.reconnects_in_round = reconnects_in_round_.load();
  c.check_ins = check_ins_.load();
  std::lock_guard<std::mutex> lock(mu_);
  c.rounds_applied = static_cast<int64_t>(applied_rounds_.size());
  for (const HostState& h : hosts_)
    c.failed_attempts = std::max(c.failed_attempts, h.failed_results);
  c.first_task = first_task_;
  c.last_result = last_result_;
  return c;
}

}  // namespace fedmf::loadgen
