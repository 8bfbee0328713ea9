// Registers lfl-sgdmf with the algorithm registry (registry.h). Its options and the factory of
// fresh runs are in new_run.cc.
#include "common/algorithms/lfl_sgdmf/contributor.h"
#include "common/algorithms/lfl_sgdmf/lfl_sgdmf.h"
#include "common/algorithms/lfl_sgdmf/updater.h"
#include "common/algorithms/registry.h"

namespace fedmf::algorithms::lfl_sgdmf {
namespace {

const AlgorithmRegistrar kRegistrar(
    {.name = std::string(kAlgorithmName),
     .doc = "LFL-SGDMF (FMF privacy paper, Sec. 6): every user pre-trains u_i on the device, then "
            "sends one rating's item gradient plus Gaussian noise through SecAgg; the survivors "
            "replace most of that noise in a second phase (two-phase dropout-tolerant noise)",
     .hosting = Hosting::kUsers,
     .ranking = {.top_n = 10, .relevance_threshold = 4},
     .make_contributor = AsFactory<Contributor>(&LflSgdmfContributor::Create),
     .restore_updater = AsFactory<Updater>(&LflSgdmfUpdater::Restore)});

}  // namespace
}  // namespace fedmf::algorithms::lfl_sgdmf
