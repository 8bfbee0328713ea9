// Registers the federated evaluation with the algorithm registry (registry.h): a contributor and
// no updater (the coordinator builds its plans and decodes its sums itself:
// server/federated_evaluator.h), and no flags or fresh run.
#include <memory>
#include <string>

#include "common/algorithms/federated_evaluation/contributor.h"
#include "common/algorithms/federated_evaluation/plan.h"
#include "common/algorithms/registry.h"

namespace fedmf::algorithms::federated_evaluation {
namespace {

const AlgorithmRegistrar kRegistrar({
    .name = std::string(kAlgorithmName),
    .doc = "metric sums of another algorithm's model over a cohort's test ratings, secure-summed "
           "(the coordinator's evaluation phase, --eval_every; not a training algorithm)",
    .hosting = Hosting::kUsersOrParties,
    .ranking = {},  // unused: each plan carries the evaluated algorithm's
    .make_contributor = AsFactory<Contributor>(&FederatedEvaluationContributor::Create),
    .restore_updater = nullptr,
});

}  // namespace
}  // namespace fedmf::algorithms::federated_evaluation
