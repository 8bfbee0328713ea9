#include "common/algorithms/registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace fedmf::algorithms {
namespace {

// Filled during static initialization, read by any thread afterwards (and by tests that
// register more): every access holds `mu`. Entries are never removed, so pointers stay valid.
struct Registry {
  std::mutex mu;
  std::map<std::string, AlgorithmDefinition> by_name;
};

Registry& TheRegistry() {
  static Registry* registry = new Registry;
  return *registry;
}

// `training_only`: name only the algorithms with an updater.
absl::Status Unknown(absl::string_view name,
                     const std::map<std::string, AlgorithmDefinition>& known,
                     bool training_only = false) {
  std::vector<absl::string_view> names;
  for (const auto& [known_name, definition] : known) {
    if (!training_only || !definition.contributor_only()) names.push_back(known_name);
  }
  return absl::NotFoundError(
      absl::StrCat("unknown algorithm '", name, "' (known: ", absl::StrJoin(names, ", "), ")"));
}

}  // namespace

absl::Status RegisterAlgorithm(AlgorithmDefinition definition) {
  const auto refuse = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("algorithm '", definition.name, "' not registered: ", why));
  };
  if (definition.name.empty()) return refuse("empty name");
  if (definition.doc.empty()) return refuse("empty doc line");
  if (absl::Status s = definition.ranking.Validate(); !s.ok()) {
    return refuse(absl::StrCat("ranking options: ", s.message()));
  }
  if (!definition.make_contributor) return refuse("no contributor factory");
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  const std::string name = definition.name;
  if (!registry.by_name.try_emplace(name, std::move(definition)).second) {
    return absl::AlreadyExistsError(absl::StrCat("algorithm '", name, "' is registered twice"));
  }
  return absl::OkStatus();
}

AlgorithmRegistrar::AlgorithmRegistrar(AlgorithmDefinition definition) {
  if (absl::Status s = RegisterAlgorithm(std::move(definition)); !s.ok()) {
    std::fprintf(stderr, "fedmf: %s\n", s.ToString().c_str());
    std::abort();
  }
}

absl::StatusOr<const AlgorithmDefinition*> FindAlgorithm(absl::string_view name) {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  const auto it = registry.by_name.find(std::string(name));
  if (it == registry.by_name.end()) return Unknown(name, registry.by_name);
  return &it->second;
}

absl::StatusOr<const AlgorithmDefinition*> FindTrainingAlgorithm(absl::string_view name) {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  const auto it = registry.by_name.find(std::string(name));
  if (it == registry.by_name.end() || it->second.contributor_only()) {
    return Unknown(name, registry.by_name, /*training_only=*/true);
  }
  return &it->second;
}

std::vector<const AlgorithmDefinition*> RegisteredAlgorithms() {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  std::vector<const AlgorithmDefinition*> definitions;
  for (const auto& [name, definition] : registry.by_name) definitions.push_back(&definition);
  return definitions;
}

std::string DescribeAlgorithms() {
  std::vector<const AlgorithmDefinition*> definitions = RegisteredAlgorithms();
  std::erase_if(definitions, [](const AlgorithmDefinition* d) { return d->contributor_only(); });
  size_t width = 0;
  for (const AlgorithmDefinition* d : definitions) width = std::max(width, d->name.size());
  std::string lines;
  for (const AlgorithmDefinition* d : definitions) {
    absl::StrAppend(&lines, "  ", d->name, std::string(width - d->name.size() + 2, ' '), d->doc,
                    "\n");
  }
  return lines;
}

absl::StatusOr<std::unique_ptr<Contributor>> MakeContributor(const v1::RoundPlan& plan) {
  absl::StatusOr<const AlgorithmDefinition*> algorithm = FindAlgorithm(plan.algorithm());
  if (!algorithm.ok()) return algorithm.status();
  return (*algorithm)->make_contributor(plan);
}

absl::StatusOr<std::unique_ptr<Updater>> RestoreUpdater(absl::string_view algorithm,
                                                        absl::string_view state) {
  absl::StatusOr<const AlgorithmDefinition*> definition = FindAlgorithm(algorithm);
  if (!definition.ok()) return definition.status();
  if ((*definition)->contributor_only()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "algorithm '", algorithm, "' is contributor-only: it has no updater to restore"));
  }
  return (*definition)->restore_updater(state);
}

}  // namespace fedmf::algorithms
