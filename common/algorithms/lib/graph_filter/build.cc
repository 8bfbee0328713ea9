#include "common/algorithms/lib/graph_filter/build.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/algorithms/lib/graph_filter/filters.h"
#include "common/algorithms/lib/graph_filter/low_rank_gram.h"
#include "common/algorithms/lib/graph_filter/models.h"
#include "common/algorithms/lib/graph_filter/normalized_interactions.h"
#include "common/algorithms/lib/graph_filter/singular_vectors.h"

namespace fedmf::algorithms::graph_filter {
namespace {

// Times one stage and reports it.
class Stage {
 public:
  Stage(const BuildProgress& progress, absl::string_view name)
      : progress_(progress), name_(name), start_(absl::Now()) {}
  void Done(absl::string_view detail) const {
    if (progress_.stage)
      progress_.stage(name_, absl::ToDoubleSeconds(absl::Now() - start_), detail);
  }

 private:
  const BuildProgress& progress_;
  absl::string_view name_;
  absl::Time start_;
};

// Turbo-CF's filter from P~'s entries.
std::shared_ptr<const ItemFilter> TurboFilter(SparseRows gram, const GraphFilterConfig& config,
                                              const BuildProgress& progress) {
  Stage stage(progress, "gram");
  gram.coeffs() = gram.coeffs().pow(config.power);  // entries are > 0
  stage.Done(absl::StrCat("nonzeros=", gram.nonZeros(), " power=", config.power));
  return std::make_shared<const TurboCf>(
      std::make_shared<const SymmetricSparseFilter>(std::move(gram)), config.polynomial);
}

// GF-CF or BSPM from P~ (or its stand-in) and the low-pass (null when the model needs none).
std::shared_ptr<const ItemFilter> Combine(const GraphFilterConfig& config,
                                          std::shared_ptr<const ItemFilter> gram,
                                          std::shared_ptr<const ItemFilter> low_pass) {
  if (config.model == FilterModel::kGfCf) {
    return std::make_shared<const GfCf>(std::move(gram), std::move(low_pass), config.gamma);
  }
  return std::make_shared<const Bspm>(std::move(gram), std::move(low_pass), config.bspm);
}

// GF-CF or BSPM with the components read from P~'s top eigenvectors (the ideal low-pass and, with
// config.gram_rank, P~'s stand-in in place of `exact_gram`), from one Lanczos run on `source`
// (R~, or an explicit P~) for both.
template <typename Source>
absl::StatusOr<std::shared_ptr<const ItemFilter>> Spectral(
    const Source& source, std::shared_ptr<const ItemFilter> exact_gram,
    const Eigen::VectorXd& item_degrees, const GraphFilterConfig& config,
    const BuildProgress& progress) {
  const bool low_pass = UsesLowPass(config);
  const int64_t rank = std::max(low_pass ? config.rank : 0, config.gram_rank);
  if (rank == 0) return Combine(config, std::move(exact_gram), nullptr);
  Stage stage(progress, "singular_vectors");
  LanczosOptions options;
  options.progress = progress.lanczos;
  absl::StatusOr<SingularBasis> basis = TopRightSingularVectors(source, rank, options);
  if (!basis.ok()) return basis.status();
  stage.Done(absl::StrCat("k=", rank, " sigma_1=", basis->values[0],
                          " sigma_k=", basis->values[basis->values.size() - 1]));
  auto shared = std::make_shared<const SingularBasis>(*std::move(basis));
  std::shared_ptr<const ItemFilter> gram = std::move(exact_gram);
  if (config.gram_rank != 0) {
    gram = std::make_shared<const LowRankGram>(
        shared, shared->values.head(config.gram_rank).array().square().matrix());
  }
  return Combine(
      config, std::move(gram),
      low_pass ? std::make_shared<const IdealLowPass>(item_degrees, shared, config.rank) : nullptr);
}

}  // namespace

absl::StatusOr<std::shared_ptr<const ItemFilter>> BuildCentralFilter(
    const data::RatingsDataset& train, const GraphFilterConfig& config,
    const BuildProgress& progress) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  Stage normalize(progress, "normalize");
  absl::StatusOr<NormalizedInteractions> normalized =
      NormalizedInteractions::Create(train, config.alpha);
  if (!normalized.ok()) return normalized.status();
  auto r = std::make_shared<const NormalizedInteractions>(*std::move(normalized));
  normalize.Done(absl::StrCat("users=", r->num_users(), " items=", r->num_items(),
                              " interactions=", r->by_user().nonZeros()));

  if (config.model == FilterModel::kTurboCf) return TurboFilter(r->Gram(), config, progress);
  return Spectral(*r, std::make_shared<const GramFilter>(r), r->item_degrees(), config, progress);
}

absl::StatusOr<std::shared_ptr<const ItemFilter>> BuildFilterFromGram(
    const Eigen::VectorXd& item_degrees, SparseRows gram, const GraphFilterConfig& config,
    const BuildProgress& progress) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  if (gram.rows() != gram.cols() || gram.rows() != item_degrees.size()) {
    return absl::InvalidArgumentError(absl::StrCat("P~ is ", gram.rows(), " x ", gram.cols(),
                                                   " for ", item_degrees.size(), " item degrees"));
  }
  if (config.model == FilterModel::kTurboCf) return TurboFilter(std::move(gram), config, progress);
  auto exact = std::make_shared<const SymmetricSparseFilter>(std::move(gram));
  return Spectral(exact->matrix(), exact, item_degrees, config, progress);
}

absl::StatusOr<std::shared_ptr<const ItemFilter>> BuildFilterFromBasis(
    const Eigen::VectorXd& item_degrees, SingularBasis basis, const GraphFilterConfig& config) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  const Eigen::Index k = basis.vectors.cols();
  if (config.model == FilterModel::kTurboCf) {
    return absl::InvalidArgumentError(absl::StrCat(
        config.name, ": Turbo-CF's entrywise power needs P~'s entries, not a rank-k basis"));
  }
  if (basis.vectors.rows() != item_degrees.size() || basis.values.size() != k) {
    return absl::InvalidArgumentError(
        absl::StrCat("a basis of ", basis.vectors.rows(), " x ", k, " with ", basis.values.size(),
                     " eigenvalues for ", item_degrees.size(), " item degrees"));
  }
  if (config.gram_rank != 0 && config.gram_rank != k) {
    return absl::InvalidArgumentError(absl::StrCat(config.name, ": gram rank ", config.gram_rank,
                                                   " from a basis of ", k, " columns"));
  }
  const bool low_pass = UsesLowPass(config);
  if (low_pass && config.rank > k) {
    return absl::InvalidArgumentError(absl::StrCat(config.name, ": low-pass rank ", config.rank,
                                                   " from a basis of ", k, " columns"));
  }
  // The low-pass takes the leading columns: order them by descending eigenvalue (a permutation:
  // S Lambda S^T does not change).
  if (low_pass && config.rank < k &&
      !std::is_sorted(basis.values.begin(), basis.values.end(), std::greater<>())) {
    std::vector<Eigen::Index> order(static_cast<size_t>(k));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
      return basis.values[a] > basis.values[b];
    });
    SingularBasis sorted;
    sorted.vectors = basis.vectors(Eigen::all, order);
    sorted.values = basis.values(order);
    basis = std::move(sorted);
  }
  auto shared = std::make_shared<const SingularBasis>(std::move(basis));
  return Combine(
      config, std::make_shared<const LowRankGram>(shared, shared->values),
      low_pass ? std::make_shared<const IdealLowPass>(item_degrees, shared, config.rank) : nullptr);
}

}  // namespace fedmf::algorithms::graph_filter
