// fedmf-loadgen: many simulated users, each its own registered client with its own Participate
// stream (client/stream_pool.h, streams multiplexed over a few channels), against a running
// fedmf-coordinator, with seeded per-stage dropouts, extra latency, slow clients and reconnects
// (load_schedule.h). Reports client-side stage and round latency percentiles, throughput, and the
// coordinator's bytes (Admin.Status), CPU time and peak RSS (/proc, --coordinator_pid) and
// dropouts and aborted rounds (its event log, --coordinator_log).
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/participant_host.h"
#include "client/stream_pool.h"
#include "common/data/dataset_source.h"
#include "common/data/split_spec.h"
#include "common/util/cli.h"
#include "common/util/event_log.h"
#include "common/util/fd_limit.h"
#include "common/util/proc_stats.h"
#include "crypto/secagg/stages.h"
#include "fedmf/v1/federation.grpc.pb.h"
#include "tools/loadgen/coordinator_log.h"
#include "tools/loadgen/latency_stats.h"
#include "tools/loadgen/load_observer.h"
#include "tools/loadgen/load_schedule.h"

ABSL_FLAG(std::string, coordinator, "127.0.0.1:50051", "host:port of the fedmf-coordinator");
ABSL_FLAG(std::string, data, "synthetic:users=1000,items=2048,per_user=20,min_per_user=5",
          "dataset of the simulated users (the coordinator's --num_users/--num_items must match)");
ABSL_FLAG(std::string, split, "",
          "train/test split (every binary's --split syntax); the users hold only its train part, "
          "so a coordinator's --eval_data with the same --split scores unseen ratings (empty: "
          "every rating of --data)");
ABSL_FLAG(uint64_t, split_seed, 1, "seed of --split");
ABSL_FLAG(int64_t, users, 0, "simulate this many users (0: every user of --data)");
ABSL_FLAG(int64_t, first_user, 0, "dense index of the first simulated user (several loadgens)");
ABSL_FLAG(int, channels, 16, "TCP connections the streams are spread over");
ABSL_FLAG(int, workers, 2, "threads running the users' work");
ABSL_FLAG(std::string, enrollment_token, "fedmf-demo", "shared enrollment token");
ABSL_FLAG(uint64_t, seed, 1, "seed of the dropout, latency, slow and reconnect decisions");
ABSL_FLAG(double, drop_advertise, 0, "probability a cohort user never answers the RoundTask");
ABSL_FLAG(double, drop_share, 0, "... drops at ShareKeys (of those still in the round)");
ABSL_FLAG(double, drop_masked, 0, "... drops at MaskedInput");
ABSL_FLAG(double, drop_unmask, 0, "... drops at Unmasking");
ABSL_FLAG(int, drop_phase, -1,
          "users drop (--drop_*) only in this phase of a multi-phase round (e.g. 1: lfl-sgdmf's "
          "noise replacement); -1: in every phase, the same users in each");
ABSL_FLAG(std::string, drop_mode, "silent",
          "silent: a dropping user stops answering (the coordinator waits for --stage_timeout_s); "
          "disconnect: it cuts its stream (seen at once) and re-registers for later rounds");
ABSL_FLAG(std::string, extra_latency_ms, "", "MIN:MAX: every message waits uniform in it");
ABSL_FLAG(double, slow_fraction, 0, "fraction of slow users");
ABSL_FLAG(double, slow_latency_ms, 1000, "extra wait of every message of a slow user");
ABSL_FLAG(double, reconnect_fraction, 0,
          "fraction of users that cut their stream once and re-register (backoff 0.2 s)");
ABSL_FLAG(int64_t, reconnect_after, 1, "... at their first message of this round or later");
ABSL_FLAG(int64_t, coordinator_pid, 0, "report this process's CPU time and VmHWM (0: no)");
ABSL_FLAG(std::string, coordinator_log, "",
          "the coordinator's event log (stderr): dropouts and aborted rounds from it");
ABSL_FLAG(double, status_interval_s, 0.5,
          "how often to poll Admin.Status (its latency is the admin_status series) and /proc");
ABSL_FLAG(double, give_up_after_s, 120, "exit after this long without a working stream");
ABSL_FLAG(double, end_grace_s, 10,
          "after the coordinator announced the end of training, stop the users still "
          "reconnecting (they dropped in the last round) after this long");

