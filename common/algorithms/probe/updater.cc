#include "common/algorithms/probe/updater.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/probe/probe.h"
#include "common/dp/kary_rr.h"

namespace fedmf::algorithms::probe {
namespace {

absl::Status BadState(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("probe state: ", what));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ProbeUpdater>> ProbeUpdater::Create(const v1::ProbeConfig& config) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  v1::ProbeState state;
  *state.mutable_config() = config;
  state.mutable_report_counts()->Resize(config.num_items(), 0);
  return std::unique_ptr<ProbeUpdater>(new ProbeUpdater(std::move(state)));
}

absl::StatusOr<std::unique_ptr<ProbeUpdater>> ProbeUpdater::Restore(absl::string_view bytes) {
  v1::ProbeState state;
  if (!state.ParseFromString(std::string(bytes))) return BadState("not a fedmf.v1.ProbeState");
  if (absl::Status s = ValidateConfig(state.config()); !s.ok()) return s;
  const v1::ProbeConfig& c = state.config();
  if (state.round() < 0 || state.round() > c.rounds()) {
    return BadState(absl::StrCat("round ", state.round(), " outside [0, ", c.rounds(), "]"));
  }
  if (state.phase() != kReportPhase && state.phase() != kCounterPhase) {
    return BadState(absl::StrCat("phase ", state.phase()));
  }
  if (state.report_counts_size() != c.num_items()) {
    return BadState(
        absl::StrCat(state.report_counts_size(), " report counts for ", c.num_items(), " items"));
  }
  const bool pending = state.phase() == kCounterPhase;
  if (pending != (state.pending_counts_size() == c.num_items())) {
    return BadState(
        absl::StrCat(state.pending_counts_size(), " pending counts in phase ", state.phase()));
  }
  if (!std::is_sorted(state.pending_contributors().begin(), state.pending_contributors().end())) {
    return BadState("pending contributors not ascending");
  }
  return std::unique_ptr<ProbeUpdater>(new ProbeUpdater(std::move(state)));
}

Eigen::VectorXd ProbeUpdater::Popularity() const {
  const v1::ProbeConfig& c = state_.config();
  Eigen::VectorXd popularity = Eigen::VectorXd::Zero(c.num_items());
  if (state_.reports() == 0) return popularity;
  // Validated config: Create cannot fail.
  const dp::KaryRr rr = dp::KaryRr::Create(c.num_items(), c.report_epsilon()).value();
  for (int32_t j = 0; j < c.num_items(); ++j) {
    popularity[j] = rr.Estimate(static_cast<double>(state_.report_counts(j)),
                                static_cast<double>(state_.reports()));
  }
  return popularity;
}

absl::StatusOr<v1::RoundPlan> ProbeUpdater::Plan() const {
  // After the last round too: its phase 0 carries the final model (evaluation, recommendations).
  const v1::ProbeConfig& c = state_.config();
  v1::ProbeBroadcast broadcast;
  *broadcast.mutable_config() = c;
  broadcast.set_round(state_.round());
  broadcast.set_phase(state_.phase());
  const Eigen::VectorXd popularity = Popularity();
  broadcast.mutable_popularity()->Add(popularity.data(), popularity.data() + popularity.size());
  v1::RoundPlan plan;
  plan.set_algorithm(std::string(kAlgorithmName));
  plan.set_round(state_.round());
  plan.set_phase(state_.phase());
  plan.set_payload(broadcast.SerializeAsString());
  plan.set_bits(kBits);
  plan.set_client_bits(kBits);
  if (state_.phase() == kReportPhase) {
    plan.set_length(static_cast<uint64_t>(c.num_items()));
    plan.set_combination(v1::COMBINATION_CLEAR);
    plan.set_min_contributors(c.min_contributors());
    // A fixed population is every registered participant, at most every id.
    plan.set_max_contributors(c.fixed_population() ? c.num_users() : c.cohort_size());
  } else {
    plan.set_length(static_cast<uint64_t>(c.num_users()));
    plan.set_combination(v1::COMBINATION_SECURE_SUM);
    plan.set_min_contributors(1);
    plan.set_max_contributors(state_.pending_contributors_size());
  }
  return plan;
}

std::vector<uint32_t> ProbeUpdater::PhaseParticipants() const {
  if (state_.phase() != kCounterPhase) return {};
  return {state_.pending_contributors().begin(), state_.pending_contributors().end()};
}

absl::Status ProbeUpdater::ApplySum(absl::Span<const uint64_t> sum,
                                    absl::Span<const uint32_t> contributors) {
  if (state_.round() >= state_.config().rounds()) {
    return absl::FailedPreconditionError("probe: all rounds done");
  }
  return state_.phase() == kReportPhase ? ApplyReports(sum, contributors)
                                        : ApplyCounters(sum, contributors);
}

absl::Status ProbeUpdater::ApplyReports(absl::Span<const uint64_t> sum,
                                        absl::Span<const uint32_t> contributors) {
  if (sum.size() != static_cast<size_t>(state_.config().num_items())) {
    return absl::InvalidArgumentError(absl::StrCat("probe phase 0: sum of length ", sum.size(),
                                                   ", expected ", state_.config().num_items()));
  }
  state_.clear_pending_counts();
  state_.mutable_pending_counts()->Add(sum.begin(), sum.end());
  state_.clear_pending_contributors();
  state_.mutable_pending_contributors()->Add(contributors.begin(), contributors.end());
  for (uint32_t id : contributors) ++(*state_.mutable_received())[id];
  state_.set_phase(kCounterPhase);
  return absl::OkStatus();
}

absl::Status ProbeUpdater::ApplyCounters(absl::Span<const uint64_t> sum,
                                         absl::Span<const uint32_t> contributors) {
  if (sum.size() != static_cast<size_t>(state_.config().num_users())) {
    return absl::InvalidArgumentError(absl::StrCat("probe phase 1: sum of length ", sum.size(),
                                                   ", expected ", state_.config().num_users()));
  }
  // Each contributor's counter counts the phase-0 contributions it made, at least those
  // received. (It may count more: a report lost on the way counts on the device only.)
  std::vector<bool> contributed(sum.size(), false);
  for (uint32_t id : contributors) {
    if (id < 1 || id > sum.size() ||
        !std::binary_search(state_.pending_contributors().begin(),
                            state_.pending_contributors().end(), id)) {
      return absl::InvalidArgumentError(
          absl::StrCat("probe phase 1: participant ", id, " did not contribute to phase 0"));
    }
    contributed[id - 1] = true;
    const auto it = state_.received().find(id);
    const int64_t received = it == state_.received().end() ? 0 : it->second;
    if (sum[id - 1] < static_cast<uint64_t>(received)) {
      return absl::FailedPreconditionError(
          absl::StrCat("probe round ", state_.round(), ": participant ", id, "'s state counter is ",
                       sum[id - 1], ", below the ", received,
                       " contributions the coordinator received from it: it lost its state"));
    }
  }
  for (size_t k = 0; k < sum.size(); ++k) {
    if (!contributed[k] && sum[k] != 0) {
      return absl::InvalidArgumentError(absl::StrCat("probe phase 1: a counter at participant ",
                                                     k + 1,
                                                     "'s coordinate, who is not in the sum"));
    }
  }
  uint64_t reports = 0;
  for (int32_t j = 0; j < state_.report_counts_size(); ++j) {
    state_.set_report_counts(j, state_.report_counts(j) + state_.pending_counts(j));
    reports += state_.pending_counts(j);
  }
  state_.set_reports(state_.reports() + reports);
  state_.set_round(state_.round() + 1);
  AbandonRound();  // clears the pending phase 0 and returns to phase 0
  return absl::OkStatus();
}

void ProbeUpdater::AbandonRound() {
  state_.set_phase(kReportPhase);
  state_.clear_pending_counts();
  state_.clear_pending_contributors();
}

absl::StatusOr<std::optional<dp::LedgerEntry>> ProbeUpdater::RoundPrivacy(
    int64_t participants, const std::vector<double>&) const {
  if (state_.phase() != kReportPhase) return std::nullopt;  // counters: no rating data
  return ReportRelease(state_.config(), state_.round(), participants);
}

std::optional<dp::PrivacyBudget> ProbeUpdater::budget() const {
  if (state_.config().budget_epsilon() == 0) return std::nullopt;
  return dp::PrivacyBudget::PureDp(state_.config().budget_epsilon(), dp::PrivacyUnit::kUser);
}

absl::StatusOr<std::string> ProbeUpdater::SerializeState() const {
  return state_.SerializeAsString();
}

}  // namespace fedmf::algorithms::probe
