// Starting a run from a published model instead of a fresh one (RunSpec.start_from_version,
// docs/runtime.md "Warm start"): the runtime decodes the published model (a round plan, as devices
// receive it) with its algorithm's contributor and hands its item factors V to the new run as
// RunSettings::start_item_factors; a factor algorithm registered with
// NewRunDefaults::starts_from_item_factors checks them with CheckStartItemFactors and starts from
// them instead of its public random V_0. The published model is a release of the run that trained
// it, so the new run's own ledger is unchanged by it; the privacy of the model the new run
// publishes is that of both runs together (docs/privacy-accounting.md).
#ifndef FEDMF_COMMON_ALGORITHMS_START_MODEL_H_
#define FEDMF_COMMON_ALGORITHMS_START_MODEL_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/mf/factor_model.h"
#include "fedmf/v1/algorithm.pb.h"

namespace fedmf::algorithms {

// V (m x k) of `model`, a published round plan; its contributor's errors (a plan it refuses), or
// InvalidArgument naming the algorithm when the plan carries no factor model (e.g. a popularity
// count or a graph filter).
absl::StatusOr<mf::FactorMatrix> PublishedItemFactors(const v1::RoundPlan& model);

// InvalidArgument naming `algorithm`, both shapes and the option to change unless `v` is
// num_items x rank with finite entries.
absl::Status CheckStartItemFactors(const mf::FactorMatrix& v, int64_t num_items, int64_t rank,
                                   absl::string_view algorithm);

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_START_MODEL_H_
