#include "tools/loadgen/proc_stats.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace fedmf::loadgen {

absl::StatusOr<int64_t> ParseStatCpuTicks(absl::string_view stat) {
  const size_t close = stat.rfind(')');
  if (close == absl::string_view::npos) {
    return absl::InvalidArgumentError("stat line has no ')' after the command name");
  }
  const std::vector<absl::string_view> fields =
      absl::StrSplit(stat.substr(close + 1), ' ', absl::SkipWhitespace());
  // fields[0] is field 3 (state): utime is field 14, stime field 15.
  if (fields.size() < 13) {
    return absl::InvalidArgumentError(
        absl::StrCat("stat line has ", fields.size() + 2, " fields, need 15"));
  }
  int64_t utime = 0, stime = 0;
  if (!absl::SimpleAtoi(fields[11], &utime) || !absl::SimpleAtoi(fields[12], &stime)) {
    return absl::InvalidArgumentError(
        absl::StrCat("stat fields 14-15 are not integers: '", fields[11], "' '", fields[12], "'"));
  }
  return utime + stime;
}

absl::StatusOr<int64_t> ParseStatusPeakRss(absl::string_view status) {
  for (absl::string_view line : absl::StrSplit(status, '\n')) {
    if (!absl::ConsumePrefix(&line, "VmHWM:")) continue;
    const std::vector<absl::string_view> parts = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    int64_t kib = 0;
    if (parts.size() != 2 || parts[1] != "kB" || !absl::SimpleAtoi(parts[0], &kib)) {
      return absl::InvalidArgumentError(absl::StrCat("malformed VmHWM line: '", line, "'"));
    }
    return kib * 1024;
  }
  return absl::NotFoundError("no VmHWM line");
}

namespace {

absl::StatusOr<std::string> ReadText(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

absl::StatusOr<ProcStats> ReadProcStats(int64_t pid) {
  absl::StatusOr<std::string> stat = ReadText(absl::StrCat("/proc/", pid, "/stat"));
  if (!stat.ok()) return stat.status();
  absl::StatusOr<std::string> status = ReadText(absl::StrCat("/proc/", pid, "/status"));
  if (!status.ok()) return status.status();
  absl::StatusOr<int64_t> ticks = ParseStatCpuTicks(*stat);
  if (!ticks.ok()) return ticks.status();
  absl::StatusOr<int64_t> rss = ParseStatusPeakRss(*status);
  if (!rss.ok()) return rss.status();
  ProcStats out;
  out.cpu_seconds = static_cast<double>(*ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
  out.peak_rss_bytes = *rss;
  return out;
}

}  // namespace fedmf::loadgen
