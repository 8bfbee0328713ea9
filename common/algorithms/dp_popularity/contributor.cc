#include "common/algorithms/dp_popularity/contributor.h"

#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/dp_popularity/dp_popularity.h"
#include "common/algorithms/plan_check.h"
#include "common/dp/samplers.h"

namespace fedmf::algorithms::dp_popularity {

absl::StatusOr<std::unique_ptr<DpPopularityContributor>> DpPopularityContributor::Create(
    const v1::RoundPlan& plan) {
  absl::StatusOr<v1::DpPopularityBroadcast> parsed =
      ParsePlanPayload<v1::DpPopularityBroadcast>(plan, kAlgorithmName);
  if (!parsed.ok()) return parsed.status();
  const v1::DpPopularityBroadcast& broadcast = *parsed;
  const v1::DpPopularityConfig& c = broadcast.config();
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  const int32_t m = c.num_items();
  Eigen::VectorXd counts = Eigen::VectorXd::Zero(m);
  if (broadcast.counts_size() != 0 && broadcast.counts_size() != m) {
    return PlanMismatch(kAlgorithmName, "counts size", broadcast.counts_size(), m);
  }
  for (int32_t j = 0; j < broadcast.counts_size(); ++j) {
    if (!std::isfinite(broadcast.counts(j))) {
      return absl::InvalidArgumentError(
          absl::StrCat("dp-popularity round plan: count of item ", j, " is ", broadcast.counts(j)));
    }
    counts[j] = broadcast.counts(j);
  }
  std::optional<dp::DistributedDiscreteGaussian> mechanism;
  if (c.noise()) {
    absl::StatusOr<dp::DistributedDiscreteGaussian> made = MakeMechanism(c);
    if (!made.ok()) return made.status();
    mechanism.emplace(*std::move(made));
  }
  absl::StatusOr<int> bits = SumBits(c);
  if (!bits.ok()) return bits.status();
  if (absl::Status s = CheckPlanEnvelope(plan, kAlgorithmName,
                                         {.round = broadcast.round(),
                                          .length = m,
                                          .bits = *bits,
                                          .min_contributors_at_least = c.min_contributors(),
                                          .max_contributors_at_most = c.cohort_size()});
      !s.ok()) {
    return s;
  }
  return std::unique_ptr<DpPopularityContributor>(
      new DpPopularityContributor(c, std::move(mechanism), PopularityScorer(std::move(counts))));
}

absl::StatusOr<Contribution> DpPopularityContributor::Contribute(const LocalData& data,
                                                                 absl::string_view,
                                                                 dp::Rng& rng) const {
  if (data.is_party()) {
    return absl::InvalidArgumentError(
        "dp-popularity counts users, one per participant: a party cannot contribute");
  }
  const int32_t m = config_.num_items();
  std::vector<int32_t> items(data.train.indices.begin(), data.train.indices.end());
  for (int32_t item : items) {
    if (item < 0 || item >= m) {
      return absl::InvalidArgumentError(
          absl::StrCat("dp-popularity: rated item ", item, " outside [0, ", m, ")"));
    }
  }
  // A uniform c-subset: the first c positions of a partial Fisher-Yates shuffle.
  const size_t cap = config_.max_items() == 0
                         ? items.size()
                         : std::min(items.size(), static_cast<size_t>(config_.max_items()));
  for (size_t k = 0; k < cap; ++k) {
    std::swap(items[k], items[k + dp::UniformInt(rng, items.size() - k)]);
  }
  Contribution out;
  if (mechanism_.has_value()) {
    Eigen::VectorXd indicator = Eigen::VectorXd::Zero(m);
    for (size_t k = 0; k < cap; ++k) indicator[items[k]] = 1;
    absl::StatusOr<std::vector<uint64_t>> encoded = mechanism_->Encode(indicator, rng);
    if (!encoded.ok()) return encoded.status();
    out.vector = ContributionVector::Dense(*std::move(encoded));
  } else {
    std::vector<uint64_t> dense(static_cast<size_t>(m), 0);
    for (size_t k = 0; k < cap; ++k) dense[static_cast<size_t>(items[k])] = 1;
    out.vector = ContributionVector::Dense(std::move(dense));
  }
  return out;
}

}  // namespace fedmf::algorithms::dp_popularity
