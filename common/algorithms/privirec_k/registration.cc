// Registers privirec-k (privirec_k.h) with the algorithm registry (registry.h). Its options and the
// factory of a fresh run are in new_run.cc.
#include <memory>
#include <string>

#include "common/algorithms/privirec_k/contributor.h"
#include "common/algorithms/privirec_k/privirec_k.h"
#include "common/algorithms/privirec_k/updater.h"
#include "common/algorithms/registry.h"

namespace fedmf::algorithms::privirec_k {
namespace {

const AlgorithmRegistrar kRegistrar({
    .name = std::string(kAlgorithmName),
    .doc = "PriviRec-k: item degrees and L steps of the distributed power method as secure sums "
           "over a fixed population, each client scoring with GF-CF from the rank-k basis",
    // The graph filters' papers: Recall@20 and NDCG@20 over every unseen item, implicit feedback.
    .hosting = Hosting::kUsers,
    .ranking = {.top_n = 20, .relevance_threshold = 1},
    .make_contributor = AsFactory<Contributor>(&PriviRecKContributor::Create),
    .restore_updater = AsFactory<Updater>(&PriviRecKUpdater::Restore),
});

}  // namespace
}  // namespace fedmf::algorithms::privirec_k
