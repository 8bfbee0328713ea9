// Builds a graph-filter model (config.h, models.h) from a training set centrally: R~ at the model's
// alpha, P~ in factored form (GF-CF, BSPM) or explicit and raised entrywise to s (Turbo-CF), and
// the ideal low-pass from the top-k right singular vectors of the same R~ (GF-CF, BSPM; their
// papers fix alpha = 1/2, where F_IDL's V^-1/2 ... V^1/2 matches R~'s item normalization); or
// from the components a federated run aggregates (P~, or a rank-k basis of it).
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_BUILD_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_BUILD_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/lib/graph_filter/config.h"
#include "common/algorithms/lib/graph_filter/item_filter.h"
#include "common/algorithms/lib/graph_filter/singular_vectors.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::algorithms::graph_filter {

struct BuildProgress {
  // After each stage ("normalize", "gram", "singular_vectors"), with its seconds and a detail.
  std::function<void(absl::string_view stage, double seconds, absl::string_view detail)> stage;
  // During the singular vectors: products by P~ so far.
  std::function<void(int64_t products)> lanczos;
};

// The model's filter on `train` (users x items, every rating counting 1). Errors: an invalid
// config, an empty training set, k > m, Lanczos not converging.
absl::StatusOr<std::shared_ptr<const ItemFilter>> BuildCentralFilter(
    const data::RatingsDataset& train, const GraphFilterConfig& config,
    const BuildProgress& progress = {});

// The model's filter from given components, as PriviRec's clients build it from the aggregated
// sums: the item degrees diag(V) and the explicit symmetric P~ (m x m, at the model's alpha; its
// entries must be > 0 where stored, symmetry is not checked). The same scoring rules as
// BuildCentralFilter, with P~ applied from its entries and the low-pass from its eigenvectors.
// Errors: an invalid config, mismatched sizes, k > m, Lanczos not converging.
absl::StatusOr<std::shared_ptr<const ItemFilter>> BuildFilterFromGram(
    const Eigen::VectorXd& item_degrees, SparseRows gram, const GraphFilterConfig& config,
    const BuildProgress& progress = {});

// The model's filter from a rank-k basis of P~, as PriviRec-k's clients build it (no device holds
// P~): `basis` is k orthonormal (approximate) eigenvectors of P~ (m x k) with its eigenvalue
// estimates (`values`: P~'s, not R~'s singular values), in any order. P~ is replaced by
// S Lambda S^T (all k columns; config.gram_rank must be 0 or k) and the ideal low-pass takes the
// config.rank <= k columns of the largest estimates. GF-CF and BSPM; InvalidArgument for
// Turbo-CF (its entrywise power needs P~'s entries), an invalid config or mismatched sizes.
absl::StatusOr<std::shared_ptr<const ItemFilter>> BuildFilterFromBasis(
    const Eigen::VectorXd& item_degrees, SingularBasis basis, const GraphFilterConfig& config);

}  // namespace fedmf::algorithms::graph_filter

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_BUILD_H_
