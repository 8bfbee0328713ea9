#include "server/phase_runner.h"

#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "server/traffic_report.h"
#include "wire/secagg_params.h"

namespace fedmf::server {

void PhaseOutcome::AddFigures(EventLine& line) const {
  line.Add("participants", participants)
      .Add("threshold", threshold)
      .Add("contributors", contributors)
      .Add("dropouts", participants - contributors)
      .Add("bytes_in", bytes_in)
      .Add("bytes_out", bytes_out);
  for (const auto& [key, stage] : stage_seconds) line.Add(key, stage);
  AddTraffic(traffic, participants, line);
}

void PhaseOutcome::PublishTraffic(int64_t round, bool evaluation,
                                  v1::StatusResponse& status) const {
  status.set_traffic_round(round);
  status.set_traffic_cohort(static_cast<int32_t>(participants));
  status.set_traffic_evaluation(evaluation);
  status.clear_traffic();
  AddTraffic(traffic, participants, status);
}

v1::RoundTask RoundTaskFor(const PhaseSpec& spec) {
  v1::RoundTask task;
  task.set_round(spec.plan.round());
  task.set_attempt(spec.attempt);
  *task.mutable_plan() = spec.plan;
  if (spec.secagg) *task.mutable_secagg() = wire::ToProto(*spec.secagg);
  task.set_simulation_plain_sum(!spec.secagg &&
                                spec.plan.combination() == v1::COMBINATION_SECURE_SUM);
  return task;
}

absl::StatusOr<std::unique_ptr<Aggregation>> RouterPhaseRunner::Build(
    const PhaseSpec& spec, std::vector<uint32_t> cohort) {
  const wire::AggregationTag tag{spec.plan.round(), spec.plan.phase()};
  if (!spec.secagg) {
    return Aggregation::Clear(tag, spec.plan, std::move(cohort), spec.min_inputs,
                              spec.upload_check);
  }
  std::shared_ptr<const secagg::SigningKeyDirectory> directory;
  if (spec.secagg->signatures) {
    absl::StatusOr<std::shared_ptr<const secagg::SigningKeyDirectory>> keys =
        transport_.SigningKeys(cohort);
    if (!keys.ok()) return keys.status();
    directory = std::move(*keys);
  }
  // The signing keys go out later, each participant's neighbors' with its ShareKeysRequest
  // (Aggregation): a Harary graph is drawn from the session id, which the stage-0 advertisements
  // fix after the tasks are sent (docs/protocol.md, "Round tasks").
  return Aggregation::Secure(tag, *spec.secagg, std::move(cohort), std::move(directory),
                             spec.min_inputs);
}

absl::StatusOr<PhaseOutcome> RouterPhaseRunner::Run(const PhaseSpec& spec,
                                                    std::vector<uint32_t> cohort,
                                                    const SumUse& use) {
  PhaseOutcome outcome;
  outcome.participants = static_cast<int64_t>(cohort.size());
  board_.Update([&](StatusBoard::Snapshot& s) {
    s.status.set_participants(static_cast<int32_t>(outcome.participants));
    s.status.set_dropouts(0);
  });
  const PhaseTransport::Traffic before = transport_.CurrentTraffic();
  const absl::Time start = clock_.Now();
  absl::StatusOr<std::unique_ptr<Aggregation>> built = Build(spec, std::move(cohort));
  if (!built.ok()) return built.status();
  Aggregation& aggregation = **built;
  {
    absl::Cleanup detach = [this] { transport_.Detach(); };  // a no-op once finished
    const PhaseTransport::StageStart first = transport_.Open(&aggregation, RoundTaskFor(spec));
    if (absl::Status s = Drive(spec, aggregation, first, outcome); !s.ok()) return s;
  }

  // The aggregation is finished and detached: what follows runs outside the router's lock.
  outcome.threshold = aggregation.threshold();
  outcome.lost = aggregation.Lost();
  outcome.refusal = aggregation.UnanimousRefusal();
  const absl::StatusOr<std::vector<uint64_t>> collected = aggregation.sum();
  const std::vector<uint32_t> contributors = aggregation.contributors();
  outcome.contributors = static_cast<int64_t>(contributors.size());
  board_.Update([&](StatusBoard::Snapshot& s) {
    s.status.set_dropouts(static_cast<int32_t>(outcome.participants - outcome.contributors));
  });
  SumVerdict verdict{.rounds_done = spec.rounds_done};
  if (outcome.refusal) {
    verdict.reason =
        absl::StrCat("every participant refused the plan: ", outcome.refusal->ToString());
  } else if (!collected.ok()) {
    verdict.reason = std::string(collected.status().message());
  } else {
    absl::StatusOr<SumVerdict> used = use(*collected, contributors);
    if (!used.ok()) return used.status();
    verdict = *std::move(used);
  }
  outcome.applied = verdict.applied;
  outcome.reason = verdict.reason;
  outcome.excluded = HandleMisbehaviour(aggregation);
  metrics_.AggregationEnded(spec.evaluation, outcome.applied);
  v1::RoundResult result;
  result.set_round(spec.rounds_done);
  result.set_phase(spec.plan.phase());
  result.set_contributors(static_cast<int32_t>(outcome.contributors));
  result.set_rounds_completed(verdict.rounds_done);
  result.set_applied(outcome.applied);
  result.set_reason(outcome.reason);
  transport_.Broadcast(result);

  const PhaseTransport::Traffic after = transport_.CurrentTraffic();
  outcome.traffic = after.phase;
  outcome.bytes_in = after.bytes_in - before.bytes_in;
  outcome.bytes_out = after.bytes_out - before.bytes_out;
  outcome.seconds = absl::ToDoubleSeconds(clock_.Now() - start);
  return outcome;
}

absl::Status RouterPhaseRunner::Drive(const PhaseSpec& spec, Aggregation& aggregation,
                                      PhaseTransport::StageStart stage, PhaseOutcome& outcome) {
  metrics_.AggregationStarted(spec.evaluation);
  while (!stage.finished) {
    board_.SetStage(absl::StrCat(spec.stage_prefix, stage.stage));
    const absl::Time start = clock_.Now();
    const absl::Time deadline = start + stage_timeout_;
    transport_.AwaitStageEnd(deadline);
    transport_.SealStage(deadline);
    transport_.Suspend();
    // Ours alone until Resume: the heavy part (unmasking) runs while the streams go on.
    const char* key = aggregation.StageKey();
    absl::StatusOr<Aggregation::Envelopes> next = aggregation.CloseStage();
    const double seconds = absl::ToDoubleSeconds(clock_.Now() - start);
    outcome.stage_seconds.emplace_back(key, seconds);
    metrics_.StageClosed(spec.evaluation, stage.stage, seconds,
                         aggregation.DroppedSoFar() - stage.dropped_so_far);
    if (!next.ok()) return next.status();
    stage = transport_.Resume(std::move(*next));
  }
  return absl::OkStatus();
}

std::vector<uint32_t> RouterPhaseRunner::HandleMisbehaviour(const Aggregation& done) {
  const absl::Time now = clock_.Now();
  std::vector<uint32_t> excluded;
  for (const secagg::ServerSession::Misbehaviour& m : done.misbehaviour()) {
    // Tolerated: it may recur every round, so it is counted, not logged each time.
    if (!m.culprit) {
      tolerated_.Record(done.tag(), m.client_id, m.evidence, now);
      continue;
    }
    EventLine("secagg_misbehaviour")
        .Add("round", done.tag().round)
        .Add("phase", done.tag().phase)
        .Add("participant", m.client_id)
        .Add("tolerated", "no")
        .Add("evidence", m.evidence);
    if (!transport_.Exclude(m.client_id, m.evidence)) continue;
    excluded.push_back(m.client_id);
    EventLine("participant_excluded")
        .Add("participant", m.client_id)
        .Add("round", done.tag().round)
        .Add("reason", m.evidence);
  }
  tolerated_.FlushDue(now);
  return excluded;
}

}  // namespace fedmf::server
