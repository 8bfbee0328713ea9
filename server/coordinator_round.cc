// The driver side of Coordinator: the round loop and one round's SecAgg stages.
#include <algorithm>
#include <chrono>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/secagg_params.h"
#include "common/dp/rdp_curve.h"
#include "common/util/event_log.h"
#include "server/cohort.h"
#include "server/coordinator.h"
#include "server/traffic_report.h"

namespace fedmf::server {
namespace {

using Clock = std::chrono::steady_clock;

// Room for the task's SecAgg parameters and participant ids around the plan.
constexpr size_t kTaskOverheadBytes = 1 << 20;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// The key of a stage's duration in the event=round line.
const char* StageKey(secagg::ServerStage stage) {
  switch (stage) {
    case secagg::ServerStage::kAdvertiseKeys:
      return "advertise_s";
    case secagg::ServerStage::kShareKeys:
      return "share_keys_s";
    case secagg::ServerStage::kMaskedInput:
      return "masked_input_s";
    case secagg::ServerStage::kConsistencyCheck:
      return "consistency_s";
    default:
      return "unmasking_s";
  }
}

}  // namespace

absl::Status Coordinator::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  LogEvaluation(state_.updater->round());
  int failures = 0;
  std::string end = "rounds done";
  while (state_.updater->round() < state_.total_rounds && !stop_) {
    absl::StatusOr<RoundOutcome> outcome = RunRound(lock, failures);
    if (!outcome.ok()) return outcome.status();
    if (outcome->budget_spent) {
      end = "privacy budget spent";
      break;
    }
    if (outcome->applied) {
      failures = 0;
      if (absl::Status s = MaybeEvaluate(lock, /*last=*/false); !s.ok()) return s;
    } else if (!stop_ && ++failures >= options_.max_failed_rounds) {
      return absl::AbortedError(
          absl::StrCat(failures, " rounds in a row failed; last: ", outcome->reason));
    }
  }
  if (absl::Status s = MaybeEvaluate(lock, /*last=*/true); !s.ok()) return s;
  if (stop_) end = "stopped";
  stage_ = "done";
  v1::RoundResult done;
  done.set_round(state_.updater->round());
  done.set_training_done(true);
  done.set_reason(end);
  Broadcast(done);
  EventLine("training_end").Add("rounds", state_.updater->round()).Add("reason", end);
  return absl::OkStatus();
}

absl::StatusOr<bool> Coordinator::BudgetAllows(const v1::RoundPlan& plan) const {
  const std::optional<dp::PrivacyBudget> budget = state_.updater->budget();
  if (!budget) return true;
  absl::StatusOr<std::optional<dp::LedgerEntry>> entry =
      state_.updater->RoundPrivacy(plan.min_contributors(), state_.ledger.orders());
  if (!entry.ok()) return entry.status();
  if (!*entry) return true;
  absl::StatusOr<dp::RdpCurve> curve = dp::RdpCurve::Create(state_.ledger.orders(), (*entry)->rdp);
  if (!curve.ok()) return curve.status();
  return state_.ledger.CanAfford(*curve, *budget);
}

absl::Status Coordinator::CheckTaskSize(const v1::RoundPlan& plan) {
  // Clients reassemble at most kMaxTransferBytes (a larger plan goes in chunks up to that).
  if (plan.ByteSizeLong() + kTaskOverheadBytes > wire::kMaxTransferBytes) {
    return absl::ResourceExhaustedError(absl::StrCat("round plan of ", plan.ByteSizeLong(),
                                                     " bytes exceeds the ", wire::kMaxTransferBytes,
                                                     "-byte transfer limit (wire/chunking.h)"));
  }
  return absl::OkStatus();
}

bool Coordinator::WaitForLiveUsers(std::unique_lock<std::mutex>& lock, int64_t needed,
                                   int64_t round) {
  stage_ = "waiting";
  auto last_log = Clock::now() - std::chrono::seconds(10);
  while (!stop_ && static_cast<int64_t>(registry_.LiveUsers().size()) < needed) {
    if (Seconds(last_log) >= 5) {
      EventLine("waiting_for_users")
          .Add("round", round)
          .Add("live", registry_.LiveUsers().size())
          .Add("need", needed);
      last_log = Clock::now();
    }
    cv_.wait_for(lock, std::chrono::seconds(1));
  }
  return !stop_;
}

