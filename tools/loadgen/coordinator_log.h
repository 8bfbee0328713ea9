// What fedmf-loadgen reads from the coordinator's event log (its stderr, one key=value line per
// event): per training round (event=round) whether it was applied, its cohort, contributors,
// dropouts and bytes.
#ifndef FEDMF_TOOLS_LOADGEN_COORDINATOR_LOG_H_
#define FEDMF_TOOLS_LOADGEN_COORDINATOR_LOG_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fedmf::loadgen {

struct RoundLogSummary {
  int64_t attempts = 0;  // event=round lines
  int64_t applied = 0;   // ... with applied=yes
  int64_t aborted = 0;   // ... with applied=no
  int64_t participants = 0;
  int64_t contributors = 0;
  int64_t dropouts = 0;
  int64_t bytes_in = 0;
  int64_t bytes_out = 0;
};

// Sums the event=round lines of `log` (other lines are skipped). InvalidArgument naming the line
// when a round line lacks one of the keys or has a non-integer value.
absl::StatusOr<RoundLogSummary> SummarizeRoundLines(absl::string_view log);

}  // namespace fedmf::loadgen

#endif  // FEDMF_TOOLS_LOADGEN_COORDINATOR_LOG_H_
