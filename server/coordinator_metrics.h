// What the coordinator counts for an operator's Prometheus scrape (--metrics_listen): aggregations
// started, applied and failed, each SecAgg stage's duration and dropouts, rendered with the run's
// Admin.Status figures (round, cohort, streams, traffic, privacy spent) and the process's own
// resource use. Thread-safe: the phase runner records on the driver thread, a scrape renders from the
// HTTP server's thread.
#ifndef FEDMF_SERVER_COORDINATOR_METRICS_H_
#define FEDMF_SERVER_COORDINATOR_METRICS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/util/proc_stats.h"
#include "fedmf/v1/federation.pb.h"
#include "server/prometheus_text.h"

namespace fedmf::server {

class CoordinatorMetrics {
 public:
  // An aggregation (one attempt at a training phase, or a federated evaluation) started.
  void AggregationStarted(bool evaluation);
  // ... and ended: its sum was used (applied) or not (failed: too few inputs, aborted, stopped).
  void AggregationEnded(bool evaluation, bool applied);
  // A stage (`stage`: "AdvertiseKeys", ..., "ClearUpload") of an aggregation closed after
  // `seconds`, having lost `dropouts` participants.
  void StageClosed(bool evaluation, absl::string_view stage, double seconds, int64_t dropouts);

  // The exposition: these counters with `status`'s figures and `process` (if read).
  std::string Render(const v1::StatusResponse& status,
                     const absl::StatusOr<util::ProcStats>& process) const;

 private:
  // Per (kind, stage): "training"/"evaluation" and the stage name.
  using StageKey = std::pair<std::string, std::string>;
  struct Counts {
    uint64_t started = 0, applied = 0, failed = 0;
  };

  mutable std::mutex mu_;
  std::map<std::string, Counts> aggregations_;  // per kind
  std::map<StageKey, HistogramSnapshot> stage_seconds_;
  std::map<StageKey, uint64_t> dropouts_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_COORDINATOR_METRICS_H_
