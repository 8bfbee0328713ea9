// Registers hdpmf with the algorithm registry (registry.h). Its baselines (DPMF, non-private MF)
// are variants of its configuration (the option variant), one implementation. Its options
// (fedmf.v1.HdpmfOptions) and the factory of fresh runs are in new_run.cc.
#include <string>

#include "common/algorithms/hdpmf/contributor.h"
#include "common/algorithms/hdpmf/hdpmf.h"
#include "common/algorithms/hdpmf/updater.h"
#include "common/algorithms/registry.h"

namespace fedmf::algorithms::hdpmf {
namespace {

const AlgorithmRegistrar kRegistrar({
    .name = std::string(kName),
    .doc = "HDPMF (Hu and Fang, heterogeneous-DP MF): item gradients with distributed Laplace "
           "noise shares through SecAgg; paper mode (stretching, per rating) or sound mode "
           "(per user, beta_i-scaled clip)",
    .hosting = Hosting::kUsers,
    .ranking = {.top_n = 10, .relevance_threshold = 4},
    .make_contributor = AsFactory<Contributor>(&HdpmfContributor::Create),
    .restore_updater = AsFactory<Updater>(&HdpmfUpdater::Restore),
});

}  // namespace
}  // namespace fedmf::algorithms::hdpmf
