// CPU time and peak resident memory of a process from Linux /proc (for fedmf-loadgen's report on
// the coordinator): /proc/<pid>/stat fields 14-15 (utime, stime) and /proc/<pid>/status VmHWM.
#ifndef FEDMF_TOOLS_LOADGEN_PROC_STATS_H_
#define FEDMF_TOOLS_LOADGEN_PROC_STATS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fedmf::loadgen {

struct ProcStats {
  double cpu_seconds = 0;      // user + system
  int64_t peak_rss_bytes = 0;  // VmHWM
};

// utime + stime of a /proc/<pid>/stat line in clock ticks (the command name in parentheses may
// hold spaces and parentheses: fields are counted after the last ')'). InvalidArgument if the
// line is malformed.
absl::StatusOr<int64_t> ParseStatCpuTicks(absl::string_view stat);

// VmHWM of a /proc/<pid>/status text in bytes; NotFound without a VmHWM line, InvalidArgument
// for a malformed one.
absl::StatusOr<int64_t> ParseStatusPeakRss(absl::string_view status);

// Both for a live process; NotFound when it is gone.
absl::StatusOr<ProcStats> ReadProcStats(int64_t pid);

}  // namespace fedmf::loadgen

#endif  // FEDMF_TOOLS_LOADGEN_PROC_STATS_H_