absl::StatusOr<Coordinator::RoundOutcome> Coordinator::RunRound(std::unique_lock<std::mutex>& lock,
                                                                int attempt) {
  const int64_t round = state_.updater->round();
  absl::StatusOr<v1::RoundPlan> plan = state_.updater->Plan();
  if (!plan.ok()) return plan.status();
  if (absl::Status s = CheckTaskSize(*plan); !s.ok()) return s;
  absl::StatusOr<bool> affordable = BudgetAllows(*plan);
  if (!affordable.ok()) return affordable.status();
  if (!*affordable) return RoundOutcome{.applied = false, .budget_spent = true, .reason = "budget"};

  const int64_t cohort_size = plan->max_contributors();
  const int64_t needed =
      first_round_ ? std::max(cohort_size, options_.wait_for_users) : cohort_size;
  first_round_ = false;
  if (!WaitForLiveUsers(lock, needed, round)) {
    return RoundOutcome{.applied = false, .budget_spent = false, .reason = "stopped"};
  }

  absl::StatusOr<std::vector<uint32_t>> cohort =
      SampleCohort(registry_.LiveUsers(), cohort_size, state_.sampling_seed, round, attempt);
  if (!cohort.ok()) return cohort.status();
  cohort_ = std::move(*cohort);
  last_participants_ = static_cast<int32_t>(cohort_size);
  last_dropouts_ = 0;
  const int64_t in0 = bytes_in_.load(), out0 = bytes_out_.load();
  traffic_.Reset();
  const auto round_start = Clock::now();
  StageSeconds stage_seconds;
  // fedmf-sim --plain_sum: a secure-sum plan collected by clear uploads (the same sum).
  const bool clear = plan->combination() == v1::COMBINATION_CLEAR || options_.simulation_plain_sum;
  absl::StatusOr<RoundSum> collected = clear ? CollectClear(lock, *plan, stage_seconds)
                                             : CollectSecAgg(lock, *plan, attempt, stage_seconds);
  if (!collected.ok()) return collected.status();
  const int threshold = collected->threshold;
  absl::StatusOr<RoundOutcome> outcome = Finalize(lock, std::move(*collected));
  if (!outcome.ok()) return outcome;
  EventLine line("round");
  line.Add("round", round)
      .Add("attempt", attempt)
      .Add("applied", outcome->applied ? "yes" : "no")
      .Add("participants", cohort_size)
      .Add("threshold", threshold)
      .Add("contributors", cohort_size - last_dropouts_)
      .Add("dropouts", last_dropouts_)
      .Add("bytes_in", bytes_in_.load() - in0)
      .Add("bytes_out", bytes_out_.load() - out0)
      .Add("length", plan->length())
      .Add("bits", plan->bits())
      .Add("round_s", Seconds(round_start));
  for (const auto& [key, seconds] : stage_seconds) line.Add(key, seconds);
  AddTraffic(traffic_, cohort_size, line);
  EndRoundTraffic(round, cohort_size);
  if (state_.ledger.entries().empty()) {
    line.Add("privacy", "no-noise-released");
  } else if (absl::StatusOr<dp::PrivacyReport> report = state_.ledger.Report(options_.report_delta);
             report.ok()) {
    line.Add("epsilon_rdp2", report->rdp_order2)
        .Add("epsilon_dp", report->improved.epsilon)
        .Add("delta", options_.report_delta);
  }
  if (!outcome->applied) line.Add("reason", outcome->reason);
  return outcome;
}

