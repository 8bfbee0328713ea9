#include "common/algorithms/probe/contributor.h"

#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/plan_check.h"
#include "common/algorithms/probe/probe.h"
#include "common/dp/samplers.h"

namespace fedmf::algorithms::probe {

absl::StatusOr<std::unique_ptr<ProbeContributor>> ProbeContributor::Create(
    const v1::RoundPlan& plan) {
  absl::StatusOr<v1::ProbeBroadcast> parsed =
      ParsePlanPayload<v1::ProbeBroadcast>(plan, kAlgorithmName);
  if (!parsed.ok()) return parsed.status();
  v1::ProbeBroadcast& broadcast = *parsed;
  if (absl::Status s = ValidateConfig(broadcast.config()); !s.ok()) return s;
  const int32_t m = broadcast.config().num_items();
  if (broadcast.popularity_size() != m) {
    return PlanMismatch(kAlgorithmName, "popularity size", broadcast.popularity_size(), m);
  }
  Eigen::VectorXd popularity(m);
  for (int32_t j = 0; j < m; ++j) {
    if (!std::isfinite(broadcast.popularity(j))) {
      return absl::InvalidArgumentError(absl::StrCat("probe round plan: popularity of item ", j,
                                                     " is ", broadcast.popularity(j)));
    }
    popularity[j] = broadcast.popularity(j);
  }
  const bool reports = broadcast.phase() == kReportPhase;
  if (!reports && broadcast.phase() != kCounterPhase) {
    return absl::InvalidArgumentError(
        absl::StrCat("probe round plan: phase ", broadcast.phase(), " (the probe has 0 and 1)"));
  }
  if (absl::Status s = CheckPlanEnvelope(
          plan, kAlgorithmName,
          {.round = broadcast.round(),
           .phase = broadcast.phase(),
           .length = reports ? m : broadcast.config().num_users(),
           .bits = kBits,
           .combination = reports ? v1::COMBINATION_CLEAR : v1::COMBINATION_SECURE_SUM});
      !s.ok()) {
    return s;
  }
  absl::StatusOr<dp::KaryRr> rr = dp::KaryRr::Create(m, broadcast.config().report_epsilon());
  if (!rr.ok()) return rr.status();
  return std::unique_ptr<ProbeContributor>(
      new ProbeContributor(std::move(broadcast), *rr, PopularityScorer(std::move(popularity))));
}

absl::StatusOr<ContributionVector> ProbeContributor::Reports(const LocalData& data,
                                                             dp::Rng& rng) const {
  const int32_t m = broadcast_.config().num_items();
  std::map<uint64_t, uint64_t> counts;  // sorted: the sparse vector's indices ascend
  absl::Status status =
      ForEachUser(data, [&](const data::RatingRow& train, const data::RatingRow&) -> absl::Status {
        // One rated item, uniformly; a user without ratings holds a uniform item (the report is
        // then noise, and as private).
        const uint64_t n =
            train.size() > 0 ? static_cast<uint64_t>(train.size()) : static_cast<uint64_t>(m);
        const uint64_t pick = dp::UniformInt(rng, n);
        const int64_t item = train.size() > 0 ? train.indices[pick] : static_cast<int64_t>(pick);
        absl::StatusOr<int64_t> report = rr_.Randomize(item, rng);
        if (!report.ok()) return report.status();
        ++counts[static_cast<uint64_t>(*report)];
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  std::vector<uint64_t> indices, values;
  for (const auto& [item, count] : counts) {
    indices.push_back(item);
    values.push_back(count);
  }
  return ContributionVector::Sparse(std::move(indices), std::move(values));
}

absl::StatusOr<Contribution> ProbeContributor::Contribute(const LocalData& data,
                                                          absl::string_view state,
                                                          dp::Rng& rng) const {
  absl::StatusOr<int64_t> counter = DecodeCounter(state);
  if (!counter.ok()) return counter.status();
  if (broadcast_.phase() == kCounterPhase) {
    const int64_t id = data.participant_id;
    if (id < 1 || id > broadcast_.config().num_users()) {
      return absl::InvalidArgumentError(absl::StrCat("probe phase 1: participant id ", id,
                                                     " outside [1, ",
                                                     broadcast_.config().num_users(), "]"));
    }
    return Contribution{.vector = ContributionVector::Sparse({static_cast<uint64_t>(id - 1)},
                                                             {static_cast<uint64_t>(*counter)}),
                        .state = std::string(state),
                        .user_factor = {}};
  }
  absl::StatusOr<ContributionVector> reports = Reports(data, rng);
  if (!reports.ok()) return reports.status();
  return Contribution{
      .vector = *std::move(reports), .state = EncodeCounter(*counter + 1), .user_factor = {}};
}

absl::StatusOr<std::optional<dp::LedgerEntry>> ProbeContributor::ParticipantCost(
    const LocalData&, absl::string_view) const {
  if (broadcast_.phase() != kReportPhase) return std::nullopt;
  return ReportRelease(broadcast_.config(), broadcast_.round(), /*participants=*/1);
}

}  // namespace fedmf::algorithms::probe
