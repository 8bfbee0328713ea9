#include "common/algorithms/privirec_k/contributor.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/graph_filter/scorer.h"
#include "common/algorithms/plan_check.h"
#include "common/algorithms/popularity_scorer.h"
#include "common/algorithms/privirec/privirec.h"
#include "common/algorithms/privirec_k/noise.h"
#include "common/algorithms/privirec_k/privirec_k.h"

namespace fedmf::algorithms::privirec_k {
namespace {

// The model's scorer (contributor.h).
absl::StatusOr<std::unique_ptr<Scorer>> BuildScorer(const v1::PriviRecKModel& m) {
  if (m.round() == 0) {
    return std::make_unique<PopularityScorer>(DegreeCount(m) == m.config().num_items()
                                                  ? ItemDegrees(m)
                                                  : Eigen::VectorXd::Zero(m.config().num_items()));
  }
  absl::StatusOr<SingularBasis> basis = ModelBasis(m);
  if (!basis.ok()) return basis.status();
  absl::StatusOr<std::shared_ptr<const graph_filter::ItemFilter>> filter =
      BuildFilter(m.config(), ItemDegrees(m), *std::move(basis));
  if (!filter.ok()) return filter.status();
  return std::make_unique<graph_filter::GraphFilterScorer>(*std::move(filter));
}

}  // namespace

PriviRecKContributor::PriviRecKContributor(std::shared_ptr<const v1::PriviRecKModel> model,
                                           std::optional<dp::NoiseCommittee> committee)
    : model_(model),
      committee_(std::move(committee)),
      scorer_(model->config().num_items(), [model] { return BuildScorer(*model); }) {}

absl::StatusOr<std::unique_ptr<PriviRecKContributor>> PriviRecKContributor::Create(
    const v1::RoundPlan& plan) {
  absl::StatusOr<v1::PriviRecKModel> parsed =
      ParsePlanPayload<v1::PriviRecKModel>(plan, kAlgorithmName);
  if (!parsed.ok()) return parsed.status();
  auto model = std::make_shared<v1::PriviRecKModel>(*std::move(parsed));
  const v1::PriviRecKConfig& c = model->config();
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  if (model->round() != 0 && model->round() != 1)
    return PlanMismatch(kAlgorithmName, "round", model->round(), 1);
  if (model->round() == 0 && (model->phase() < 0 || model->phase() > c.power_sums())) {
    return PlanMismatch(kAlgorithmName, "phase", model->phase(), c.power_sums());
  }
  const bool power = model->round() == 0 && model->phase() != kDegreePhase;
  const bool has_degrees = power || model->round() == 1;
  const int64_t degrees = has_degrees ? c.num_items() : 0;
  if (DegreeCount(*model) != degrees)
    return PlanMismatch(kAlgorithmName, "degrees", DegreeCount(*model), degrees);
  for (int64_t d : model->degrees()) {
    if (d < 0 || d > c.num_users())
      return PlanMismatch(kAlgorithmName, "a degree", d, c.num_users());
  }
  // Noisy degrees are post-processed to 0 or >= 1 (noise.h).
  for (double d : model->noisy_degrees()) {
    if (!(std::isfinite(d) && (d == 0 || d >= 1))) {
      return absl::InvalidArgumentError(
          absl::StrCat("privirec-k plan: a noisy degree ", d, " is neither 0 nor finite >= 1"));
    }
  }
  const auto basis = static_cast<int64_t>(BasisLength(*model));
  if (model->basis_size() != basis)
    return PlanMismatch(kAlgorithmName, "basis values", model->basis_size(), basis);
  const int64_t values = model->round() == 1 ? c.rank() : 0;
  if (model->values_size() != values)
    return PlanMismatch(kAlgorithmName, "eigenvalues", model->values_size(), values);
  absl::StatusOr<int> bits = PhaseBits(*model, power ? model->phase() : kDegreePhase);
  if (!bits.ok()) return bits.status();
  // Every sum is of the whole population (the paper's privacy argument).
  if (absl::Status s =
          CheckPlanEnvelope(plan, kAlgorithmName,
                            {.round = model->round(),
                             .phase = model->phase(),
                             .length = power ? static_cast<int64_t>(PowerLength(c)) : c.num_items(),
                             .bits = *bits,
                             .min_contributors_at_least = c.num_users()});
      !s.ok()) {
    return s;
  }
  // Every client derives the committee itself from the public seed: the coordinator cannot pick it.
  absl::StatusOr<std::optional<dp::NoiseCommittee>> committee =
      privirec::RunCommittee(c.seed(), c.num_users(), Noisy(c) ? c.noise_parties() : 0);
  if (!committee.ok()) return committee.status();
  return std::unique_ptr<PriviRecKContributor>(
      new PriviRecKContributor(std::move(model), *std::move(committee)));
}

absl::StatusOr<Contribution> PriviRecKContributor::Contribute(const LocalData& data,
                                                              absl::string_view,
                                                              dp::Rng& rng) const {
  if (data.is_party()) {
    return absl::InvalidArgumentError("privirec-k sums users' rows: a party cannot contribute");
  }
  if (model_->round() != 0) {
    return absl::FailedPreconditionError("privirec-k: every sum is applied, nothing to contribute");
  }
  const v1::PriviRecKConfig& c = model_->config();
  absl::StatusOr<std::vector<int32_t>> sorted =
      privirec::SortedItems(data.train.indices, c.num_items(), kAlgorithmName);
  if (!sorted.ok()) return sorted.status();
  const std::vector<int32_t>& items = *sorted;
  Contribution out;
  if (Noisy(c)) {
    absl::StatusOr<NoiseShare> share = privirec::ShareOf(committee_, data.participant_id);
    if (!share.ok()) return share.status();
    absl::StatusOr<ContributionVector> noisy;
    if (model_->phase() == kDegreePhase) {
      noisy = NoisyDegrees(c, model_->noise(), items, *share, rng);
    } else {
      noisy = NoisyPowerStep(c, model_->noise(), model_->phase(), items, model_->noisy_degrees(),
                             PowerIterate(*model_), *share, rng);
    }
    if (!noisy.ok()) return noisy.status();
    out.vector = *std::move(noisy);
    return out;
  }
  if (model_->phase() == kDegreePhase) {
    std::vector<uint64_t> indices = privirec::DegreeIndices(items);
    std::vector<uint64_t> ones(indices.size(), 1);
    out.vector = ContributionVector::Sparse(std::move(indices), std::move(ones));
    return out;
  }
  if (items.empty()) {  // A_u = 0: nothing to add
    out.vector = ContributionVector::Sparse({}, {});
    return out;
  }
  absl::StatusOr<SparseCodes> codes =
      PowerContribution(c, items, model_->degrees(), PowerIterate(*model_));
  if (!codes.ok()) return codes.status();
  out.vector = ContributionVector::Sparse(std::move(codes->indices), std::move(codes->values));
  return out;
}

}  // namespace fedmf::algorithms::privirec_k
