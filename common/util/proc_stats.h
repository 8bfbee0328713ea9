// A process's CPU time and memory from Linux /proc: fedmf-loadgen's report on the coordinator it
// loads, and the coordinator's own process_* metrics (--metrics_listen). Fields from
// /proc/<pid>/stat (proc(5): utime, stime, starttime, vsize, rss), /proc/<pid>/status (VmHWM),
// /proc/<pid>/fd and /proc/stat (btime).
#ifndef FEDMF_COMMON_UTIL_PROC_STATS_H_
#define FEDMF_COMMON_UTIL_PROC_STATS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fedmf::util {

// The fields of a /proc/<pid>/stat line this file reads, in the kernel's units.
struct StatFields {
  int64_t cpu_ticks = 0;      // utime + stime (fields 14, 15), clock ticks
  int64_t start_ticks = 0;    // starttime (22), clock ticks after boot
  int64_t virtual_bytes = 0;  // vsize (23)
  int64_t rss_pages = 0;      // rss (24)
};

// The command name in parentheses may hold spaces and parentheses: fields are counted after the
// last ')'. InvalidArgument if the line is malformed.
absl::StatusOr<StatFields> ParseStat(absl::string_view stat);

// VmHWM of a /proc/<pid>/status text in bytes; NotFound without a VmHWM line, InvalidArgument
// for a malformed one.
absl::StatusOr<int64_t> ParseStatusPeakRss(absl::string_view status);

struct ProcStats {
  double cpu_seconds = 0;      // user + system
  int64_t peak_rss_bytes = 0;  // VmHWM
  int64_t resident_bytes = 0;  // RSS now
  int64_t virtual_bytes = 0;
  double start_time_seconds = 0;  // since the Unix epoch
  int64_t open_fds = 0;
};

// All of them for a live process; NotFound when it is gone (or /proc is not mounted).
absl::StatusOr<ProcStats> ReadProcStats(int64_t pid);

}  // namespace fedmf::util

#endif  // FEDMF_COMMON_UTIL_PROC_STATS_H_
