#include "server/population.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace fedmf::server {
namespace {

constexpr size_t kNamedInReason = 20;

bool AscendingDistinct(const std::vector<uint32_t>& ids) {
  return std::adjacent_find(ids.begin(), ids.end(), std::greater_equal<uint32_t>()) == ids.end();
}

}  // namespace

absl::StatusOr<FixedPopulation> FixedPopulation::Restore(std::vector<uint32_t> members) {
  if (members.empty() || !AscendingDistinct(members)) {
    return absl::InvalidArgumentError(
        "a fixed population must be a non-empty ascending list of distinct participant ids");
  }
  return FixedPopulation(std::move(members));
}

absl::Status FixedPopulation::Freeze(std::vector<uint32_t> live) {
  if (frozen()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the population is already frozen at ", members_.size(), " participants"));
  }
  absl::StatusOr<FixedPopulation> population = Restore(std::move(live));
  if (!population.ok()) return population.status();
  *this = *std::move(population);
  return absl::OkStatus();
}

std::vector<uint32_t> FixedPopulation::Missing(absl::Span<const uint32_t> present) const {
  std::vector<uint32_t> missing;
  std::set_difference(members_.begin(), members_.end(), present.begin(), present.end(),
                      std::back_inserter(missing));
  return missing;
}

int64_t FixedPopulation::CountPresent(absl::Span<const uint32_t> present) const {
  return size() - static_cast<int64_t>(Missing(present).size());
}

std::vector<uint32_t> FixedPopulation::Outsiders(absl::Span<const uint32_t> ids) const {
  std::vector<uint32_t> outsiders;
  for (uint32_t id : ids) {
    if (!std::binary_search(members_.begin(), members_.end(), id)) outsiders.push_back(id);
  }
  return outsiders;
}

std::string PopulationLostReason(int64_t population, absl::Span<const uint32_t> lost,
                                 absl::string_view what) {
  const absl::Span<const uint32_t> named = lost.first(std::min(lost.size(), kNamedInReason));
  std::string reason = absl::StrCat(
      "fixed population of ", population, " lost ", lost.size(),
      lost.size() == 1 ? " participant: " : " participants: ", absl::StrJoin(named, ", "));
  if (named.size() < lost.size()) absl::StrAppend(&reason, ", ...");
  absl::StrAppend(&reason, " (", what, "); the run cannot go on with another population");
  return reason;
}

}  // namespace fedmf::server
