// The probe's client side (probe.h): phase 0 turns each of the participant's users into one k-ary
// randomized-response report of a rated item and uploads the counts sparsely, advancing the
// participant's counter; phase 1 uploads the counter at the participant's coordinate. Works for
// users and silo parties alike.
#ifndef FEDMF_COMMON_ALGORITHMS_PROBE_CONTRIBUTOR_H_
#define FEDMF_COMMON_ALGORITHMS_PROBE_CONTRIBUTOR_H_

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/popularity_scorer.h"
#include "common/dp/kary_rr.h"
#include "fedmf/v1/algorithm.pb.h"
#include "fedmf/v1/probe.pb.h"

namespace fedmf::algorithms::probe {

class ProbeContributor final : public Contributor {
 public:
  // Validates the plan (it comes from the network): name, payload, config, phase, the
  // popularity's length and the plan's shape for the phase.
  static absl::StatusOr<std::unique_ptr<ProbeContributor>> Create(const v1::RoundPlan& plan);

  // InvalidArgument for a corrupt state or a rated item outside the catalogue.
  absl::StatusOr<Contribution> Contribute(const LocalData& data, absl::string_view state,
                                          dp::Rng& rng) const override;
  // Phase 0: report_epsilon, pure, per user (each user reports once); phase 1: nothing.
  absl::StatusOr<std::optional<dp::LedgerEntry>> ParticipantCost(
      const LocalData& data, absl::string_view state) const override;
  const Scorer& scorer() const override { return scorer_; }

 private:
  ProbeContributor(v1::ProbeBroadcast broadcast, dp::KaryRr rr, PopularityScorer scorer)
      : broadcast_(std::move(broadcast)), rr_(rr), scorer_(std::move(scorer)) {}

  absl::StatusOr<ContributionVector> Reports(const LocalData& data, dp::Rng& rng) const;

  v1::ProbeBroadcast broadcast_;
  dp::KaryRr rr_;
  PopularityScorer scorer_;
};

}  // namespace fedmf::algorithms::probe

#endif  // FEDMF_COMMON_ALGORITHMS_PROBE_CONTRIBUTOR_H_
