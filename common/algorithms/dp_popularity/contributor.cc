#include "common/algorithms/dp_popularity/contributor.h"

#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/dp_popularity/dp_popularity.h"
#include "common/dp/samplers.h"

namespace fedmf::algorithms::dp_popularity {
namespace {

absl::Status Mismatch(absl::string_view field, int64_t plan, int64_t expected) {
  return absl::InvalidArgumentError(
      absl::StrCat("dp-popularity round plan: ", field, "=", plan, ", expected ", expected));
}

}  // namespace

absl::StatusOr<std::unique_ptr<DpPopularityContributor>> DpPopularityContributor::Create(
    const v1::RoundPlan& plan) {
  if (plan.algorithm() != kAlgorithmName) {
    return absl::InvalidArgumentError(
        absl::StrCat("round plan is for algorithm '", plan.algorithm(), "', not dp-popularity"));
  }
  v1::DpPopularityBroadcast broadcast;
  if (!broadcast.ParseFromString(plan.payload())) {
    return absl::InvalidArgumentError(
        "dp-popularity round plan: payload is not a DpPopularityBroadcast");
  }
  const v1::DpPopularityConfig& c = broadcast.config();
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  const int32_t m = c.num_items();
  Eigen::VectorXd counts = Eigen::VectorXd::Zero(m);
  if (broadcast.counts_size() != 0 && broadcast.counts_size() != m) {
    return Mismatch("counts size", broadcast.counts_size(), m);
  }
  for (int32_t j = 0; j < broadcast.counts_size(); ++j) {
    if (!std::isfinite(broadcast.counts(j))) {
      return absl::InvalidArgumentError(
          absl::StrCat("dp-popularity round plan: count of item ", j, " is ", broadcast.counts(j)));
    }
    counts[j] = broadcast.counts(j);
  }
  if (plan.round() != broadcast.round()) return Mismatch("round", plan.round(), broadcast.round());
  if (plan.phase() != 0) return Mismatch("phase", plan.phase(), 0);
  if (static_cast<int64_t>(plan.length()) != m) {
    return Mismatch("length", static_cast<int64_t>(plan.length()), m);
  }
  std::optional<dp::DistributedDiscreteGaussian> mechanism;
  if (c.noise()) {
    absl::StatusOr<dp::DistributedDiscreteGaussian> made = MakeMechanism(c);
    if (!made.ok()) return made.status();
    mechanism.emplace(*std::move(made));
  }
  absl::StatusOr<int> bits = SumBits(c);
  if (!bits.ok()) return bits.status();
  if (plan.bits() != *bits) return Mismatch("bits", plan.bits(), *bits);
  if (plan.client_bits() != *bits) {
    return Mismatch("client_bits", plan.client_bits(), *bits);
  }
  if (plan.combination() != v1::COMBINATION_SECURE_SUM) {
    return Mismatch("combination", plan.combination(), v1::COMBINATION_SECURE_SUM);
  }
  // The noise protects a user only in a sum of at least n_min.
  if (static_cast<int64_t>(plan.min_contributors()) < c.min_contributors()) {
    return Mismatch("min_contributors", static_cast<int64_t>(plan.min_contributors()),
                    c.min_contributors());
  }
  if (static_cast<int64_t>(plan.max_contributors()) > c.cohort_size()) {
    return Mismatch("max_contributors", static_cast<int64_t>(plan.max_contributors()),
                    c.cohort_size());
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
