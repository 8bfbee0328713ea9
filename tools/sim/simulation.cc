#include "tools/sim/simulation.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "client/participant_host.h"
#include "client/party_spec.h"
#include "common/algorithms/factor_scorer.h"
#include "common/algorithms/registry.h"
#include "tools/sim/in_process_client.h"

namespace fedmf::sim {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// Client process i joins endpoints[i % size]; `before_run` runs once they all have; the run is
// `coordinator`'s.
absl::StatusOr<SimulationReport> Simulate(server::Coordinator& coordinator,
                                          const std::vector<server::DeviceEndpoint*>& endpoints,
                                          const std::function<void()>& before_run,
                                          std::shared_ptr<const data::RatingsDataset> train,
                                          const SimulationOptions& options) {
  if (options.client_processes < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("client processes must be >= 1, got ", options.client_processes));
  }
  const int32_t users = train->num_users();
  if (users < 1) return absl::InvalidArgumentError("the dataset has no users");
  SimulationReport report;
  report.client_processes = options.parties.empty() ? std::min(options.client_processes, users)
                                                    : static_cast<int>(options.parties.size());
  const auto setup = Clock::now();
  std::vector<std::unique_ptr<InProcessClient>> clients;
  for (int i = 0; i < report.client_processes; ++i) {
    absl::StatusOr<std::unique_ptr<client::ParticipantHost>> host;
    std::string name;
    if (options.parties.empty()) {
      std::vector<int32_t> shard;
      for (int32_t u = i; u < users; u += report.client_processes) shard.push_back(u);
      host = client::ParticipantHost::Create(train, shard, options.test, options.noise_seed);
      name = absl::StrCat("sim-", i, "/", report.client_processes);
    } else {
      host = client::HostParty(options.parties[i], options.item_genres, options.data_spec, *train,
                               options.test.get(), options.noise_seed);
      name = absl::StrCat("sim-party-", i, "/", report.client_processes);
    }
    if (!host.ok()) return host.status();
    if (options.plain_sum) (*host)->AllowSimulationPlainSum();
    if (options.summed_uploads) (*host)->AllowSimulationSummedUploads();
    (*host)->set_max_download_bytes(options.max_download_bytes);
    absl::StatusOr<std::unique_ptr<InProcessClient>> c =
        InProcessClient::Connect(*endpoints[static_cast<size_t>(i) % endpoints.size()],
                                 std::move(*host), name, options.enrollment_token, options.clock);
    if (!c.ok()) return c.status();
    clients.push_back(std::move(*c));
  }
  if (before_run) before_run();
  report.setup_seconds = Seconds(setup);
  const auto run = Clock::now();
  const absl::Status status = coordinator.Run();
  report.run_seconds = Seconds(run);
  clients.clear();  // every stream closes before the coordinator's final status
  if (!status.ok()) return status;
  report.status = coordinator.Status();
  return report;
}

}  // namespace

absl::StatusOr<SimulationReport> RunSimulation(server::Coordinator& coordinator,
                                               std::shared_ptr<const data::RatingsDataset> train,
                                               const SimulationOptions& options) {
  return Simulate(coordinator, {&coordinator}, nullptr, std::move(train), options);
}

absl::StatusOr<SimulationReport> RunSimulation(server::InProcessCluster& cluster,
                                               std::shared_ptr<const data::RatingsDataset> train,
                                               const SimulationOptions& options) {
  std::vector<server::DeviceEndpoint*> fronts;
  for (size_t f = 0; f < cluster.fronts(); ++f) fronts.push_back(&cluster.front(f));
  // The combiner learns each front's live users over its link: it must know them all before the
  // first cohort is drawn, as the single coordinator does.
  return Simulate(
      cluster.combiner(), fronts, [&cluster] { cluster.Drain(); }, std::move(train), options);
}

absl::StatusOr<mf::FactorModel> FinalModel(const algorithms::Updater& updater,
                                           const data::RatingsDataset& train) {
  absl::StatusOr<v1::RoundPlan> plan = updater.Plan();
  if (!plan.ok()) return plan.status();
  absl::StatusOr<std::unique_ptr<algorithms::Contributor>> contributor =
      algorithms::MakeContributor(*plan);
  if (!contributor.ok()) return contributor.status();
  // The one place that needs a model's factors rather than its scores: only a factor model has
  // a file format here.
  const auto* factors = dynamic_cast<const algorithms::FactorScorer*>(&(*contributor)->scorer());
  if (factors == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("algorithm '", plan->algorithm(),
                     "' has no factor model to save (a factor model file holds item and user "
                     "factors; this model scores items without them)"));
  }
  mf::FactorModel model;
  model.algorithm = plan->algorithm();
  model.item_factors = factors->item_factors();
  model.user_factors.resize(train.num_users(), model.item_factors.cols());
  for (int32_t u = 0; u < train.num_users(); ++u) {
    absl::StatusOr<Eigen::VectorXd> f = factors->UserFactor(train.user(u));
    if (!f.ok()) return f.status();
    model.user_factors.row(u) = f->transpose();
  }
  return model;
}

}  // namespace fedmf::sim
