#include "common/algorithms/privirec/contributor.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/graph_filter/build.h"
#include "common/algorithms/lib/graph_filter/scorer.h"
#include "common/algorithms/plan_check.h"
#include "common/algorithms/popularity_scorer.h"
#include "common/algorithms/privirec/noise.h"
#include "common/algorithms/privirec/privirec.h"

namespace fedmf::algorithms::privirec {
namespace {

absl::Status BadNoisy(absl::string_view what, double value) {
  return absl::InvalidArgumentError(absl::StrCat("privirec round plan: a noisy ", what, " is ",
                                                 value,
                                                 ", expected finite and "
                                                 "post-processed (noise.h)"));
}

}  // namespace

PriviRecScorer::PriviRecScorer(std::shared_ptr<const v1::PriviRecModel> model,
                               graph_filter::GraphFilterConfig filter)
    : model_(std::move(model)), filter_(std::move(filter)) {}

absl::StatusOr<const Scorer*> PriviRecScorer::Model() const {
  std::call_once(once_, [this] {
    const v1::PriviRecModel& m = *model_;
    if (m.round() == 0) {
      Eigen::VectorXd popularity = DegreeCount(m) == m.config().num_items()
                                       ? Degrees(m)
                                       : Eigen::VectorXd::Zero(m.config().num_items());
      built_ = std::make_unique<PopularityScorer>(std::move(popularity));
      return;
    }
    absl::StatusOr<graph_filter::SparseRows> gram = DecodeGram(m, filter_.alpha);
    if (!gram.ok()) {
      built_status_ = gram.status();
      return;
    }
    absl::StatusOr<std::shared_ptr<const graph_filter::ItemFilter>> filter =
        graph_filter::BuildFilterFromGram(Degrees(m), *std::move(gram), filter_);
    if (!filter.ok()) {
      built_status_ = filter.status();
      return;
    }
    built_ = std::make_unique<graph_filter::GraphFilterScorer>(*std::move(filter));
  });
  if (!built_status_.ok()) return built_status_;
  return built_.get();
}

absl::StatusOr<Eigen::VectorXd> PriviRecScorer::Scores(const data::RatingRow& ratings) const {
  absl::StatusOr<const Scorer*> s = Model();
  if (!s.ok()) return s.status();
  return (*s)->Scores(ratings);
}

absl::StatusOr<Eigen::MatrixXd> PriviRecScorer::ScoresBatch(
    absl::Span<const data::RatingRow> users) const {
  absl::StatusOr<const Scorer*> s = Model();
  if (!s.ok()) return s.status();
  return (*s)->ScoresBatch(users);
}

absl::StatusOr<Eigen::VectorXd> PriviRecScorer::PredictRatings(const data::RatingRow&,
                                                               double) const {
  return absl::UnimplementedError("privirec ranks items; it predicts no ratings");
}

absl::StatusOr<std::unique_ptr<PriviRecContributor>> PriviRecContributor::Create(
    const v1::RoundPlan& plan) {
  absl::StatusOr<v1::PriviRecModel> parsed =
      ParsePlanPayload<v1::PriviRecModel>(plan, kAlgorithmName);
  if (!parsed.ok()) return parsed.status();
  auto model = std::make_shared<v1::PriviRecModel>(*std::move(parsed));
  const v1::PriviRecConfig& c = model->config();
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  absl::StatusOr<graph_filter::GraphFilterConfig> filter = FilterConfig(c);
  if (!filter.ok()) return filter.status();
  const int32_t m = c.num_items();
  if (model->round() != 0 && model->round() != 1)
    return PlanMismatch(kAlgorithmName, "round", model->round(), 1);
  const bool gram = model->round() == 0 && model->phase() == kGramPhase;
  if (model->round() == 0 && model->phase() != kDegreePhase && !gram) {
    return PlanMismatch(kAlgorithmName, "phase", model->phase(), kDegreePhase);
  }
  const int64_t degrees = (model->round() == 1 || gram) ? m : 0;
  if (DegreeCount(*model) != degrees)
    return PlanMismatch(kAlgorithmName, "degrees", DegreeCount(*model), degrees);
  for (int64_t d : model->degrees()) {
    if (d < 0 || d > c.num_users())
      return PlanMismatch(kAlgorithmName, "a degree", d, c.num_users());
  }
  // Noisy sums are post-processed to finite non-negative degrees and positive Gram entries.
  for (double d : model->noisy_degrees()) {
    if (!(std::isfinite(d) && d >= 0)) return BadNoisy("degree", d);
  }
  for (double g : model->noisy_gram()) {
    if (!(std::isfinite(g) && g > 0)) return BadNoisy("Gram entry", g);
  }
  const int gram_values = Noisy(c) ? model->noisy_gram_size() : model->gram_sum_size();
  if (model->gram_index_size() != gram_values ||
      (model->round() == 0 && model->gram_index_size() != 0)) {
    return PlanMismatch(kAlgorithmName, "gram entries", model->gram_index_size(), gram_values);
  }
  absl::StatusOr<int> phase_bits = PhaseBits(*model, gram ? kGramPhase : kDegreePhase);
  if (!phase_bits.ok()) return phase_bits.status();
  // Every sum is of the whole population (the paper's privacy argument).
  if (absl::Status s = CheckPlanEnvelope(plan, kAlgorithmName,
                                         {.round = model->round(),
                                          .phase = model->phase(),
                                          .length = gram ? static_cast<int64_t>(UpperLength(m)) : m,
                                          .bits = *phase_bits,
                                          .min_contributors_at_least = c.num_users()});
      !s.ok()) {
    return s;
  }
  // Every client derives the committee itself from the public seed: the coordinator cannot pick it.
  absl::StatusOr<std::optional<dp::NoiseCommittee>> committee =
      RunCommittee(c.seed(), c.num_users(), Noisy(c) ? c.noise_parties() : 0);
  if (!committee.ok()) return committee.status();
  return std::unique_ptr<PriviRecContributor>(
      new PriviRecContributor(std::move(model), *std::move(filter), *std::move(committee)));
}

absl::StatusOr<Contribution> PriviRecContributor::Contribute(const LocalData& data,
                                                             absl::string_view,
                                                             dp::Rng& rng) const {
  if (data.is_party()) {
    return absl::InvalidArgumentError("privirec sums users' rows: a party cannot contribute");
  }
  if (model_->round() != 0) {
    return absl::FailedPreconditionError("privirec: both sums are applied, nothing to contribute");
  }
  const int32_t m = model_->config().num_items();
  absl::StatusOr<std::vector<int32_t>> sorted = SortedItems(data.train.indices, m, kAlgorithmName);
  if (!sorted.ok()) return sorted.status();
  const std::vector<int32_t>& items = *sorted;
  Contribution out;
  if (Noisy(model_->config())) {
    absl::StatusOr<NoiseShare> share = ShareOf(committee_, data.participant_id);
    if (!share.ok()) return share.status();
    absl::StatusOr<ContributionVector> noisy = NoisyContribution(
        model_->config(), model_->noise(), model_->phase(), items, alpha_, *share, rng);
    if (!noisy.ok()) return noisy.status();
    out.vector = *std::move(noisy);
    return out;
  }
  if (model_->phase() == kDegreePhase) {
    std::vector<uint64_t> indices = DegreeIndices(items);
    std::vector<uint64_t> values(indices.size(), 1);
    out.vector = ContributionVector::Sparse(std::move(indices), std::move(values));
    return out;
  }
  std::vector<uint64_t> indices = GramIndices(m, items);
  const uint64_t code = items.empty()
                            ? 0
                            : EncodeWeight(GramWeight(static_cast<int64_t>(items.size()), alpha_),
                                           model_->config().frac_bits());
  std::vector<uint64_t> values(indices.size(), code);
  out.vector = ContributionVector::Sparse(std::move(indices), std::move(values));
  return out;
}

}  // namespace fedmf::algorithms::privirec
