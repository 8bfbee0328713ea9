// Registers vfl-sgdmf (contributor.h, updater.h) with the algorithm registry (registry.h). Its
// options and the factory of a fresh run are in new_run.cc.
#include <string>

#include "common/algorithms/registry.h"
#include "common/algorithms/vfl_sgdmf/config.h"
#include "common/algorithms/vfl_sgdmf/contributor.h"
#include "common/algorithms/vfl_sgdmf/updater.h"

namespace fedmf::algorithms::vfl_sgdmf {
namespace {

const AlgorithmRegistrar kRegistrar({
    .name = std::string(kAlgorithmName),
    .doc = "VFL-SGDMF (Li et al., VLDB 2022): s VFL parties (fedmf-client --party=vfl:I/S) "
           "average their DP-SGD user embeddings; item embeddings stay with their party",
    .hosting = Hosting::kVerticalParties,
    .ranking = {.top_n = 10, .relevance_threshold = 4},
    .make_contributor = AsFactory<Contributor>(&VflSgdmfContributor::Create),
    .restore_updater = AsFactory<Updater>(&VflSgdmfUpdater::Restore),
});

}  // namespace
}  // namespace fedmf::algorithms::vfl_sgdmf
