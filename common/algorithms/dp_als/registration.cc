// Registers dp-als (config.h) with the algorithm registry (registry.h). Its options and the
// factory of a fresh run are in new_run.cc.
#include <string>

#include "common/algorithms/dp_als/config.h"
#include "common/algorithms/dp_als/contributor.h"
#include "common/algorithms/dp_als/updater.h"
#include "common/algorithms/registry.h"

namespace fedmf::algorithms::dp_als {
namespace {

const AlgorithmRegistrar kRegistrar({
    .name = std::string(kAlgorithmName),
    .doc = "DP-ALS: federated private alternating least squares (Chien et al. 2021): users solve "
           "their own factors, the item side from noisy secure sums of per-item statistics",
    // DPMF-RP's evaluation: the results compare the two.
    .hosting = Hosting::kUsers,
    .ranking = metrics::kDpmfRpRanking,
    .make_contributor = AsFactory<Contributor>(&DpAlsContributor::Create),
    .restore_updater = AsFactory<Updater>(&DpAlsUpdater::Restore),
});

}  // namespace
}  // namespace fedmf::algorithms::dp_als
