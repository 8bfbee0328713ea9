// fedmf-sim's core: runs a Coordinator to the end with every user of a dataset hosted by
// in-process client processes (in_process_client.h), user u in process u % N as fedmf-client
// --shard=u%N/N would host it, each user's noise keyed from (noise_seed, participant id). The
// result is the networked run's for the same seeds and cohorts (tests/integration/runtime_test.sh
// sim_*), whatever N or the thread timing. Built on a ProgressClock (progress_clock.h) that the
// clients are given, the coordinator's stage deadlines wait on the clients' progress, not the wall
// clock: a slow round completes instead of timing out. With silo parties (options.parties) the
// client processes are the parties instead, party I hosted as fedmf-client --party=KIND:I/N hosts
// it (client::HostParty): the networked party run's result for the same seeds.
#ifndef FEDMF_TOOLS_SIM_SIMULATION_H_
#define FEDMF_TOOLS_SIM_SIMULATION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/party_spec.h"
#include "common/algorithms/algorithm.h"
#include "common/data/ratings_dataset.h"
#include "common/mf/factor_model.h"
#include "server/coordinator.h"
#include "server/in_process_cluster.h"
#include "tools/sim/progress_clock.h"
#include "wire/chunking.h"

namespace fedmf::sim {

struct SimulationOptions {
  int client_processes = 8;  // N worker threads (at most one per user); unused with parties
  // Silo parties to host instead of users (client/party_spec.h), one client process each; empty:
  // the users. `item_genres` and `data_spec` are fedmf-client's --item_genres and --data, read by
  // vfl-genre parties.
  std::vector<client::PartySpec> parties;
  std::string item_genres;
  std::string data_spec;
  uint64_t noise_seed = 1;  // dp::Rng(noise_seed, id) per participant: reproducible, NOT private
  std::string enrollment_token;  // the coordinator's
  // The test part of the split: users score the model on it in federated evaluation rounds
  // (null: they have no test ratings).
  std::shared_ptr<const data::RatingsDataset> test;
  // The coordinator's simulation_plain_sum: hosts upload secure-sum contributions in the clear,
  // and take plans whose users upload without noise (--summed_noise, which needs it; client::
  // ParticipantHost::AllowSimulationPlainSum).
  bool plain_sum = false;
  // Each host uploads its users' summed contribution once (client::ParticipantHost::
  // AllowSimulationSummedUploads), where the phase's algorithm has a sum.
  bool summed_uploads = false;
  // Largest coordinator message a host reassembles: the coordinator's max_plan_bytes.
  uint64_t max_download_bytes = wire::kMaxTransferBytes;
  // The clock the coordinator was built with, if a ProgressClock: the clients hold it still while
  // they compute. Null: the coordinator's deadlines run on its own clock regardless.
  ProgressClock* clock = nullptr;
};

struct SimulationReport {
  int client_processes = 0;   // after capping at the number of users
  double setup_seconds = 0;   // participants, registration, streams
  double run_seconds = 0;     // Coordinator::Run
  v1::StatusResponse status;  // the coordinator's Status() at the end
};

// Registers every user of `train` (or each of options.parties) with `coordinator` and runs it
// (Coordinator::Run) to the end; `coordinator.Stop()` from another thread ends it early.
// InvalidArgument for fewer than one client process or an empty dataset; HostParty's errors for a
// party; the coordinator's refusals and Run's errors otherwise.
absl::StatusOr<SimulationReport> RunSimulation(server::Coordinator& coordinator,
                                               std::shared_ptr<const data::RatingsDataset> train,
                                               const SimulationOptions& options);
// The same on the scale-out roles in one process: client process i joins front i % F of
// `cluster`, and the run is its combiner's (docs/scale-out.md); the result is the single
// coordinator's for the same seeds.
absl::StatusOr<SimulationReport> RunSimulation(server::InProcessCluster& cluster,
                                               std::shared_ptr<const data::RatingsDataset> train,
                                               const SimulationOptions& options);

// The factor model a run ends with: the item factors of the next round's plan and every user's
// factor from their `train` ratings under it (the factor that ranks their items, as each client
// computes it: algorithms/factor_scorer.h). FailedPrecondition for an algorithm whose model has
// no factors.
absl::StatusOr<mf::FactorModel> FinalModel(const algorithms::Updater& updater,
                                           const data::RatingsDataset& train);

}  // namespace fedmf::sim

#endif  // FEDMF_TOOLS_SIM_SIMULATION_H_
