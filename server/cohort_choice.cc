#include "server/cohort_choice.h"

#include <algorithm>
#include <iterator>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/util/event_log.h"
#include "server/cohort.h"

namespace fedmf::server {
namespace {

// Sorted intersection of two ascending id lists.
std::vector<uint32_t> Intersect(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  std::vector<uint32_t> both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  return both;
}

}  // namespace

int64_t CohortChoice::Eligible() const {
  return state_.population.frozen() ? state_.population.CountPresent(roster_.EligibleUsers())
                                    : roster_.EligibleCount();
}

bool CohortChoice::WaitForUsers(int64_t needed, int64_t round) {
  board_.SetStage("waiting");
  absl::Time last_log = clock_.Now() - absl::Seconds(10);
  while (!roster_.stopped()) {
    const uint64_t seen = roster_.Generation();
    const int64_t eligible = Eligible();
    if (eligible >= needed) break;
    if (clock_.Now() - last_log >= absl::Seconds(5)) {
      EventLine line("waiting_for_users");
      line.Add("round", round).Add("live", eligible).Add("need", needed);
      if (state_.population.frozen()) line.Add("of", "population");
      last_log = clock_.Now();
    }
    roster_.AwaitChange(seen, clock_.Now() + absl::Seconds(1));
  }
  return !roster_.stopped();
}

int64_t CohortChoice::CappedByExclusions(int64_t wanted) const {
  if (options_.num_users <= 0) return wanted;
  return std::min(wanted, options_.num_users - roster_.ExcludedCount());
}

absl::StatusOr<std::vector<uint32_t>> CohortChoice::Choose(const v1::RoundPlan& plan, int attempt) {
  if (state_.updater->fixed_population()) return PopulationCohort(plan);
  if (plan.phase() > 0) {
    // The algorithm's choice, among the users still connected.
    return Intersect(state_.updater->PhaseParticipants(), roster_.EligibleUsers());
  }
  // The plan's n_min still bounds the cohort from below.
  const int64_t cohort_size = CappedByExclusions(plan.max_contributors());
  if (cohort_size < plan.min_contributors()) {
    return absl::FailedPreconditionError(
        absl::StrCat(roster_.ExcludedCount(), " of the ", options_.num_users,
                     " participants are excluded: the ", cohort_size, " left are fewer than round ",
                     plan.round(), "'s min_contributors ", plan.min_contributors()));
  }
  const int64_t needed =
      first_round_ ? std::max(cohort_size, options_.wait_for_users) : cohort_size;
  first_round_ = false;
  roster_.ReleaseRound();  // the last round's users do not make this cohort (with check-in)
  if (!WaitForUsers(needed, plan.round())) return std::vector<uint32_t>();
  return SampleCohort(roster_.EligibleUsers(), cohort_size, state_.sampling_seed, plan.round(),
                      attempt);
}

absl::StatusOr<std::vector<uint32_t>> CohortChoice::PopulationCohort(const v1::RoundPlan& plan) {
  FixedPopulation& population = state_.population;
  if (!population.frozen()) {
    const int64_t needed = options_.wait_for_users > 0
                               ? std::max(options_.wait_for_users, plan.min_contributors())
                               : plan.max_contributors();
    first_round_ = false;
    if (!WaitForUsers(needed, plan.round())) return std::vector<uint32_t>();
    if (absl::Status s = population.Freeze(roster_.EligibleUsers()); !s.ok()) return s;
    board_.Update([&population](StatusBoard::Snapshot& s) {
      s.population = std::make_shared<const FixedPopulation>(population);
      s.status.set_population(static_cast<int32_t>(population.size()));
    });
    EventLine("population_frozen")
        .Add("round", plan.round())
        .Add("phase", plan.phase())
        .Add("users", population.size());
  } else if (first_round_) {
    // Resumed: the checkpoint's population, all of it.
    first_round_ = false;
    if (!WaitForUsers(population.size(), plan.round())) return std::vector<uint32_t>();
  }
  if (population.size() > plan.max_contributors()) {
    return absl::FailedPreconditionError(
        absl::StrCat("fixed population of ", population.size(), " exceeds phase ", plan.phase(),
                     " of round ", plan.round(), "'s max_contributors ", plan.max_contributors(),
                     ": a fixed-population plan must admit every user"));
  }
  return Intersect(population.members(), roster_.EligibleUsers());
}

}  // namespace fedmf::server
