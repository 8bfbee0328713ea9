#include "common/algorithms/privirec/contributor.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/graph_filter/build.h"
#include "common/algorithms/graph_filter/scorer.h"
#include "common/algorithms/popularity_scorer.h"
#include "common/algorithms/privirec/privirec.h"

namespace fedmf::algorithms::privirec {
namespace {

absl::Status Mismatch(absl::string_view field, int64_t plan, int64_t expected) {
  return absl::InvalidArgumentError(
      absl::StrCat("privirec round plan: ", field, "=", plan, ", expected ", expected));
}

}  // namespace

PriviRecScorer::PriviRecScorer(std::shared_ptr<const v1::PriviRecModel> model,
                               graph_filter::GraphFilterConfig filter)
    : model_(std::move(model)), filter_(std::move(filter)) {}

absl::StatusOr<const Scorer*> PriviRecScorer::Model() const {
  std::call_once(once_, [this] {
    const v1::PriviRecModel& m = *model_;
    if (m.round() == 0) {
      Eigen::VectorXd popularity = m.degrees_size() == m.config().num_items()
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
  if (plan.algorithm() != kAlgorithmName) {
    return absl::InvalidArgumentError(
        absl::StrCat("round plan is for algorithm '", plan.algorithm(), "', not privirec"));
  }
  auto model = std::make_shared<v1::PriviRecModel>();
  if (!model->ParseFromString(plan.payload())) {
    return absl::InvalidArgumentError("privirec round plan: payload is not a PriviRecModel");
  }
  const v1::PriviRecConfig& c = model->config();
  if (absl::Status s = ValidateConfig(c); !s.ok()) return s;
  absl::StatusOr<graph_filter::GraphFilterConfig> filter = FilterConfig(c);
  if (!filter.ok()) return filter.status();
  const int32_t m = c.num_items();
  if (plan.round() != model->round()) return Mismatch("round", plan.round(), model->round());
  if (plan.phase() != model->phase()) return Mismatch("phase", plan.phase(), model->phase());
  if (model->round() != 0 && model->round() != 1) return Mismatch("round", model->round(), 1);
  const bool gram = model->round() == 0 && model->phase() == kGramPhase;
  if (model->round() == 0 && model->phase() != kDegreePhase && !gram) {
    return Mismatch("phase", model->phase(), kDegreePhase);
  }
  const int64_t degrees = (model->round() == 1 || gram) ? m : 0;
  if (model->degrees_size() != degrees) return Mismatch("degrees", model->degrees_size(), degrees);
  for (int64_t d : model->degrees()) {
    if (d < 0 || d > c.num_users()) return Mismatch("a degree", d, c.num_users());
  }
  if (model->gram_index_size() != model->gram_sum_size() ||
      (model->round() == 0 && model->gram_index_size() != 0)) {
    return Mismatch("gram entries", model->gram_index_size(), model->gram_sum_size());
  }
  const uint64_t length = gram ? UpperLength(m) : static_cast<uint64_t>(m);
  if (plan.length() != length) {
    return Mismatch("length", static_cast<int64_t>(plan.length()), static_cast<int64_t>(length));
  }
  const int bits = gram ? GramBits(c) : DegreeBits(c);
  if (plan.bits() != bits) return Mismatch("bits", plan.bits(), bits);
  if (plan.client_bits() != bits) return Mismatch("client_bits", plan.client_bits(), bits);
  if (plan.combination() != v1::COMBINATION_SECURE_SUM) {
    return Mismatch("combination", plan.combination(), v1::COMBINATION_SECURE_SUM);
  }
  // Every sum is of the whole population (the paper's privacy argument).
  if (static_cast<int64_t>(plan.min_contributors()) != c.num_users()) {
    return Mismatch("min_contributors", static_cast<int64_t>(plan.min_contributors()),
                    c.num_users());
  }
  return std::unique_ptr<PriviRecContributor>(
      new PriviRecContributor(std::move(model), *std::move(filter)));
}

absl::StatusOr<Contribution> PriviRecContributor::Contribute(const LocalData& data,
                                                             absl::string_view, dp::Rng&) const {
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
