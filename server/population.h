// The population of a fixed-population run (Updater::fixed_population(), e.g. PriviRec, whose
// secure sums are private only over one set of users that never changes): frozen from the users
// live when the run's first phase starts, or restored from the checkpoint, it is the cohort of
// every phase; a member missing from a phase is lost, and the run cannot go on without it.
// Membership decisions only: the coordinator owns the waiting, the transport and the lock.
#ifndef FEDMF_SERVER_POPULATION_H_
#define FEDMF_SERVER_POPULATION_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace fedmf::server {

class FixedPopulation {
 public:
  // Not frozen yet.
  FixedPopulation() = default;
  // A population frozen earlier (the checkpoint's). InvalidArgument unless `members` is ascending,
  // distinct and non-empty.
  static absl::StatusOr<FixedPopulation> Restore(std::vector<uint32_t> members);

  bool frozen() const { return !members_.empty(); }
  // Ascending; empty until frozen.
  const std::vector<uint32_t>& members() const { return members_; }
  int64_t size() const { return static_cast<int64_t>(members_.size()); }

  // Makes `live` (ascending, distinct) the population. FailedPrecondition if already frozen,
  // InvalidArgument for an empty or unordered `live`.
  absl::Status Freeze(std::vector<uint32_t> live);

  // Members not in `present` (ascending), ascending: the lost ones when `present` is who is live
  // as a phase starts.
  std::vector<uint32_t> Missing(absl::Span<const uint32_t> present) const;
  // How many members are in `present` (ascending).
  int64_t CountPresent(absl::Span<const uint32_t> present) const;
  // The ids of `ids` (any order) that are not members: late registrants, never invited.
  std::vector<uint32_t> Outsiders(absl::Span<const uint32_t> ids) const;

 private:
  explicit FixedPopulation(std::vector<uint32_t> members) : members_(std::move(members)) {}

  std::vector<uint32_t> members_;
};

// Why a fixed-population run ends: "fixed population of 40 lost participants 3, 7 (phase 1 of
// round 2: ...)", naming at most the first 20 of `lost`; `what` says when and how.
std::string PopulationLostReason(int64_t population, absl::Span<const uint32_t> lost,
                                 absl::string_view what);

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_POPULATION_H_
