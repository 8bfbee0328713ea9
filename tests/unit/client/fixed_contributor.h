// Test helper: FixedContributor, a Contributor whose contribution, state and cost are fixed by the
// test, for tests of how a participant and its host keep algorithm states and budgets.
#ifndef FEDMF_TESTS_UNIT_CLIENT_FIXED_CONTRIBUTOR_H_
#define FEDMF_TESTS_UNIT_CLIENT_FIXED_CONTRIBUTOR_H_

#include <optional>
#include <string>
#include <utility>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/factor_scorer.h"
#include "common/dp/privacy_ledger.h"

namespace fedmf::client::test_util {

// Test-only: every contribution is the same given vector (e.g. sparse, the shape of a local-DP
// report or of a graph filter's few non-zeros), for any data; its state counts the participant's
// contributions ("" before the first, then "1", "2", ...); each costs `cost` pure epsilon per user
// when set. A model of 8 items, rank 2.
class FixedContributor : public algorithms::Contributor {
 public:
  explicit FixedContributor(algorithms::ContributionVector vector,
                            std::optional<double> cost = std::nullopt)
      : vector_(std::move(vector)), cost_(cost) {}

  absl::StatusOr<algorithms::Contribution> Contribute(const algorithms::LocalData&,
                                                      absl::string_view state,
                                                      dp::Rng&) const override {
    const int count = state.empty() ? 0 : std::stoi(std::string(state));
    return algorithms::Contribution{.vector = vector_,
                                    .state = std::to_string(count + 1),
                                    .user_factor = Eigen::VectorXd::Ones(2)};
  }
  absl::StatusOr<std::optional<dp::LedgerEntry>> ParticipantCost(const algorithms::LocalData&,
                                                                 absl::string_view) const override {
    if (!cost_) return std::nullopt;
    dp::LedgerEntry entry;
    entry.mechanism = "fixed";
    entry.participants = 1;
    entry.n_min = 1;
    entry.unit = dp::PrivacyUnit::kUser;
    entry.pure_epsilon = *cost_;
    return entry;
  }
  const algorithms::Scorer& scorer() const override { return scorer_; }

 private:
  algorithms::ContributionVector vector_;
  std::optional<double> cost_;
  algorithms::FactorScorer scorer_{mf::FactorMatrix::Zero(8, 2), /*lambda=*/1,
                                   /*ranking_kappa=*/0};
};

}  // namespace fedmf::client::test_util

#endif  // FEDMF_TESTS_UNIT_CLIENT_FIXED_CONTRIBUTOR_H_
