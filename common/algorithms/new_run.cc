#include "common/algorithms/new_run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace fedmf::algorithms {
namespace {

struct Registered {
  std::unique_ptr<google::protobuf::Message> default_options;
  NewRunFactory factory;
  NewRunDefaults defaults;
};

// Filled during static initialization, read afterwards; every access holds `mu`.
struct Factories {
  std::mutex mu;
  std::map<std::string, Registered> by_algorithm;
};

Factories& TheFactories() {
  static Factories* factories = new Factories;
  return *factories;
}

}  // namespace

absl::Status RegisterNewRunFactory(absl::string_view algorithm,
                                   const google::protobuf::Message& default_options,
                                   NewRunFactory factory, NewRunDefaults defaults) {
  if (algorithm.empty() || !factory) {
    return absl::InvalidArgumentError(
        absl::StrCat("new-run factory of algorithm '", algorithm,
                     "' not registered: ", algorithm.empty() ? "empty name" : "no factory"));
  }
  if (defaults.rounds < 1) {
    return absl::InvalidArgumentError(absl::StrCat("new-run factory of algorithm '", algorithm,
                                                   "' not registered: default rounds ",
                                                   defaults.rounds, " < 1"));
  }
  if (absl::Status s = ValidateOutlookPoints(defaults.outlook_points); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("new-run factory of algorithm '", algorithm,
                                                   "' not registered: ", s.message()));
  }
  Factories& factories = TheFactories();
  std::lock_guard<std::mutex> lock(factories.mu);
  std::unique_ptr<google::protobuf::Message> options(default_options.New());
  options->CopyFrom(default_options);
  if (!factories.by_algorithm
           .try_emplace(std::string(algorithm),
                        Registered{std::move(options), std::move(factory), std::move(defaults)})
           .second) {
    return absl::AlreadyExistsError(
        absl::StrCat("new-run factory of algorithm '", algorithm, "' is registered twice"));
  }
  return absl::OkStatus();
}

NewRunRegistrar::NewRunRegistrar(absl::string_view algorithm,
                                 const google::protobuf::Message& default_options,
                                 NewRunFactory factory, NewRunDefaults defaults) {
  if (absl::Status s = RegisterNewRunFactory(algorithm, default_options, std::move(factory),
                                             std::move(defaults));
      !s.ok()) {
    std::fprintf(stderr, "fedmf: %s\n", s.ToString().c_str());
    std::abort();
  }
}

int64_t SampledCohort(const RunSettings& run) {
  const double cohort = std::round(run.participation.value_or(kDefaultParticipation) *
                                   static_cast<double>(run.num_users));
  return std::max<int64_t>(1, static_cast<int64_t>(cohort));
}

int64_t LocalDpMinContributors(const RunSettings& run) {
  return std::max<int64_t>(1, run.min_clients);
}

absl::Status RequirePureEpsilon(const RunSettings& run, absl::string_view algorithm) {
  if (!run.delta.has_value() || *run.delta == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      algorithm, ": --delta=", *run.delta, "; its budget is pure epsilon (--delta=0 or unset)"));
}

absl::StatusOr<NewRun> StartNewRun(absl::string_view algorithm, const RunSettings& settings,
                                   const google::protobuf::Message& options) {
  NewRunFactory factory;
  {
    Factories& factories = TheFactories();
    std::lock_guard<std::mutex> lock(factories.mu);
    const auto it = factories.by_algorithm.find(std::string(algorithm));
    if (it == factories.by_algorithm.end()) {
      return absl::FailedPreconditionError(
          absl::StrCat("algorithm '", algorithm,
                       "' cannot start a run in this binary (no new-run factory linked)"));
    }
    factory = it->second.factory;
  }
  if (settings.start_item_factors.has_value()) {
    if (absl::Status s = CheckStartsFromItemFactors(algorithm); !s.ok()) return s;
  }
  return factory(settings, options);
}

absl::Status CheckStartsFromItemFactors(absl::string_view algorithm) {
  Factories& factories = TheFactories();
  std::lock_guard<std::mutex> lock(factories.mu);
  const auto it = factories.by_algorithm.find(std::string(algorithm));
  if (it != factories.by_algorithm.end() && it->second.defaults.starts_from_item_factors) {
    return absl::OkStatus();
  }
  std::vector<std::string> able;
  for (const auto& [name, registered] : factories.by_algorithm) {
    if (registered.defaults.starts_from_item_factors) able.push_back(name);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("algorithm '", algorithm, "' cannot start from a published model; these can: ",
                   able.empty() ? "none" : absl::StrJoin(able, ", ")));
}

NewRunDefaults RegisteredNewRunDefaults(absl::string_view algorithm) {
  Factories& factories = TheFactories();
  std::lock_guard<std::mutex> lock(factories.mu);
  const auto it = factories.by_algorithm.find(std::string(algorithm));
  return it == factories.by_algorithm.end() ? NewRunDefaults{} : it->second.defaults;
}

absl::StatusOr<const google::protobuf::Message*> RegisteredDefaultOptions(
    absl::string_view algorithm) {
  {
    Factories& factories = TheFactories();
    std::lock_guard<std::mutex> lock(factories.mu);
    const auto it = factories.by_algorithm.find(std::string(algorithm));
    if (it != factories.by_algorithm.end()) return it->second.default_options.get();
  }
  return absl::FailedPreconditionError(
      absl::StrCat("algorithm '", algorithm,
                   "' cannot start a run in this binary (no new-run factory linked; these can: ",
                   absl::StrJoin(NewRunAlgorithms(), ", "), ")"));
}

std::vector<std::string> NewRunAlgorithms() {
  Factories& factories = TheFactories();
  std::lock_guard<std::mutex> lock(factories.mu);
  std::vector<std::string> names;
  for (const auto& [name, registered] : factories.by_algorithm) names.push_back(name);
  return names;
}

}  // namespace fedmf::algorithms