namespace fedmf::loadgen {
namespace {

using util::ProcStats;
using util::ReadProcStats;

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

struct Sampled {
  bool have_status = false;
  v1::StatusResponse status;
  int32_t max_streams = 0;  // the most live streams any Status answer counted
  bool have_proc = false;
  ProcStats proc;
};

// Polls Admin.Status and /proc/<pid> until Stop(), keeping the last good answers and recording
// each Status call's latency (series admin_status: what an operator's status call waits; and
// admin_status_unmasking, the calls that overlapped an unmasking window).
class Sampler {
 public:
  // `observer` (outlives the sampler) says which calls overlapped an unmasking window.
  Sampler(const std::string& target, int64_t pid, absl::Duration interval,
          LatencyRecorder* latencies, const LoadObserver* observer)
      : stub_(v1::Admin::NewStub(grpc::CreateChannel(target, grpc::InsecureChannelCredentials()))),
        pid_(pid),
        interval_(interval),
        latencies_(latencies),
        observer_(observer),
        thread_([this] { Loop(); }) {}
  ~Sampler() { Stop(); }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  // Samples at once (e.g. before the coordinator exits).
  void Poke() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      poked_ = true;
    }
    cv_.notify_all();
  }
  Sampled Last() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      lock.unlock();
      Sample();
      lock.lock();
      cv_.wait_for(lock, absl::ToChronoNanoseconds(interval_),
                   [this] { return stopping_ || poked_; });
      poked_ = false;
    }
  }
  void Sample() {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    v1::StatusResponse response;
    const absl::Time asked = absl::Now();
    const bool status_ok = stub_->Status(&context, v1::StatusRequest(), &response).ok();
    // The first answer also waited for the channel to connect: not a Status latency.
    if (status_ok && answered_) {
      const absl::Time answered = absl::Now();
      const double seconds = absl::ToDoubleSeconds(answered - asked);
      latencies_->Add("admin_status", seconds);
      if (observer_->OverlapsUnmasking(asked, answered)) {
        latencies_->Add("admin_status_unmasking", seconds);
      }
    }
    answered_ = answered_ || status_ok;
    std::optional<ProcStats> proc;
    if (pid_ > 0) {
      if (absl::StatusOr<ProcStats> p = ReadProcStats(pid_); p.ok()) proc = *p;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (status_ok) {
      last_.have_status = true;
      last_.max_streams = std::max(last_.max_streams, response.connected_clients());
      last_.status = std::move(response);
    }
    if (proc) {
      last_.have_proc = true;
      last_.proc = *proc;
    }
  }

  std::unique_ptr<v1::Admin::Stub> stub_;
  const int64_t pid_;
  const absl::Duration interval_;
  LatencyRecorder* const latencies_;
  const LoadObserver* const observer_;
  bool answered_ = false;  // the loop thread's: a Status call succeeded before
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool poked_ = false;
  Sampled last_;
  std::thread thread_;  // last: starts after the rest is set up
};

absl::StatusOr<ScheduleOptions> ScheduleFromFlags() {
  ScheduleOptions o;
  o.seed = absl::GetFlag(FLAGS_seed);
  o.drop[static_cast<int>(DropStage::kAdvertise)] = absl::GetFlag(FLAGS_drop_advertise);
  o.drop[static_cast<int>(DropStage::kShareKeys)] = absl::GetFlag(FLAGS_drop_share);
  o.drop[static_cast<int>(DropStage::kMaskedInput)] = absl::GetFlag(FLAGS_drop_masked);
  o.drop[static_cast<int>(DropStage::kUnmasking)] = absl::GetFlag(FLAGS_drop_unmask);
  o.drop_phase = absl::GetFlag(FLAGS_drop_phase);
  absl::StatusOr<LatencyRange> latency = ParseLatencyRange(absl::GetFlag(FLAGS_extra_latency_ms));
  if (!latency.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--extra_latency_ms: ", latency.status().message()));
  }
  o.extra_latency = *latency;
  o.slow_fraction = absl::GetFlag(FLAGS_slow_fraction);
  o.slow_latency = absl::Milliseconds(absl::GetFlag(FLAGS_slow_latency_ms));
  o.reconnect_fraction = absl::GetFlag(FLAGS_reconnect_fraction);
  o.reconnect_after = absl::GetFlag(FLAGS_reconnect_after);
  const std::string mode = absl::GetFlag(FLAGS_drop_mode);
  if (mode != "silent" && mode != "disconnect") {
    return absl::InvalidArgumentError(
        absl::StrCat("--drop_mode must be silent or disconnect, got '", mode, "'"));
  }
  o.disconnect_on_drop = mode == "disconnect";
  if (absl::Status s = ValidateScheduleOptions(o); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--", s.message()));
  }
  return o;
}