absl::StatusOr<Coordinator::RoundSum> Coordinator::CollectSecAgg(std::unique_lock<std::mutex>& lock,
                                                                 const v1::RoundPlan& plan,
                                                                 int attempt,
                                                                 StageSeconds& stage_seconds) {
  const int64_t cohort_size = static_cast<int64_t>(cohort_.size());
  GraphRequest request;
  request.mode = options_.secagg_graph;
  request.cohort = cohort_size;
  request.min_contributors = plan.min_contributors();
  request.dropout_fraction = options_.dropout_fraction;
  request.corrupt_fraction = options_.corrupt_fraction;
  request.degree = options_.harary_degree;
  // A Harary graph has no consistency check: when one is asked for, its parameters must resist a
  // server that lies about dropouts on their own.
  request.lying_server = options_.signatures && options_.consistency_check;
  absl::StatusOr<GraphChoice> graph = ChooseGraph(request);
  if (!graph.ok()) return graph.status();
  secagg::SessionConfig config;
  // Unique per aggregation: a retried round is a new session.
  config.context = absl::StrCat(options_.run_id, "/round-", plan.round(), "/attempt-", attempt);
  config.num_clients = static_cast<int>(cohort_size);
  config.threshold = graph->threshold;
  config.bits = plan.bits();
  config.length = static_cast<size_t>(plan.length());
  config.graph = graph->graph;
  config.degree = graph->degree;
  config.signatures = options_.signatures;
  // Only defined on the complete graph (docs/protocol.md, "Signatures").
  config.consistency_check = options_.signatures && options_.consistency_check &&
                             graph->graph == secagg::GraphKind::kComplete;
  google::protobuf::RepeatedPtrField<v1::SigningKeys> keys;
  std::shared_ptr<const secagg::SigningKeyDirectory> directory;
  if (config.signatures) {
    absl::StatusOr<std::shared_ptr<const secagg::SigningKeyDirectory>> d = CohortDirectory(keys);
    if (!d.ok()) return d.status();
    directory = std::move(*d);
  }
  absl::StatusOr<std::unique_ptr<secagg::ServerSession>> session =
      secagg::ServerSession::Create(config, cohort_, directory);
  if (!session.ok()) return session.status();
  session_ = std::move(*session);
  EventLine("secagg_session")
      .Add("round", plan.round())
      .Add("graph", config.graph == secagg::GraphKind::kHarary ? "harary" : "complete")
      .Add("degree", config.degree)
      .Add("threshold", config.threshold)
      .Add("signatures", config.signatures ? "on" : "off")
      .Add("consistency_check", config.consistency_check ? "on" : "off");
  SendTasks(plan, &config, config.signatures ? &keys : nullptr);
  std::string refused;
  if (absl::Status s = DriveSecAgg(lock, "", plan.min_contributors(), stage_seconds, refused);
      !s.ok()) {
    return s;
  }
  std::unique_ptr<secagg::ServerSession> done = std::move(session_);
  RoundSum r;
  r.threshold = config.threshold;
  r.contributors = static_cast<int64_t>(done->IncludedClients().size());
  if (!refused.empty()) {
    r.sum = absl::AbortedError(refused);
  } else if (done->stage() == secagg::ServerStage::kCompleted) {
    r.sum = done->result();
  } else {
    r.sum = done->status();
  }
  return r;
}

