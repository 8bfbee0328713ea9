// The one place that maps an algorithm name to its classes, so the runtime builds a contributor
// from any round plan and restores any updater from its persisted state without knowing which
// algorithm runs. Adding an algorithm adds a case here and nothing to the protocol.
#ifndef FEDMF_COMMON_ALGORITHMS_REGISTRY_H_
#define FEDMF_COMMON_ALGORITHMS_REGISTRY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/algorithm.h"
#include "fedmf/v1/algorithm.pb.h"

namespace fedmf::algorithms {

// NotFound for an unknown plan.algorithm(); otherwise the algorithm's own validation.
absl::StatusOr<std::unique_ptr<Contributor>> MakeContributor(const v1::RoundPlan& plan);

// `state` is what Updater::SerializeState() returned for an updater of `algorithm`.
absl::StatusOr<std::unique_ptr<Updater>> RestoreUpdater(absl::string_view algorithm,
                                                        absl::string_view state);

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_REGISTRY_H_
