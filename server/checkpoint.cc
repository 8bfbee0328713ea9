#include "server/checkpoint.h"

#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/registry.h"
#include "common/dp/ledger_text_format.h"
#include "common/util/atomic_file.h"
#include "fedmf/v1/federation.pb.h"

namespace fedmf::server {

std::string CheckpointPath(const std::string& state_dir) {
  return (std::filesystem::path(state_dir) / "checkpoint.pb").string();
}

absl::Status SaveCheckpoint(const std::string& state_dir, const CoordinatorState& state) {
  std::error_code error;
  std::filesystem::create_directories(state_dir, error);
  if (error) {
    return absl::InternalError(absl::StrCat("cannot create ", state_dir, ": ", error.message()));
  }
  absl::StatusOr<std::string> updater = state.updater->SerializeState();
  if (!updater.ok()) return updater.status();
  v1::CoordinatorCheckpoint checkpoint;
  checkpoint.set_algorithm(state.algorithm);
  checkpoint.set_updater_state(std::move(*updater));
  checkpoint.set_ledger(dp::SerializeLedger(state.ledger));
  checkpoint.set_rounds_done(state.updater->round());
  checkpoint.set_sampling_seed(state.sampling_seed);
  checkpoint.set_total_rounds(state.total_rounds);
  checkpoint.mutable_population()->Add(state.population.members().begin(),
                                       state.population.members().end());
  checkpoint.set_options(state.options);
  if (state.run_spec.has_value()) *checkpoint.mutable_run_spec() = *state.run_spec;
  return WriteFileAtomically(CheckpointPath(state_dir), checkpoint.SerializeAsString());
}

absl::StatusOr<std::optional<CoordinatorState>> LoadCheckpoint(const std::string& state_dir) {
  const std::string path = CheckpointPath(state_dir);
  if (!std::filesystem::exists(path)) return std::nullopt;
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  v1::CoordinatorCheckpoint checkpoint;
  if (!checkpoint.ParseFromString(*bytes)) {
    return absl::DataLossError(absl::StrCat(path, ": not a CoordinatorCheckpoint"));
  }
  absl::StatusOr<std::unique_ptr<algorithms::Updater>> updater =
      algorithms::RestoreUpdater(checkpoint.algorithm(), checkpoint.updater_state());
  if (!updater.ok()) {
    return absl::DataLossError(absl::StrCat(path, ": updater: ", updater.status().ToString()));
  }
  absl::StatusOr<dp::PrivacyLedger> ledger = dp::ParseLedger(checkpoint.ledger());
  if (!ledger.ok()) {
    return absl::DataLossError(absl::StrCat(path, ": ledger: ", ledger.status().ToString()));
  }
  if ((*updater)->round() != checkpoint.rounds_done()) {
    return absl::DataLossError(absl::StrCat(path, ": rounds_done ", checkpoint.rounds_done(),
                                            " but the updater is at round ", (*updater)->round()));
  }
  FixedPopulation population;
  if (!checkpoint.population().empty()) {
    if (!(*updater)->fixed_population()) {
      return absl::DataLossError(
          absl::StrCat(path, ": a fixed population for an algorithm that samples its cohorts"));
    }
    absl::StatusOr<FixedPopulation> restored = FixedPopulation::Restore(
        std::vector<uint32_t>(checkpoint.population().begin(), checkpoint.population().end()));
    if (!restored.ok()) {
      return absl::DataLossError(absl::StrCat(path, ": population: ", restored.status().message()));
    }
    population = *std::move(restored);
  }
  return CoordinatorState{checkpoint.algorithm(),    std::move(*updater),
                          std::move(*ledger),        checkpoint.sampling_seed(),
                          checkpoint.total_rounds(), std::move(population),
                          checkpoint.options(),
                          checkpoint.has_run_spec() ? std::optional(checkpoint.run_spec())
                                                    : std::nullopt};
}

}  // namespace fedmf::server
