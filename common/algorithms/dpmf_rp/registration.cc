// Registers DPMF-RP with the algorithm registry (registry.h): its contributor, the restore of its
// updater, its evaluation defaults (the paper's Appendix H) and its --help line. Its options and
// the factory of a fresh run are in new_run.cc.
#include <memory>

#include "common/algorithms/dpmf_rp/config.h"
#include "common/algorithms/dpmf_rp/contributor.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "common/algorithms/registry.h"
#include "common/metrics/metrics.h"

namespace fedmf::algorithms::dpmf_rp {
namespace {

const AlgorithmRegistrar kRegistrar({
    .name = std::string(kAlgorithmName),
    .doc = "DPMF-RP: matrix factorization, sparse random projection of the item gradients, "
           "PBM / Gaussian / distributed discrete Gaussian / no noise, Adam on the server",
    .hosting = Hosting::kUsers,
    .ranking = metrics::kDpmfRpRanking,
    .make_contributor = AsFactory<Contributor>(&DpmfRpContributor::Create),
    .restore_updater = AsFactory<Updater>(&DpmfRpUpdater::Restore),
});

}  // namespace
}  // namespace fedmf::algorithms::dpmf_rp