absl::StatusOr<RoundLogSummary> ReadLog(const std::string& path, int64_t applied_at_least) {
  absl::StatusOr<RoundLogSummary> summary;
  // The coordinator logs a round after sending its result: give the last line a moment.
  for (int attempt = 0; attempt < 50; ++attempt) {
    std::ifstream in(path);
    if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
    std::stringstream text;
    text << in.rdbuf();
    summary = SummarizeRoundLines(text.str());
    if (!summary.ok() || summary->applied >= applied_at_least) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return summary;
}

std::string Mib(int64_t bytes) { return absl::StrFormat("%.1f", bytes / 1048576.0); }

absl::Status Run() {
  absl::StatusOr<ScheduleOptions> schedule_options = ScheduleFromFlags();
  if (!schedule_options.ok()) return schedule_options.status();
  absl::StatusOr<data::RatingsDataset> loaded = data::LoadDataset(absl::GetFlag(FLAGS_data));
  if (!loaded.ok()) return loaded.status();
  if (const std::string split = absl::GetFlag(FLAGS_split); !split.empty()) {
    absl::StatusOr<std::vector<data::TrainTest>> splits =
        data::MakeSplits(*loaded, split, absl::GetFlag(FLAGS_split_seed));
    if (!splits.ok()) return splits.status();
    *loaded = std::move((*splits)[0].train);
  }
  auto data = std::make_shared<const data::RatingsDataset>(std::move(*loaded));
  const int64_t first = absl::GetFlag(FLAGS_first_user);
  int64_t count = absl::GetFlag(FLAGS_users);
  if (count == 0) count = data->num_users() - first;
  if (first < 0 || count < 1 || first + count > data->num_users()) {
    return absl::InvalidArgumentError(absl::StrCat("--first_user=", first, " --users=", count,
                                                   " do not fit the ", data->num_users(),
                                                   " users of --data"));
  }
  std::vector<std::unique_ptr<client::ParticipantHost>> hosts;
  std::vector<uint32_t> participants;
  for (int64_t u = first; u < first + count; ++u) {
    absl::StatusOr<std::unique_ptr<client::ParticipantHost>> host =
        client::ParticipantHost::Create(data, {static_cast<int32_t>(u)});
    if (!host.ok()) return host.status();
    hosts.push_back(std::move(*host));
    participants.push_back(static_cast<uint32_t>(u + 1));
  }
  client::StreamPoolOptions pool;
  pool.client.target = absl::GetFlag(FLAGS_coordinator);
  pool.client.name = "loadgen";
  pool.client.enrollment_token = absl::GetFlag(FLAGS_enrollment_token);
  pool.client.backoff.give_up_after = absl::Seconds(absl::GetFlag(FLAGS_give_up_after_s));
  pool.channels = absl::GetFlag(FLAGS_channels);
  pool.workers = absl::GetFlag(FLAGS_workers);
  const uint64_t needed =
      static_cast<uint64_t>(std::min<int64_t>(std::max(pool.channels, 1), count)) + 64;
  if (absl::Status s = RequireOpenFiles(needed, absl::StrCat(pool.channels, " channels"));
      !s.ok()) {
    return s;
  }
  const LoadSchedule schedule(*schedule_options);
  LatencyRecorder latencies;
  LoadObserver observer(&schedule, participants, &latencies);
  pool.observer = &observer;

  EventLine("loadgen_start")
      .Add("coordinator", pool.client.target)
      .Add("users", count)
      .Add("channels", pool.channels)
      .Add("workers", pool.workers)
      .Add("dataset", data::DescribeDataset(*data));
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);
  Sampler sampler(pool.client.target, absl::GetFlag(FLAGS_coordinator_pid),
                  absl::Seconds(absl::GetFlag(FLAGS_status_interval_s)), &latencies, &observer);
  // Users that cut their stream in the last round may find the coordinator gone: once the end
  // was announced, they are stopped after --end_grace_s.
  std::atomic<bool> stop{false};
  std::atomic<bool> ended{false};
  std::atomic<bool> pool_done{false};
  const absl::Duration grace = absl::Seconds(absl::GetFlag(FLAGS_end_grace_s));
  observer.set_on_training_done([&sampler, &ended] {
    ended.store(true);
    sampler.Poke();
  });
  std::thread watcher([&] {
    absl::Time ended_at = absl::InfiniteFuture();
    while (!pool_done.load()) {
      if (g_stop.load()) stop.store(true);
      if (ended.load() && ended_at == absl::InfiniteFuture()) ended_at = absl::Now();
      if (absl::Now() - ended_at > grace) stop.store(true);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  const absl::Time start = absl::Now();
  absl::Status run = client::RunStreamPool(hosts, pool, stop);
  pool_done.store(true);
  watcher.join();
  int64_t unfinished = 0;
  for (const auto& host : hosts) unfinished += host->training_done() ? 0 : 1;
  if (absl::IsCancelled(run) && ended.load() && !g_stop.load()) run = absl::OkStatus();
  const absl::Time end = absl::Now();
  sampler.Stop();
  const Sampled sampled = sampler.Last();
  const LoadCounters c = observer.Counters();

  std::optional<RoundLogSummary> log;
  if (const std::string path = absl::GetFlag(FLAGS_coordinator_log); !path.empty()) {
    absl::StatusOr<RoundLogSummary> s = ReadLog(path, c.rounds_applied);
    if (!s.ok()) return s.status();
    log = *s;
  }

  // Machine-readable line: key=value, seconds and bytes.
  std::string line = absl::StrCat("loadgen_result users=", count, " unfinished=", unfinished,
                                  " channels=", pool.channels, " workers=", pool.workers,
                                  " status=", absl::StatusCodeToString(run.code()));
  const double active_s =
      c.last_result > c.first_task ? absl::ToDoubleSeconds(c.last_result - c.first_task) : 0;
  const int64_t contributions = log ? log->contributors : c.tasks - c.DropsTotal();
  absl::StrAppend(&line, " rounds_applied=", c.rounds_applied,
                  " failed_attempts=", c.failed_attempts, " tasks=", c.tasks);
  for (int s = 0; s < kNumDropStages; ++s) {
    absl::StrAppend(&line, " drops_", DropStageName(static_cast<DropStage>(s)), "=", c.drops[s]);
  }
  absl::StrAppend(
      &line, " drops_total=", c.DropsTotal(),
      // Users that drop at Unmasking already sent their masked input: the sum holds them, so
      // the coordinator does not count them as dropouts.
      " drops_before_unmask=", c.DropsTotal() - c.drops[3], " reconnects=", c.reconnects,
      " reconnects_in_round=", c.reconnects_in_round, " check_ins=", c.check_ins,
      absl::StrFormat(" wall_s=%.2f rounds_s=%.2f", absl::ToDoubleSeconds(end - start), active_s));
  if (active_s > 0) {
    absl::StrAppend(&line, absl::StrFormat(" rounds_per_s=%.4f users_per_s=%.2f",
                                           c.rounds_applied / active_s, contributions / active_s));
  }
  const std::map<std::string, Percentiles> summaries = latencies.Summaries();
  // The SecAgg stages' (StageSeries), the round's, Status's and registrations' (all, and those
  // overlapping an unmasking window).
  std::vector<const char*> series_names;
  for (const secagg::StageNames& stage : secagg::kStages) series_names.push_back(stage.key);
  series_names.push_back("round");
  for (const char* series :
       {"admin_status", "admin_status_unmasking", "register", "register_unmasking"}) {
    series_names.push_back(series);
  }
  for (const char* series : series_names) {
    const auto it = summaries.find(series);
    if (it == summaries.end()) continue;
    const Percentiles& p = it->second;
    absl::StrAppend(&line,
                    absl::StrFormat(" %s_n=%d %s_p50_s=%.3f %s_p95_s=%.3f %s_p99_s=%.3f", series,
                                    p.count, series, p.p50, series, p.p95, series, p.p99));
  }
  if (sampled.have_status) {
    absl::StrAppend(&line, " coord_rounds=", sampled.status.round(),
                    " coord_max_streams=", sampled.max_streams,
                    " coord_checked_in_streams=", sampled.status.checked_in_streams(),
                    " coord_bytes_in=", sampled.status.bytes_in(),
                    " coord_bytes_out=", sampled.status.bytes_out());
  }
  if (sampled.have_proc) {
    absl::StrAppend(&line, absl::StrFormat(" coord_cpu_s=%.2f", sampled.proc.cpu_seconds),
                    " coord_peak_rss_mib=", Mib(sampled.proc.peak_rss_bytes),
                    " coord_rss_mib=", Mib(sampled.proc.resident_bytes));
  }
  if (absl::StatusOr<ProcStats> self = ReadProcStats(getpid()); self.ok()) {
    absl::StrAppend(&line, absl::StrFormat(" loadgen_cpu_s=%.2f", self->cpu_seconds),
                    " loadgen_peak_rss_mib=", Mib(self->peak_rss_bytes));
  }
  if (log) {
    absl::StrAppend(&line, " log_attempts=", log->attempts, " log_applied=", log->applied,
                    " log_aborted=", log->aborted, " log_participants=", log->participants,
                    " log_contributors=", log->contributors, " log_dropouts=", log->dropouts,
                    " log_bytes_in=", log->bytes_in, " log_bytes_out=", log->bytes_out);
  }

  // Human-readable summary.
  std::printf("fedmf-loadgen: %lld users over %d channels, %d workers: %s\n",
              static_cast<long long>(count), pool.channels, pool.workers, run.ToString().c_str());
  std::printf("rounds applied %lld, failed attempts %lld, in %.1f s (first task to last result)\n",
              static_cast<long long>(c.rounds_applied), static_cast<long long>(c.failed_attempts),
              active_s);
  std::printf(
      "cohort tasks %lld; dropouts injected: advertise %lld, share %lld, masked %lld, "
      "unmask %lld; reconnects %lld (%lld mid-round); check-ins %lld\n",
      static_cast<long long>(c.tasks), static_cast<long long>(c.drops[0]),
      static_cast<long long>(c.drops[1]), static_cast<long long>(c.drops[2]),
      static_cast<long long>(c.drops[3]), static_cast<long long>(c.reconnects),
      static_cast<long long>(c.reconnects_in_round), static_cast<long long>(c.check_ins));
  std::printf("%-13s %7s %9s %9s %9s %9s (seconds, client view)\n", "stage", "n", "p50", "p95",
              "p99", "max");
  for (const auto& [series, p] : summaries) {
    std::printf("%-13s %7zu %9.3f %9.3f %9.3f %9.3f\n", series.c_str(), p.count, p.p50, p.p95,
                p.p99, p.max);
  }
  if (sampled.have_status) {
    std::printf(
        "coordinator status: %lld rounds, bytes in %s MiB, out %s MiB, at most %d live streams, "
        "%lld ended by check-in\n",
        static_cast<long long>(sampled.status.round()), Mib(sampled.status.bytes_in()).c_str(),
        Mib(sampled.status.bytes_out()).c_str(), sampled.max_streams,
        static_cast<long long>(sampled.status.checked_in_streams()));
  }
  if (sampled.have_proc) {
    std::printf("coordinator process: CPU %.1f s, peak RSS %s MiB, RSS at the end %s MiB\n",
                sampled.proc.cpu_seconds, Mib(sampled.proc.peak_rss_bytes).c_str(),
                Mib(sampled.proc.resident_bytes).c_str());
  }
  if (log) {
    std::printf(
        "coordinator log: %lld round attempts, %lld applied, %lld aborted, %lld dropouts "
        "of %lld cohort places\n",
        static_cast<long long>(log->attempts), static_cast<long long>(log->applied),
        static_cast<long long>(log->aborted), static_cast<long long>(log->dropouts),
        static_cast<long long>(log->participants));
  }
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  if (absl::IsCancelled(run)) return absl::OkStatus();
  return run;
}

}  // namespace
}  // namespace fedmf::loadgen

int main(int argc, char** argv) {
  fedmf::InitFlagsOnlyCommandLine(
      argc, argv,
      "fedmf-loadgen --coordinator=HOST:PORT --data=SPEC [--users=N] "
      "[--drop_*=P ...]: simulated users against a running coordinator");
  return fedmf::ExitCode(fedmf::loadgen::Run());
}