absl::StatusOr<std::shared_ptr<const secagg::SigningKeyDirectory>> Coordinator::CohortDirectory(
    google::protobuf::RepeatedPtrField<v1::SigningKeys>& keys) const {
  auto directory = std::make_shared<secagg::MapSigningKeyDirectory>();
  std::map<std::string, v1::SigningKeys*> by_key;
  for (uint32_t id : cohort_) {
    const std::string key = registry_.SigningKeyOf(id);
    if (key.empty()) continue;  // gone: SendTasks drops it
    absl::StatusOr<crypto::Ed25519PublicKey> parsed = crypto::Ed25519PublicKey::FromBytes(
        absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
    if (!parsed.ok()) return parsed.status();  // the registry checked the size
    directory->Add(id, *parsed);
    v1::SigningKeys*& entry = by_key[key];
    if (entry == nullptr) {
      entry = keys.Add();
      entry->set_public_key(key);
    }
    entry->add_participant_ids(id);  // cohort_ is ascending
  }
  return std::shared_ptr<const secagg::SigningKeyDirectory>(std::move(directory));
}

void Coordinator::AbortSession(const std::string& reason) {
  for (uint32_t id : cohort_) {
    std::shared_ptr<Connection> c = registry_.ConnectionOf(id);
    if (c == nullptr) continue;
    v1::ServerMessage abort;
    abort.mutable_secagg()->set_participant_id(id);
    abort.mutable_secagg()->set_round(state_.updater->round());
    *abort.mutable_secagg()->mutable_message() = secagg::AbortMessage(reason);
    Send(*c, std::move(abort));
  }
}

absl::Status Coordinator::DriveSecAgg(std::unique_lock<std::mutex>& lock,
                                      absl::string_view stage_prefix, int64_t min_inputs,
                                      StageSeconds& stage_seconds, std::string& refused) {
  while (session_->stage() != secagg::ServerStage::kCompleted &&
         session_->stage() != secagg::ServerStage::kAborted) {
    stage_ = absl::StrCat(stage_prefix, secagg::ServerStageName(session_->stage()));
    const auto start = Clock::now();
    cv_.wait_until(lock, start + absl::ToChronoMilliseconds(options_.stage_timeout),
                   [this] { return stop_ || session_->ReadyToClose(); });
    const char* key = StageKey(session_->stage());
    absl::StatusOr<std::vector<secagg::ServerMessage>> next = session_->CloseStage();
    stage_seconds.emplace_back(key, Seconds(start));
    if (!next.ok()) return next.status();
    const secagg::ServerStage stage = session_->stage();
    const int64_t inputs = static_cast<int64_t>(session_->IncludedClients().size());
    // A Harary session only needs t live holders per neighborhood, so it would unmask a sum of
    // fewer inputs than the privacy calibration assumed: stop before any unmasking share is asked.
    if ((stage == secagg::ServerStage::kConsistencyCheck ||
         stage == secagg::ServerStage::kUnmasking) &&
        inputs < min_inputs) {
      refused = absl::StrCat(inputs, " masked inputs, fewer than n_min ", min_inputs);
      AbortSession(refused);
      break;
    }
    Route(std::move(*next));
  }
  return absl::OkStatus();
}

absl::StatusOr<Coordinator::RoundSum> Coordinator::CollectClear(std::unique_lock<std::mutex>& lock,
                                                                const v1::RoundPlan& plan,
                                                                StageSeconds& stage_seconds) {
  clear_ = std::make_unique<ClearAggregation>(plan, cohort_);
  SendTasks(plan, nullptr);
  stage_ = "ClearUpload";
  const auto start = Clock::now();
  cv_.wait_until(lock, start + absl::ToChronoMilliseconds(options_.stage_timeout),
                 [this] { return stop_ || clear_->Complete(); });
  stage_seconds.emplace_back("clear_upload_s", Seconds(start));
  std::unique_ptr<ClearAggregation> done = std::move(clear_);
  RoundSum r;
  r.threshold = static_cast<int>(plan.min_contributors());
  r.contributors = done->contributors();
  if (r.contributors < plan.min_contributors()) {
    r.sum = absl::AbortedError(
        absl::StrCat(r.contributors, " uploads, fewer than ", plan.min_contributors()));
  } else {
    r.sum = done->sum();
  }
  return r;
}

void Coordinator::SendTasks(const v1::RoundPlan& plan, const secagg::SessionConfig* config,
                            const google::protobuf::RepeatedPtrField<v1::SigningKeys>* keys) {
  std::map<Connection*, std::pair<std::shared_ptr<Connection>, v1::ServerMessage>> tasks;
  for (uint32_t id : cohort_) {
    std::shared_ptr<Connection> c = registry_.ConnectionOf(id);
    if (c == nullptr) {
      if (session_ != nullptr) (void)session_->MarkDropped(id);
      if (clear_ != nullptr) clear_->MarkDropped(id);
      continue;
    }
    auto& [connection, message] = tasks[c.get()];
    if (connection == nullptr) {
      connection = c;
      v1::RoundTask* task = message.mutable_task();
      task->set_round(plan.round());
      *task->mutable_plan() = plan;
      if (config != nullptr) *task->mutable_secagg() = client::ToProto(*config);
      if (keys != nullptr) *task->mutable_signing_keys() = *keys;
      task->set_simulation_plain_sum(config == nullptr &&
                                     plan.combination() == v1::COMBINATION_SECURE_SUM);
    }
    message.mutable_task()->add_participant_ids(id);
  }
  for (auto& [key, entry] : tasks) Send(*entry.first, std::move(entry.second));
}

void Coordinator::Route(std::vector<secagg::ServerMessage> messages) {
  std::vector<uint32_t> unreachable;
  for (secagg::ServerMessage& m : messages) {
    std::shared_ptr<Connection> c = registry_.ConnectionOf(m.client_id);
    if (c == nullptr) {
      unreachable.push_back(m.client_id);
      continue;
    }
    v1::ServerMessage out;
    out.mutable_secagg()->set_participant_id(m.client_id);
    out.mutable_secagg()->set_round(state_.updater->round());
    out.mutable_secagg()->set_evaluation(evaluating_);
    *out.mutable_secagg()->mutable_message() = std::move(m.message);
    Send(*c, std::move(out));
  }
  for (uint32_t id : unreachable) (void)session_->MarkDropped(id);
}

absl::StatusOr<Coordinator::RoundOutcome> Coordinator::Finalize(std::unique_lock<std::mutex>& lock,
                                                                RoundSum collected) {
  const int64_t round = state_.updater->round();
  last_dropouts_ = last_participants_ - static_cast<int32_t>(collected.contributors);
  RoundOutcome outcome;
  v1::RoundResult result;
  result.set_round(round);
  result.set_contributors(static_cast<int32_t>(collected.contributors));
  if (!collected.sum.ok()) {
    outcome.reason = std::string(collected.sum.status().message());
  } else {
    const std::vector<uint64_t>& sum = *collected.sum;
    const int64_t n = collected.contributors;
    // The server saw the sum: the release happened, so it is in the ledger whatever follows.
    absl::StatusOr<std::optional<dp::LedgerEntry>> entry =
        state_.updater->RoundPrivacy(n, state_.ledger.orders());
    if (!entry.ok()) return entry.status();
    if (*entry) {
      if (absl::Status s = state_.ledger.Append(std::move(**entry)); !s.ok()) return s;
    }
    if (absl::Status s = state_.updater->ApplySum(sum, n); !s.ok()) {
      outcome.reason = absl::StrCat("sum discarded: ", s.message());
    } else {
      outcome.applied = true;
    }
    stage_ = "checkpoint";
    lock.unlock();  // only this thread touches the updater and ledger
    absl::Status saved =
        options_.state_dir.empty() ? absl::OkStatus() : SaveCheckpoint(options_.state_dir, state_);
    if (saved.ok() && !options_.state_dir.empty()) {
      EventLine("checkpoint")
          .Add("rounds_done", state_.updater->round())
          .Add("ledger_entries", state_.ledger.entries().size());
    }
    if (saved.ok() && outcome.applied) LogEvaluation(state_.updater->round());
    lock.lock();
    if (!saved.ok()) return saved;
  }
  result.set_applied(outcome.applied);
  result.set_reason(outcome.reason);
  Broadcast(result);
  cohort_.clear();
  return outcome;
}

void Coordinator::LogEvaluation(int64_t round) {
  if (!options_.evaluate) return;
  if (round % options_.evaluate_every != 0 && round != state_.total_rounds) return;
  absl::StatusOr<Evaluation> e = options_.evaluate(*state_.updater);
  if (!e.ok()) {
    EventLine("evaluation").Add("round", round).Add("error", e.status().ToString());
    return;
  }
  EventLine line("evaluation");
  line.Add("round", round);
  if (e->errors.has_value()) {
    line.Add("test_rmse", e->errors->rmse).Add("test_mae", e->errors->mae);
  } else {
    line.Add("rating_errors", "absent");  // the model predicts no ratings
  }
  line.Add("precision10", e->ranking.precision)
      .Add("recall10", e->ranking.recall)
      .Add("f1_10", e->ranking.f1)
      .Add("map10", e->ranking.map)
      .Add("map_at_n10", e->ranking.map_at_n);
}

}  // namespace fedmf::server
