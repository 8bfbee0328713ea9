#include "server/training_phase.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/util/event_log.h"
#include "server/cohort.h"
#include "wire/chunking.h"

namespace fedmf::server {
namespace {

// Room for the task's SecAgg parameters and participant ids around the plan.
constexpr size_t kTaskOverheadBytes = 1 << 20;

absl::StatusOr<secagg::SessionConfig> SecureSumConfig(const v1::RoundPlan& plan, int attempt,
                                                      int64_t cohort_size,
                                                      const CoordinatorOptions& options,
                                                      const algorithms::Updater& updater) {
  GraphRequest request;
  // A fixed population tolerates no dropout: every member's input is in every sum (min_inputs =
  // the cohort, which the session enforces), so the graph is sized for no dropout. It stays on
  // the complete graph with t = the whole cohort unless --secagg_graph=harary asks for SecAgg+:
  // then each client masks against k neighbours instead of the whole population, which is what
  // lets a large fixed population sum at all.
  const bool fixed = updater.fixed_population();
  request.mode = fixed && options.secagg_graph == GraphMode::kAuto ? GraphMode::kComplete
                                                                   : options.secagg_graph;
  request.cohort = cohort_size;
  request.min_contributors = MinInputs(plan, cohort_size, updater);
  request.dropout_fraction = fixed ? 0 : options.dropout_fraction;
  request.corrupt_fraction = options.corrupt_fraction;
  request.degree = options.harary_degree;
  // A Harary graph has no consistency check: when one is asked for, its parameters must resist a
  // server that lies about dropouts on their own.
  request.lying_server = options.signatures && options.consistency_check;
  absl::StatusOr<GraphChoice> graph = ChooseGraph(request);
  if (!graph.ok()) return graph.status();
  secagg::SessionConfig config;
  // Unique per aggregation: a retried round and each phase are new sessions.
  config.context = absl::StrCat(options.run_id, "/round-", plan.round(), "/attempt-", attempt);
  if (plan.phase() > 0) absl::StrAppend(&config.context, "/phase-", plan.phase());
  config.num_clients = static_cast<int>(cohort_size);
  config.threshold = graph->threshold;
  config.bits = plan.bits();
  config.length = static_cast<size_t>(plan.length());
  config.graph = graph->graph;
  config.degree = graph->degree;
  config.signatures = options.signatures;
  // Only defined on the complete graph (docs/protocol.md, "Signatures").
  config.consistency_check = options.signatures && options.consistency_check &&
                             graph->graph == secagg::GraphKind::kComplete;
  EventLine("secagg_session")
      .Add("round", plan.round())
      .Add("graph", config.graph == secagg::GraphKind::kHarary ? "harary" : "complete")
      .Add("degree", config.degree)
      .Add("threshold", config.threshold)
      .Add("signatures", config.signatures ? "on" : "off")
      .Add("consistency_check", config.consistency_check ? "on" : "off");
  return config;
}

}  // namespace

absl::StatusOr<PhaseSpec> TrainingPhaseSpec(const v1::RoundPlan& plan, int attempt,
                                            int64_t cohort_size, const CoordinatorOptions& options,
                                            const algorithms::Updater& updater) {
  PhaseSpec spec{.plan = plan, .attempt = attempt, .rounds_done = updater.round()};
  // A Harary session only needs t live holders per neighborhood, so it would unmask a sum of
  // fewer inputs than the privacy calibration assumed: the session refuses that itself.
  spec.min_inputs = MinInputs(plan, cohort_size, updater);
  // fedmf-sim --plain_sum: a secure-sum plan collected by clear uploads (the same sum).
  if (plan.combination() == v1::COMBINATION_CLEAR || options.simulation_plain_sum) {
    // A secure-sum plan collected in the clear gets no per-upload test: it would get none
    // through SecAgg either.
    if (plan.combination() == v1::COMBINATION_CLEAR) {
      spec.upload_check = [&updater](const algorithms::ContributionVector& vector) {
        return updater.CheckUpload(vector);
      };
    }
    return spec;
  }
  absl::StatusOr<secagg::SessionConfig> config =
      SecureSumConfig(plan, attempt, cohort_size, options, updater);
  if (!config.ok()) return config.status();
  spec.secagg = *std::move(config);
  return spec;
}

int64_t MinInputs(const v1::RoundPlan& plan, int64_t cohort_size,
                  const algorithms::Updater& updater) {
  return updater.fixed_population() ? cohort_size : plan.min_contributors();
}

absl::Status CheckTaskSize(const v1::RoundPlan& plan, uint64_t max_plan_bytes) {
  // Clients reassemble at most that much (a larger plan goes in chunks up to that).
  if (plan.ByteSizeLong() + kTaskOverheadBytes > max_plan_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "round plan of ", plan.ByteSizeLong(), " bytes (and ", kTaskOverheadBytes,
        " bytes of task) exceeds --max_plan_bytes=", max_plan_bytes, ": raise it (at most ",
        wire::kMaxParseBytes, ") and the clients' --max_download_bytes together"));
  }
  return absl::OkStatus();
}

}  // namespace fedmf::server
