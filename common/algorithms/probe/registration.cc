// Registers the contract probe (probe.h) with the algorithm registry (registry.h). Its options and
// the factory of a fresh run are in new_run.cc.
#include <memory>
#include <string>

#include "common/algorithms/probe/contributor.h"
#include "common/algorithms/probe/probe.h"
#include "common/algorithms/probe/updater.h"
#include "common/algorithms/registry.h"
#include "common/metrics/metrics.h"

namespace fedmf::algorithms::probe {
namespace {

const AlgorithmRegistrar kRegistrar({
    .name = std::string(kAlgorithmName),
    .doc = "TEST-ONLY contract probe: local-DP item popularity (k-ary RR) in two phases, "
           "participant state, silo parties, own budgets (docs/algorithms.md)",
    .hosting = Hosting::kUsersOrParties,
    .ranking = {.top_n = 10, .relevance_threshold = 4},
    .make_contributor = AsFactory<Contributor>(&ProbeContributor::Create),
    .restore_updater = AsFactory<Updater>(&ProbeUpdater::Restore),
});

}  // namespace
}  // namespace fedmf::algorithms::probe
