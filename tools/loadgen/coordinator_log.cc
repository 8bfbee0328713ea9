#include "tools/loadgen/coordinator_log.h"

#include <map>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace fedmf::loadgen {

absl::StatusOr<RoundLogSummary> SummarizeRoundLines(absl::string_view log) {
  RoundLogSummary s;
  int64_t line_number = 0;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    ++line_number;
    std::map<std::string, std::string> fields;
    for (absl::string_view token : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
      const size_t eq = token.find('=');
      if (eq == absl::string_view::npos) continue;
      fields[std::string(token.substr(0, eq))] = std::string(token.substr(eq + 1));
    }
    const auto event = fields.find("event");
    if (event == fields.end() || event->second != "round") continue;
    const auto applied = fields.find("applied");
    if (applied == fields.end() || (applied->second != "yes" && applied->second != "no")) {
      return absl::InvalidArgumentError(
          absl::StrCat("log line ", line_number, ": event=round without applied=yes|no"));
    }
    int64_t values[5] = {};
    const char* keys[5] = {"participants", "contributors", "dropouts", "bytes_in", "bytes_out"};
    for (int k = 0; k < 5; ++k) {
      const auto it = fields.find(keys[k]);
      if (it == fields.end() || !absl::SimpleAtoi(it->second, &values[k])) {
        return absl::InvalidArgumentError(
            absl::StrCat("log line ", line_number, ": event=round without an integer ", keys[k]));
      }
    }
    ++s.attempts;
    (applied->second == "yes" ? s.applied : s.aborted) += 1;
    s.participants += values[0];
    s.contributors += values[1];
    s.dropouts += values[2];
    s.bytes_in += values[3];
    s.bytes_out += values[4];
  }
  return s;
}

}  // namespace fedmf::loadgen
