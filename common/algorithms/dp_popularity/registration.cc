// Registers dp-popularity (dp_popularity.h) with the algorithm registry (registry.h). Its options
// (fedmf.v1.DpPopularityOptions) and the factory of a fresh run are in new_run.cc.
#include <memory>
#include <string>

#include "common/algorithms/dp_popularity/contributor.h"
#include "common/algorithms/dp_popularity/dp_popularity.h"
#include "common/algorithms/dp_popularity/updater.h"
#include "common/algorithms/registry.h"

namespace fedmf::algorithms::dp_popularity {
namespace {

const AlgorithmRegistrar kRegistrar({
    .name = std::string(kAlgorithmName),
    .doc = "baseline: item popularity counted once through SecAgg with distributed discrete "
           "Gaussian noise, at most max_items (an option) items per user (docs/algorithms.md)",
    .hosting = Hosting::kUsers,
    .ranking = {.top_n = 10, .relevance_threshold = 4},
    .make_contributor = AsFactory<Contributor>(&DpPopularityContributor::Create),
    .restore_updater = AsFactory<Updater>(&DpPopularityUpdater::Restore),
});

}  // namespace
}  // namespace fedmf::algorithms::dp_popularity
