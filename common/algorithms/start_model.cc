#include "common/algorithms/start_model.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/factor_scorer.h"
#include "common/algorithms/registry.h"

namespace fedmf::algorithms {

absl::StatusOr<mf::FactorMatrix> PublishedItemFactors(const v1::RoundPlan& model) {
  absl::StatusOr<std::unique_ptr<Contributor>> contributor = MakeContributor(model);
  if (!contributor.ok()) return contributor.status();
  const auto* factors = (*contributor)->carries_model()
                            ? dynamic_cast<const FactorScorer*>(&(*contributor)->scorer())
                            : nullptr;
  if (factors == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("the published model of algorithm '", model.algorithm(),
                     "' is not a factor model: a run cannot start from its item factors"));
  }
  return factors->item_factors();
}

absl::Status CheckStartItemFactors(const mf::FactorMatrix& v, int64_t num_items, int64_t rank,
                                   absl::string_view algorithm) {
  if (v.rows() != num_items || v.cols() != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        algorithm, ": the published model to start from has ", v.rows(), " items x rank ", v.cols(),
        ", this run needs ", num_items, " x ", rank, " (set num_items=", v.rows(),
        " and the option rank=", v.cols(), ", or start fresh)"));
  }
  if (!v.allFinite()) {
    return absl::InvalidArgumentError(
        absl::StrCat(algorithm, ": the published model to start from has non-finite factors"));
  }
  return absl::OkStatus();
}

}  // namespace fedmf::algorithms
