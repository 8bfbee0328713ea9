#include "server/cohort.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "crypto/secagg/parameter_finder.h"

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

absl::StatusOr<GraphMode> ParseGraphMode(absl::string_view name) {
  if (name == "auto") return GraphMode::kAuto;
  if (name == "complete") return GraphMode::kComplete;
  if (name == "harary") return GraphMode::kHarary;
  return absl::InvalidArgumentError(
      absl::StrCat("secagg graph '", name, "' is not one of auto, complete, harary"));
}

absl::StatusOr<GraphChoice> ChooseGraph(const GraphRequest& r) {
  absl::StatusOr<int> complete_t = Threshold(r.cohort, r.min_contributors, r.dropout_fraction);
  if (!complete_t.ok()) return complete_t.status();
  const GraphChoice complete{secagg::GraphKind::kComplete, 0, *complete_t};
  if (r.mode == GraphMode::kComplete) return complete;
  if (r.mode == GraphMode::kHarary && r.degree != 0) {
    if (r.degree < 2 || r.degree % 2 != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Harary degree must be even and >= 2, got ", r.degree));
    }
    const int holders = r.degree + 1;
    const int t = std::max(2, holders - static_cast<int>(std::floor(r.dropout_fraction * holders)));
    return GraphChoice{secagg::GraphKind::kHarary, r.degree, t};
  }
  secagg::ParameterRequirements req;
  req.num_clients = static_cast<int>(r.cohort);
  req.corrupt_fraction = r.corrupt_fraction;
  req.dropout_fraction = r.dropout_fraction;
  req.threat =
      r.lying_server ? secagg::ThreatModel::kMaliciousServer : secagg::ThreatModel::kSemiHonest;
  absl::StatusOr<secagg::GraphParameters> found = secagg::FindGraphParameters(req);
  if (!found.ok()) {
    if (r.mode == GraphMode::kAuto) return complete;  // the complete graph's own t still applies
    return found.status();
  }
  const bool sparse = found->graph == secagg::GraphKind::kHarary;
  if (r.mode == GraphMode::kHarary && !sparse) {
    return absl::InvalidArgumentError(
        absl::StrCat("no Harary graph meets the 2^-40 targets for a cohort of ", r.cohort,
                     " (corrupt ", r.corrupt_fraction, ", dropout ", r.dropout_fraction,
                     "): use the complete graph or set "
                     "a degree"));
  }
  // Auto: a sparse graph pays once a client's neighborhood is at most half the cohort.
  if (r.mode == GraphMode::kAuto && (!sparse || 2 * (found->degree + 1) > r.cohort)) {
    return complete;
  }
  return GraphChoice{secagg::GraphKind::kHarary, found->degree, std::max(2, found->threshold)};
}

}  // namespace fedmf::server
