// Registers hfl-sgdmf (contributor.h, updater.h) with the algorithm registry (registry.h). Its
// options and the factory of a fresh run are in new_run.cc.
#include <string>

#include "common/algorithms/hfl_sgdmf/contributor.h"
#include "common/algorithms/hfl_sgdmf/run_config.h"
#include "common/algorithms/hfl_sgdmf/updater.h"
#include "common/algorithms/registry.h"

namespace fedmf::algorithms::hfl_sgdmf {
namespace {

const AlgorithmRegistrar kRegistrar({
    .name = std::string(kAlgorithmName),
    .doc = "HFL-SGDMF (Li et al., VLDB 2022): s HFL parties (fedmf-client --party=hfl:I/S) "
           "average their DP-SGD item embeddings (--set mode=syn-sgd: sum their noisy gradients "
           "every step); user embeddings stay with their party",
    .hosting = Hosting::kHorizontalParties,
    .ranking = {.top_n = 10, .relevance_threshold = 4},
    .make_contributor = AsFactory<Contributor>(&HflSgdmfContributor::Create),
    .restore_updater = AsFactory<Updater>(&HflSgdmfUpdater::Restore),
});

}  // namespace
}  // namespace fedmf::algorithms::hfl_sgdmf
