// Round membership decisions that need no network: which users a round samples (seeded, so the
// cohort of round r's first attempt is a function of the run's seed and r alone and survives
// restarts) and the
// SecAgg threshold for a cohort.
#ifndef FEDMF_SERVER_COHORT_H_
#define FEDMF_SERVER_COHORT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

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

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_COHORT_H_
