#include "common/util/event_log.h"

#include <cstdio>

#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace fedmf {

std::string EventValue(double value) { return absl::StrFormat("%.6g", value); }

EventLine::EventLine(absl::string_view event) {
  line_ = absl::StrCat(
      "ts=", absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone()),
      " event=", event);
}

EventLine::~EventLine() {
  line_.push_back('\n');
  std::fputs(line_.c_str(), stderr);
}

EventLine& EventLine::Add(absl::string_view key, absl::string_view value) {
  const bool needs_quotes = value.empty() || value.find_first_of(" \"=\t\n") != value.npos;
  if (needs_quotes) {
    absl::StrAppend(&line_, " ", key, "=\"", absl::StrReplaceAll(value, {{"\"", "\\\""}}), "\"");
  } else {
    absl::StrAppend(&line_, " ", key, "=", value);
  }
  return *this;
}

EventLine& EventLine::Add(absl::string_view key, double value) {
  absl::StrAppend(&line_, " ", key, "=", EventValue(value));
  return *this;
}

}  // namespace fedmf
