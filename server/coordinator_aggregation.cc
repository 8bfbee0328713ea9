// The Coordinator's setup of one phase's aggregation: the SecAgg session (graph, threshold,
// signing directory) or the clear sum, and the round tasks that invite the cohort to it.
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/util/event_log.h"
#include "server/cohort.h"
#include "server/coordinator.h"
#include "wire/secagg_params.h"

namespace fedmf::server {

absl::Status Coordinator::StartSecureSum(const v1::RoundPlan& plan, int attempt,
                                         std::vector<uint32_t> cohort) {
  const int64_t cohort_size = static_cast<int64_t>(cohort.size());
  GraphRequest request;
  // A fixed population tolerates no dropout: every member's input is in every sum (min_inputs =
  // the cohort, which the session enforces), so the graph is sized for no dropout. It stays on
  // the complete graph with t = the whole cohort unless --secagg_graph=harary asks for SecAgg+:
  // then each client masks against k neighbours instead of the whole population, which is what
  // lets a large fixed population sum at all.
  const bool fixed = state_.updater->fixed_population();
  request.mode = fixed && options_.secagg_graph == GraphMode::kAuto ? GraphMode::kComplete
                                                                    : options_.secagg_graph;
  request.cohort = cohort_size;
  request.min_contributors = MinInputs(plan, cohort_size);
  request.dropout_fraction = fixed ? 0 : options_.dropout_fraction;
  request.corrupt_fraction = options_.corrupt_fraction;
  request.degree = options_.harary_degree;
  // A Harary graph has no consistency check: when one is asked for, its parameters must resist a
  // server that lies about dropouts on their own.
  request.lying_server = options_.signatures && options_.consistency_check;
  absl::StatusOr<GraphChoice> graph = ChooseGraph(request);
  if (!graph.ok()) return graph.status();
  secagg::SessionConfig config;
  // Unique per aggregation: a retried round and each phase are new sessions.
  config.context = absl::StrCat(options_.run_id, "/round-", plan.round(), "/attempt-", attempt);
  if (plan.phase() > 0) absl::StrAppend(&config.context, "/phase-", plan.phase());
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
  std::shared_ptr<const secagg::SigningKeyDirectory> directory;
  if (config.signatures) {
    absl::StatusOr<std::shared_ptr<const secagg::SigningKeyDirectory>> d = CohortDirectory(cohort);
    if (!d.ok()) return d.status();
    directory = std::move(*d);
  }
  EventLine("secagg_session")
      .Add("round", plan.round())
      .Add("graph", config.graph == secagg::GraphKind::kHarary ? "harary" : "complete")
      .Add("degree", config.degree)
      .Add("threshold", config.threshold)
      .Add("signatures", config.signatures ? "on" : "off")
      .Add("consistency_check", config.consistency_check ? "on" : "off");
  // A Harary session only needs t live holders per neighborhood, so it would unmask a sum of
  // fewer inputs than the privacy calibration assumed: the session refuses that itself.
  return StartSession(plan, attempt, config, std::move(cohort), std::move(directory),
                      request.min_contributors);
}

absl::Status Coordinator::StartSession(const v1::RoundPlan& plan, int attempt,
                                       const secagg::SessionConfig& config,
                                       std::vector<uint32_t> cohort,
                                       std::shared_ptr<const secagg::SigningKeyDirectory> directory,
                                       int64_t min_inputs) {
  absl::StatusOr<std::unique_ptr<Aggregation>> aggregation = Aggregation::Secure(
      {plan.round(), plan.phase()}, config, std::move(cohort), std::move(directory), min_inputs);
  if (!aggregation.ok()) return aggregation.status();
  aggregation_ = std::move(*aggregation);
  // The signing keys go out later, each participant's neighbors' with its ShareKeysRequest
  // (Aggregation): a Harary graph is drawn from the session id, which the stage-0 advertisements
  // fix after the tasks are sent (docs/protocol.md, "Round tasks").
  SendTasks(RoundTaskFor(plan, attempt, &config));
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const secagg::SigningKeyDirectory>> Coordinator::CohortDirectory(
    const std::vector<uint32_t>& cohort) const {
  auto directory = std::make_shared<secagg::MapSigningKeyDirectory>();
  for (uint32_t id : cohort) {
    const std::string key = registry_.SigningKeyOf(id);
    if (key.empty()) continue;  // gone: SendTasks drops it
    absl::StatusOr<crypto::Ed25519PublicKey> parsed = crypto::Ed25519PublicKey::FromBytes(
        absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
    if (!parsed.ok()) return parsed.status();  // the registry checked the size
    directory->Add(id, *parsed);
  }
  return std::shared_ptr<const secagg::SigningKeyDirectory>(std::move(directory));
}

absl::Status Coordinator::StartClear(const v1::RoundPlan& plan, int attempt,
                                     std::vector<uint32_t> cohort) {
  const int64_t min_inputs = MinInputs(plan, static_cast<int64_t>(cohort.size()));
  // A secure-sum plan collected in the clear (fedmf-sim --plain_sum) gets no per-upload test:
  // it would get none through SecAgg either.
  ClearAggregation::UploadCheck check;
  if (plan.combination() == v1::COMBINATION_CLEAR) {
    check = [updater = state_.updater.get()](const algorithms::ContributionVector& vector) {
      return updater->CheckUpload(vector);
    };
  }
  aggregation_ = Aggregation::Clear({plan.round(), plan.phase()}, plan, std::move(cohort),
                                    min_inputs, std::move(check));
  SendTasks(RoundTaskFor(plan, attempt, nullptr));
  return absl::OkStatus();
}

v1::RoundTask Coordinator::RoundTaskFor(const v1::RoundPlan& plan, int attempt,
                                        const secagg::SessionConfig* config) const {
  v1::RoundTask task;
  task.set_round(plan.round());
  task.set_attempt(attempt);
  *task.mutable_plan() = plan;
  if (config != nullptr) *task.mutable_secagg() = wire::ToProto(*config);
  task.set_simulation_plain_sum(config == nullptr &&
                                plan.combination() == v1::COMBINATION_SECURE_SUM);
  return task;
}

void Coordinator::SendTasks(const v1::RoundTask& task) {
  std::map<Connection*, std::pair<std::shared_ptr<Connection>, v1::ServerMessage>> tasks;
  for (uint32_t id : aggregation_->cohort()) {
    std::shared_ptr<Connection> c = registry_.ConnectionOf(id);
    if (c == nullptr) {
      aggregation_->Drop(id);
      continue;
    }
    auto& [connection, message] = tasks[c.get()];
    if (connection == nullptr) {
      connection = c;
      *message.mutable_task() = task;
    }
    message.mutable_task()->add_participant_ids(id);
  }
  for (auto& [key, entry] : tasks) Send(*entry.first, std::move(entry.second));
}

}  // namespace fedmf::server
