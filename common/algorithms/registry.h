// The registry of federated algorithms, so the runtime builds a contributor from any round plan,
// restores any updater from its checkpoint and evaluates any model without naming an algorithm.
// Each algorithm registers itself from its own folder (<algorithm>/registration.cc) with a static
// AlgorithmRegistrar; nothing outside the folder changes when one is added (docs/algorithms.md).
// Registering a name twice, or a definition with a missing part, ends the process at startup
// with a message naming the algorithm. A contributor-only algorithm (no updater, e.g. the
// federated evaluation of another algorithm's model) trains no model of its own.
#ifndef FEDMF_COMMON_ALGORITHMS_REGISTRY_H_
#define FEDMF_COMMON_ALGORITHMS_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/algorithm.h"
#include "common/metrics/metrics.h"
#include "fedmf/v1/algorithm.pb.h"

namespace fedmf::algorithms {

// Who hosts an algorithm's participants, i.e. whose contributions its rounds take. A runtime that
// knows its hosting before the first round (fedmf-sim) refuses an algorithm that cannot run with
// it at start; fedmf-coordinator learns its clients' hosting only from their registrations, so
// there a mismatch shows as the participants refusing the plan (their contributor's error).
enum class Hosting {
  kUsers,              // users, each its own participant (fedmf-client --shard/--users, the
                       // mobile library, fedmf-sim's users)
  kHorizontalParties,  // HFL silo parties, each a block of the users with every item
                       // (fedmf-client --party=hfl:I/N, fedmf-sim --parties=hfl:N)
  kVerticalParties,    // VFL silo parties, each every user with a block of the items
                       // (--party=vfl:I/N or vfl-genre:I/N, fedmf-sim --parties=vfl:N, vfl-genre:N)
  kUsersOrParties,     // users and silo parties of either kind alike
};

// What every binary needs of an algorithm. The flags and the factory of a fresh run are
// registered apart (new_run.h): clients and the mobile library carry no training flags.
struct AlgorithmDefinition {
  // RoundPlan.algorithm, the checkpoint's algorithm and --algorithm, e.g. "dpmf-rp".
  std::string name;
  // One line for --help: what the algorithm is (paper, model, noise).
  std::string doc;
  // Who contributes to its rounds (Hosting above).
  Hosting hosting = Hosting::kUsers;
  // Top N and relevance threshold of the federated and the simulation evaluation.
  metrics::RankingOptions ranking;
  // Validates everything in the plan (it comes from the network).
  std::function<absl::StatusOr<std::unique_ptr<Contributor>>(const v1::RoundPlan& plan)>
      make_contributor;
  // `state` is what the algorithm's Updater::SerializeState() returned. Empty for a
  // contributor-only algorithm.
  std::function<absl::StatusOr<std::unique_ptr<Updater>>(absl::string_view state)> restore_updater;

  // No updater: its phases evaluate or query another algorithm's model and train none, so a
  // client's model (for recommendations and its saved state) stays that of its last phase of
  // an algorithm with an updater.
  bool contributor_only() const { return !restore_updater; }
};

// `factory` (e.g. &MyContributor::Create, returning a StatusOr of the derived class) as the
// registry's factory of `Base` (Contributor or Updater), for AlgorithmDefinition's fields.
template <typename Base, typename Derived, typename Arg>
std::function<absl::StatusOr<std::unique_ptr<Base>>(Arg)> AsFactory(
    absl::StatusOr<std::unique_ptr<Derived>> (*factory)(Arg)) {
  return [factory](Arg arg) -> absl::StatusOr<std::unique_ptr<Base>> {
    absl::StatusOr<std::unique_ptr<Derived>> made = factory(arg);
    if (!made.ok()) return made.status();
    return std::unique_ptr<Base>(*std::move(made));
  };
}

// AlreadyExists when the name is taken; InvalidArgument for an empty name or doc line, invalid
// ranking options or a missing contributor factory.
absl::Status RegisterAlgorithm(AlgorithmDefinition definition);

// Registers at static initialization: `static const AlgorithmRegistrar registrar({...});`.
// A refused registration prints the reason to stderr and aborts.
class AlgorithmRegistrar {
 public:
  explicit AlgorithmRegistrar(AlgorithmDefinition definition);
};

// NotFound naming the registered algorithms when `name` is not one of them. The definition lives
// as long as the process.
absl::StatusOr<const AlgorithmDefinition*> FindAlgorithm(absl::string_view name);

// FindAlgorithm among the algorithms with an updater (what --algorithm can name): NotFound
// naming those for any other name, a contributor-only algorithm's too.
absl::StatusOr<const AlgorithmDefinition*> FindTrainingAlgorithm(absl::string_view name);

// Every registered algorithm, ordered by name.
std::vector<const AlgorithmDefinition*> RegisteredAlgorithms();

// One line per registered algorithm with an updater (what --algorithm can name), "  NAME  DOC"
// with the names padded to one width, ordered by name: the list --help shows.
std::string DescribeAlgorithms();

// The contributor of plan.algorithm(); NotFound for an unknown algorithm, otherwise the
// algorithm's own validation.
absl::StatusOr<std::unique_ptr<Contributor>> MakeContributor(const v1::RoundPlan& plan);

// `state` is what Updater::SerializeState() returned for an updater of `algorithm`; NotFound for
// an unknown algorithm, FailedPrecondition for a contributor-only one.
absl::StatusOr<std::unique_ptr<Updater>> RestoreUpdater(absl::string_view algorithm,
                                                        absl::string_view state);

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_REGISTRY_H_
