#include "common/util/proc_stats.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace fedmf::util {

absl::StatusOr<StatFields> ParseStat(absl::string_view stat) {
  const size_t close = stat.rfind(')');
  if (close == absl::string_view::npos) {
    return absl::InvalidArgumentError("stat line has no ')' after the command name");
  }
  const std::vector<absl::string_view> fields =
      absl::StrSplit(stat.substr(close + 1), ' ', absl::SkipWhitespace());
  // fields[0] is field 3 (state): field k is fields[k - 3].
  constexpr size_t kUtime = 14 - 3, kStime = 15 - 3, kStartTime = 22 - 3, kVsize = 23 - 3,
                   kRss = 24 - 3;
  if (fields.size() <= kRss) {
    return absl::InvalidArgumentError(
        absl::StrCat("stat line has ", fields.size() + 2, " fields, need 24"));
  }
  StatFields out;
  int64_t utime = 0, stime = 0;
  for (const auto& [index, value] :
       {std::pair{kUtime, &utime}, std::pair{kStime, &stime},
        std::pair{kStartTime, &out.start_ticks}, std::pair{kVsize, &out.virtual_bytes},
        std::pair{kRss, &out.rss_pages}}) {
    if (!absl::SimpleAtoi(fields[index], value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("stat field ", index + 3, " is not an integer: '", fields[index], "'"));
    }
  }
  out.cpu_ticks = utime + stime;
  return out;
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

// The system's boot time (/proc/stat "btime"), in seconds since the epoch.
absl::StatusOr<int64_t> BootTime() {
  absl::StatusOr<std::string> stat = ReadText("/proc/stat");
  if (!stat.ok()) return stat.status();
  for (absl::string_view line : absl::StrSplit(*stat, '\n')) {
    int64_t btime = 0;
    if (absl::ConsumePrefix(&line, "btime ") && absl::SimpleAtoi(line, &btime)) return btime;
  }
  return absl::NotFoundError("/proc/stat has no btime line");
}

}  // namespace

absl::StatusOr<ProcStats> ReadProcStats(int64_t pid) {
  const std::string dir = absl::StrCat("/proc/", pid);
  absl::StatusOr<std::string> stat = ReadText(dir + "/stat");
  if (!stat.ok()) return stat.status();
  absl::StatusOr<std::string> status = ReadText(dir + "/status");
  if (!status.ok()) return status.status();
  absl::StatusOr<StatFields> fields = ParseStat(*stat);
  if (!fields.ok()) return fields.status();
  absl::StatusOr<int64_t> peak = ParseStatusPeakRss(*status);
  if (!peak.ok()) return peak.status();
  absl::StatusOr<int64_t> boot = BootTime();
  if (!boot.ok()) return boot.status();
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  ProcStats out;
  out.cpu_seconds = static_cast<double>(fields->cpu_ticks) / ticks;
  out.peak_rss_bytes = *peak;
  out.resident_bytes = fields->rss_pages * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
  out.virtual_bytes = fields->virtual_bytes;
  out.start_time_seconds =
      static_cast<double>(*boot) + static_cast<double>(fields->start_ticks) / ticks;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(dir + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++out.open_fds;
  }
  return out;
}

}  // namespace fedmf::util
