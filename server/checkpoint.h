// The coordinator's persisted state: the updater (model, optimizer moments, round), the privacy
// ledger, the rounds done, the sampling seed (the cohort RNG is re-derived from it per round) and
// a fixed-population run's population and the run as it started (run_spec.h), in one file
// <state_dir>/checkpoint.pb replaced atomically after every completed round.
#ifndef FEDMF_SERVER_CHECKPOINT_H_
#define FEDMF_SERVER_CHECKPOINT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "common/dp/privacy_ledger.h"
#include "fedmf/v1/run_spec.pb.h"
#include "server/population.h"

namespace fedmf::server {

struct CoordinatorState {
  std::string algorithm;
  std::unique_ptr<algorithms::Updater> updater;
  dp::PrivacyLedger ledger;
  uint64_t sampling_seed = 0;
  int64_t total_rounds = 0;
  FixedPopulation population;  // a fixed-population run's, once frozen (population.h)
  // The options the run started with, in text format (options.h OptionsText); empty for a run
  // from before they were recorded.
  std::string options = {};
  // The run as it started (run_spec.h RecordedRunSpec); unset for a run from before runs were
  // recorded.
  std::optional<v1::RunSpec> run_spec = std::nullopt;
};

std::string CheckpointPath(const std::string& state_dir);

// Creates state_dir if needed and writes the checkpoint atomically.
absl::Status SaveCheckpoint(const std::string& state_dir, const CoordinatorState& state);

// nullopt when there is no checkpoint yet; an error (naming the file) when it is unreadable or
// inconsistent (e.g. a population for an updater that samples its cohorts).
absl::StatusOr<std::optional<CoordinatorState>> LoadCheckpoint(const std::string& state_dir);

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_CHECKPOINT_H_
