// Registers privirec (privirec.h) with the algorithm registry (registry.h). Its options and the
// factory of a fresh run are in new_run.cc.
#include <memory>
#include <string>

#include "common/algorithms/privirec/contributor.h"
#include "common/algorithms/privirec/privirec.h"
#include "common/algorithms/privirec/updater.h"
#include "common/algorithms/registry.h"

namespace fedmf::algorithms::privirec {
namespace {

const AlgorithmRegistrar kRegistrar({
    .name = std::string(kAlgorithmName),
    .doc = "PriviRec: item degrees and the normalized Gram matrix as secure sums over a fixed "
           "population, each client scoring with a graph filter (the option filter)",
    // The graph filters' papers: Recall@20 and NDCG@20 over every unseen item, implicit feedback.
    .hosting = Hosting::kUsers,
    .ranking = {.top_n = 20, .relevance_threshold = 1},
    .make_contributor = AsFactory<Contributor>(&PriviRecContributor::Create),
    .restore_updater = AsFactory<Updater>(&PriviRecUpdater::Restore),
});

}  // namespace
}  // namespace fedmf::algorithms::privirec
