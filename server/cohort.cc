#include "server/cohort.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace fedmf::server {

absl::StatusOr<std::vector<uint32_t>> SampleCohort(const std::vector<uint32_t>& available,
                                                   int64_t size, uint64_t seed, int64_t round,
                                                   int attempt) {
  if (size < 1 || static_cast<size_t>(size) > available.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot sample ", size, " of ", available.size(), " available users"));
  }
  // seed_seq mixes both words, so nearby (seed, round) pairs give unrelated streams.
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                    static_cast<uint32_t>(round), static_cast<uint32_t>(round >> 32),
                    static_cast<uint32_t>(attempt)};
  std::mt19937_64 rng(seq);
  std::vector<uint32_t> pool = available;
  // Partial Fisher-Yates: the first `size` positions are a uniform sample.
  for (int64_t i = 0; i < size; ++i) {
    std::uniform_int_distribution<size_t> pick(static_cast<size_t>(i), pool.size() - 1);
    std::swap(pool[static_cast<size_t>(i)], pool[pick(rng)]);
  }
  pool.resize(static_cast<size_t>(size));
  std::sort(pool.begin(), pool.end());
  return pool;
}

absl::StatusOr<int> Threshold(int64_t cohort, int64_t min_contributors, double dropout_fraction) {
  if (!(dropout_fraction >= 0 && dropout_fraction < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("dropout fraction must be in [0, 1), got ", dropout_fraction));
  }
  const int64_t tolerated = static_cast<int64_t>(std::floor(dropout_fraction * cohort));
  const int64_t t = std::max<int64_t>({2, min_contributors, cohort - tolerated});
  if (t > cohort) {
    return absl::InvalidArgumentError(absl::StrCat("threshold ", t, " exceeds the cohort of ",
                                                   cohort, " (min_contributors ", min_contributors,
                                                   ")"));
  }
  return static_cast<int>(t);
}

}  // namespace fedmf::server
