// Registers ldp-gd (Private GD) and ldp-gd-dr (Private GD-DR) with the algorithm registry
// (registry.h): one implementation, the projection a setting of its configuration. Their options
// (one message, fedmf.v1.LdpGdOptions) and the factories of fresh runs are in new_run.cc.
#include <string>

#include "common/algorithms/ldp_gd/contributor.h"
#include "common/algorithms/ldp_gd/ldp_gd.h"
#include "common/algorithms/ldp_gd/updater.h"
#include "common/algorithms/registry.h"

namespace fedmf::algorithms::ldp_gd {
namespace {

AlgorithmDefinition Definition(absl::string_view name, std::string doc) {
  return {.name = std::string(name),
          .doc = std::move(doc),
          .hosting = Hosting::kUsers,
          .ranking = {.top_n = 10, .relevance_threshold = 4},
          .make_contributor = AsFactory<Contributor>(&LdpGdContributor::Create),
          .restore_updater = AsFactory<Updater>(&LdpGdUpdater::Restore)};
}

const AlgorithmRegistrar kPrivateGdRegistrar(Definition(
    kPrivateGd,
    "Private GD (Shin et al., local-DP MF, Algorithm 1): each user reports one coordinate of "
    "the m x d item gradient by binary randomized response, pure eps/k-LDP per round"));
const AlgorithmRegistrar kPrivateGdDrRegistrar(Definition(
    kPrivateGdDr,
    "Private GD-DR (Shin et al., Algorithm 2): the one-coordinate report of the q x d random "
    "projection Phi grad, recovered by Phi^+ (paper) or a fresh Phi_t^T (unbiased)"));

}  // namespace
}  // namespace fedmf::algorithms::ldp_gd
