#include "server/coordinator_metrics.h"

#include <string>
#include <vector>

namespace fedmf::server {
namespace {

// Stage durations span a loopback round's milliseconds to a 20 s default deadline and beyond.
const std::vector<double>& StageBounds() {
  static const std::vector<double> kBounds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                              2.5,   5,    10,    20,   30,  60,   120};
  return kBounds;
}

const char* Kind(bool evaluation) { return evaluation ? "evaluation" : "training"; }

MetricLabels StageLabels(const std::pair<std::string, std::string>& key) {
  return {{"kind", key.first}, {"stage", key.second}};
}

void AddStatus(const v1::StatusResponse& status, PrometheusText& out) {
  out.Family("fedmf_rounds_completed", "gauge", "Training rounds applied to the model so far.");
  out.Sample("fedmf_rounds_completed", static_cast<double>(status.round()));
  out.Family("fedmf_rounds_total_planned", "gauge", "Training rounds the run is configured for.");
  out.Sample("fedmf_rounds_total_planned", static_cast<double>(status.total_rounds()));
  out.Family("fedmf_training_done", "gauge", "1 once training is over.");
  out.Sample("fedmf_training_done", status.stage() == "done" ? 1 : 0);
  out.Family("fedmf_cohort_size", "gauge", "Participants of the current (or last) aggregation.");
  out.Sample("fedmf_cohort_size", status.participants());
  out.Family("fedmf_cohort_dropouts", "gauge",
             "Dropouts of the current (or last) aggregation so far.");
  out.Sample("fedmf_cohort_dropouts", status.dropouts());
  out.Family("fedmf_registered_participants", "gauge", "Participants on live streams.");
  out.Sample("fedmf_registered_participants", status.registered_users());
  out.Family("fedmf_live_streams", "gauge", "Client processes with a live Participate stream.");
  out.Sample("fedmf_live_streams", status.connected_clients());
  out.Family("fedmf_checked_in_streams_total", "counter",
             "Streams ended by check-in: told to come back when a round needs them.");
  out.Sample("fedmf_checked_in_streams_total", static_cast<double>(status.checked_in_streams()));
  out.Family("fedmf_received_bytes_total", "counter",
             "Serialized message bytes received from clients.");
  out.Sample("fedmf_received_bytes_total", static_cast<double>(status.bytes_in()));
  out.Family("fedmf_sent_bytes_total", "counter", "Serialized message bytes sent to clients.");
  out.Sample("fedmf_sent_bytes_total", static_cast<double>(status.bytes_out()));
  out.Family("fedmf_failed_rounds_in_a_row", "gauge",
             "Aggregations failed in a row (a culprit's retried attempt does not count).");
  out.Sample("fedmf_failed_rounds_in_a_row", status.failed_rounds_in_a_row());
  out.Family("fedmf_excluded_participants", "gauge",
             "Participants excluded for the rest of the run for SecAgg misbehaviour.");
  out.Sample("fedmf_excluded_participants", status.excluded_size());
  out.Family("fedmf_published_model_versions", "gauge", "Published model versions the store keeps.");
  out.Sample("fedmf_published_model_versions", static_cast<double>(status.models().versions()));
  out.Family("fedmf_published_model_bytes", "gauge", "Bytes of the published models kept.");
  out.Sample("fedmf_published_model_bytes", static_cast<double>(status.models().bytes()));
  out.Family("fedmf_published_model_latest_version", "gauge",
             "The newest published model version (0: none).");
  out.Sample("fedmf_published_model_latest_version",
             static_cast<double>(status.models().latest().version()));
  out.Family("fedmf_model_downloads_total", "counter",
             "Models.Download calls that sent a model's last byte.");
  out.Sample("fedmf_model_downloads_total", static_cast<double>(status.models().downloads()));
  if (status.has_runs()) {
    out.Family("fedmf_runs", "gauge", "The service's submitted runs by state.");
    const v1::RunCounts& runs = status.runs();
    for (const auto& [state, count] :
         {std::pair<const char*, int32_t>{"queued", runs.queued()},
          {"running", runs.running()},
          {"done", runs.done()},
          {"failed", runs.failed()},
          {"cancelled", runs.cancelled()}}) {
      out.Sample("fedmf_runs", count, {{"state", state}});
    }
    out.Family("fedmf_run_in_progress", "gauge", "The id of the service's run in progress (0: none).");
    out.Sample("fedmf_run_in_progress", static_cast<double>(runs.running_id()));
  }
  if (status.privacy_unit().empty()) return;  // no noisy release yet
  const MetricLabels privacy = {{"unit", status.privacy_unit()}, {"bound", status.privacy_bound()}};
  out.Family("fedmf_privacy_epsilon", "gauge",
             "Privacy spent as (epsilon, delta)-DP at fedmf_privacy_delta, worst case over the "
             "unit's neighbouring datasets.");
  out.Sample("fedmf_privacy_epsilon", status.epsilon_dp(), privacy);
  out.Family("fedmf_privacy_delta", "gauge", "The delta of fedmf_privacy_epsilon.");
  out.Sample("fedmf_privacy_delta", status.delta(), privacy);
  out.Family("fedmf_privacy_epsilon_rdp_order2", "gauge",
             "Privacy spent as Renyi DP at order 2 (the DPMF-RP paper's convention).");
  out.Sample("fedmf_privacy_epsilon_rdp_order2", status.epsilon_rdp2(), privacy);
}

void AddProcess(const util::ProcStats& p, PrometheusText& out) {
  out.Family("process_cpu_seconds_total", "counter", "User and system CPU time spent in seconds.");
  out.Sample("process_cpu_seconds_total", p.cpu_seconds);
  out.Family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
  out.Sample("process_resident_memory_bytes", static_cast<double>(p.resident_bytes));
  out.Family("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.");
  out.Sample("process_virtual_memory_bytes", static_cast<double>(p.virtual_bytes));
  out.Family("process_start_time_seconds", "gauge",
             "Start time of the process since the Unix epoch in seconds.");
  out.Sample("process_start_time_seconds", p.start_time_seconds);
  out.Family("process_open_fds", "gauge", "Number of open file descriptors.");
  out.Sample("process_open_fds", static_cast<double>(p.open_fds));
}

}  // namespace

