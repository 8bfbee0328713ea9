#include "common/algorithms/lib/graph_filter/build.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/algorithms/lib/graph_filter/filters.h"
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

// The ideal low-pass from the item degrees and the top-k eigenvectors of P~, which `source` (R~
// or an explicit P~) gives to TopRightSingularVectors.
template <typename Source>
absl::StatusOr<std::shared_ptr<const ItemFilter>> LowPass(const Source& source,
                                                          const Eigen::VectorXd& item_degrees,
                                                          int64_t rank,
                                                          const BuildProgress& progress) {
  Stage stage(progress, "singular_vectors");
  LanczosOptions options;
  options.progress = progress.lanczos;
  absl::StatusOr<SingularBasis> basis = TopRightSingularVectors(source, rank, options);
  if (!basis.ok()) return basis.status();
  stage.Done(absl::StrCat("k=", rank, " sigma_1=", basis->values[0],
                          " sigma_k=", basis->values[basis->values.size() - 1]));
  return std::make_shared<const IdealLowPass>(item_degrees, *std::move(basis));
}

// Turbo-CF's filter from P~'s entries.
std::shared_ptr<const ItemFilter> TurboFilter(SparseRows gram, const GraphFilterConfig& config,
                                              const BuildProgress& progress) {
  Stage stage(progress, "gram");
  gram.coeffs() = gram.coeffs().pow(config.power);  // entries are > 0
  stage.Done(absl::StrCat("nonzeros=", gram.nonZeros(), " power=", config.power));
  return std::make_shared<const TurboCf>(
      std::make_shared<const SymmetricSparseFilter>(std::move(gram)), config.polynomial);
}

// GF-CF or BSPM from P~ and the low-pass (null when the model needs none).
std::shared_ptr<const ItemFilter> Combine(const GraphFilterConfig& config,
                                          std::shared_ptr<const ItemFilter> gram,
                                          std::shared_ptr<const ItemFilter> low_pass) {
  if (config.model == FilterModel::kGfCf) {
    return std::make_shared<const GfCf>(std::move(gram), std::move(low_pass), config.gamma);
  }
  return std::make_shared<const Bspm>(std::move(gram), std::move(low_pass), config.bspm);
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

  std::shared_ptr<const ItemFilter> low_pass;
  if (UsesLowPass(config)) {
    absl::StatusOr<std::shared_ptr<const ItemFilter>> built =
        LowPass(*r, r->item_degrees(), config.rank, progress);
    if (!built.ok()) return built.status();
    low_pass = *std::move(built);
  }
  return Combine(config, std::make_shared<const GramFilter>(r), std::move(low_pass));
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
  std::shared_ptr<const ItemFilter> low_pass;
  if (UsesLowPass(config)) {
    absl::StatusOr<std::shared_ptr<const ItemFilter>> built =
        LowPass(gram, item_degrees, config.rank, progress);
    if (!built.ok()) return built.status();
    low_pass = *std::move(built);
  }
  return Combine(config, std::make_shared<const SymmetricSparseFilter>(std::move(gram)),
                 std::move(low_pass));
}

}  // namespace fedmf::algorithms::graph_filter
