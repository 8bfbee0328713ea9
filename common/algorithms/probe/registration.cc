// Registers the contract probe (probe.h) with the algorithm registry (registry.h). Its flags and
// the factory of a fresh run are in flags.cc.
#include <memory>
#include <string>

#include "common/algorithms/probe/contributor.h"
#include "common/algorithms/probe/probe.h"
#include "common/algorithms/probe/updater.h"
#include "common/algorithms/registry.h"
#include "common/metrics/metrics.h"

namespace fedmf::algorithms::probe {
namespace {

absl::StatusOr<std::unique_ptr<Contributor>> MakeProbeContributor(const v1::RoundPlan& plan) {
  absl::StatusOr<std::unique_ptr<ProbeContributor>> contributor = ProbeContributor::Create(plan);
  if (!contributor.ok()) return contributor.status();
  return std::unique_ptr<Contributor>(*std::move(contributor));
}

absl::StatusOr<std::unique_ptr<Updater>> RestoreProbeUpdater(absl::string_view state) {
  absl::StatusOr<std::unique_ptr<ProbeUpdater>> updater = ProbeUpdater::Restore(state);
  if (!updater.ok()) return updater.status();
  return std::unique_ptr<Updater>(*std::move(updater));
}

const AlgorithmRegistrar kRegistrar({
    .name = std::string(kAlgorithmName),
    .doc = "TEST-ONLY contract probe: local-DP item popularity (k-ary RR) in two phases, "
           "participant state, silo parties, own budgets (docs/algorithms.md)",
    .ranking = {.top_n = 10, .relevance_threshold = 4},
    .make_contributor = MakeProbeContributor,
    .restore_updater = RestoreProbeUpdater,
});

}  // namespace
}  // namespace fedmf::algorithms::probe
