// Round membership decisions that need no network: which users a round samples (seeded, so the
// cohort of round r's first attempt is a function of the run's seed and r alone and survives
// restarts), the SecAgg threshold for a cohort and its neighbor graph (complete, or SecAgg+'s
// Harary graph with k and t from crypto/secagg/parameter_finder.h).
#ifndef FEDMF_SERVER_COHORT_H_
#define FEDMF_SERVER_COHORT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "crypto/secagg/config.h"

namespace fedmf::server {

// `size` distinct ids drawn uniformly from `available` (ascending, distinct) with a generator
// seeded by (seed, round, attempt): a retried round draws a fresh cohort. Returned ascending.
// InvalidArgument if size > available.size() or < 1.
absl::StatusOr<std::vector<uint32_t>> SampleCohort(const std::vector<uint32_t>& available,
                                                   int64_t size, uint64_t seed, int64_t round,
                                                   int attempt = 0);

// t = max(2, min_contributors, cohort - floor(dropout_fraction * cohort)): the session survives
// up to cohort - t dropouts and every decoded sum holds >= min_contributors inputs (the n_min the
// privacy calibration assumed). InvalidArgument if t > cohort or dropout_fraction not in [0, 1).
absl::StatusOr<int> Threshold(int64_t cohort, int64_t min_contributors, double dropout_fraction);

// --secagg_graph. kAuto: Harary when the parameter finder's neighborhood (k + 1) is at most half
// the cohort (docs/runtime.md explains the cut-over), else complete.
enum class GraphMode { kAuto, kComplete, kHarary };
// "auto", "complete" or "harary"; InvalidArgument otherwise.
absl::StatusOr<GraphMode> ParseGraphMode(absl::string_view name);

struct GraphChoice {
  secagg::GraphKind graph = secagg::GraphKind::kComplete;
  int degree = 0;     // k (Harary), 0 for the complete graph
  int threshold = 0;  // t
};

struct GraphRequest {
  GraphMode mode = GraphMode::kAuto;
  int64_t cohort = 0;
  int64_t min_contributors = 0;
  double dropout_fraction = 0;
  double corrupt_fraction = 0;  // gamma of the finder
  // The finder's threat model: a server that may lie about dropouts (what the consistency check
  // defends against on the complete graph) or a semi-honest one.
  bool lying_server = true;
  // kHarary only: use this even k >= 2 (t = max(2, (k+1) - floor(dropout_fraction (k+1)))) instead
  // of the finder's; for tests and experiments, no statistical guarantee is computed. 0: finder.
  int degree = 0;
};

// Complete graph: t = Threshold(...). Harary: (k, t) from FindGraphParameters (40 bits of privacy
// and correctness, request.lying_server's threat model), t at least 2; the per-neighborhood t does
// not bound the size of the sum, so the caller must itself refuse to unmask fewer than
// min_contributors inputs. InvalidArgument for bad parameters and for kHarary when the finder needs
// the complete graph, the finder's NotFound for kHarary when nothing meets the targets (kAuto then
// falls back to the complete graph).
absl::StatusOr<GraphChoice> ChooseGraph(const GraphRequest& request);

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_COHORT_H_