void CoordinatorMetrics::AggregationStarted(bool evaluation) {
  std::lock_guard<std::mutex> lock(mu_);
  ++aggregations_[Kind(evaluation)].started;
}

void CoordinatorMetrics::AggregationEnded(bool evaluation, bool applied) {
  std::lock_guard<std::mutex> lock(mu_);
  Counts& counts = aggregations_[Kind(evaluation)];
  ++(applied ? counts.applied : counts.failed);
}

void CoordinatorMetrics::StageClosed(bool evaluation, absl::string_view stage, double seconds,
                                     int64_t dropouts) {
  std::lock_guard<std::mutex> lock(mu_);
  const StageKey key(Kind(evaluation), std::string(stage));
  HistogramSnapshot& h = stage_seconds_[key];
  if (h.bounds.empty()) {
    h.bounds = StageBounds();
    h.buckets.assign(h.bounds.size(), 0);
  }
  for (size_t i = 0; i < h.bounds.size(); ++i) {
    if (seconds <= h.bounds[i]) ++h.buckets[i];
  }
  ++h.count;
  h.sum += seconds;
  dropouts_[key] += static_cast<uint64_t>(dropouts > 0 ? dropouts : 0);
}

std::string CoordinatorMetrics::Render(const v1::StatusResponse& status,
                                       const absl::StatusOr<util::ProcStats>& process) const {
  PrometheusText out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const struct {
      const char* name;
      const char* help;
      uint64_t Counts::*field;
    } kCounters[] = {
        {"fedmf_aggregations_started_total",
         "Aggregations started: attempts at a training phase, or federated evaluations.",
         &Counts::started},
        {"fedmf_aggregations_applied_total", "Aggregations whose sum was used.", &Counts::applied},
        {"fedmf_aggregations_failed_total",
         "Aggregations that ended without a usable sum (too few inputs, aborted, stopped).",
         &Counts::failed},
    };
    for (const auto& counter : kCounters) {
      out.Family(counter.name, "counter", counter.help);
      for (const char* kind : {"training", "evaluation"}) {
        auto it = aggregations_.find(kind);
        const uint64_t value = it == aggregations_.end() ? 0 : it->second.*counter.field;
        out.Sample(counter.name, static_cast<double>(value), {{"kind", kind}});
      }
    }
    out.Family("fedmf_stage_duration_seconds", "histogram",
               "Duration of each aggregation stage, until all answered or its deadline.");
    for (const auto& [key, histogram] : stage_seconds_) {
      out.Histogram("fedmf_stage_duration_seconds", histogram, StageLabels(key));
    }
    out.Family("fedmf_stage_dropouts_total", "counter",
               "Participants dropped in each stage (silent at its deadline, disconnected, "
               "declined or rejected).");
    for (const auto& [key, count] : dropouts_) {
      out.Sample("fedmf_stage_dropouts_total", static_cast<double>(count), StageLabels(key));
    }
  }
  AddStatus(status, out);
  if (process.ok()) AddProcess(*process, out);
  return out.text();
}

}  // namespace fedmf::server
