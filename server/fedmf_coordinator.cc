// fedmf-coordinator: runs federated DPMF-RP training over gRPC with fedmf-client processes
// (secure aggregation, per-stage deadlines, privacy ledger, checkpoint/resume), or, as
// `fedmf-coordinator status --target=HOST:PORT`, prints a running coordinator's Admin.Status.
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "client/wire_limits.h"
#include "common/algorithms/dpmf_rp/config.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "common/data/dataset_source.h"
#include "common/data/split_spec.h"
#include "common/util/cli.h"
#include "common/util/event_log.h"
#include "common/util/fd_limit.h"
#include "server/coordinator.h"
#include "server/services.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051", "address:port to serve on");
ABSL_FLAG(std::string, target, "127.0.0.1:50051", "status: the coordinator to ask");
ABSL_FLAG(std::string, state_dir, "", "checkpoint directory; resumes from it when it holds one");
ABSL_FLAG(std::string, enrollment_token, "fedmf-demo", "shared token clients must present");
ABSL_FLAG(int64_t, num_users, 0, "user population (participant ids 1..n); 0: from --eval_data");
ABSL_FLAG(int32_t, num_items, 0, "items m; 0: from --eval_data");
ABSL_FLAG(std::string, eval_data, "",
          "SIMULATION ONLY: the clients' dataset, to score the model each round (a real "
          "coordinator has no ratings); also gives the data shape");
ABSL_FLAG(std::string, split, "holdout:0.2", "split of --eval_data (must match the clients')");
ABSL_FLAG(uint64_t, split_seed, 1, "seed of the split (must match the clients')");
ABSL_FLAG(int64_t, rounds, 100, "T: training rounds");
ABSL_FLAG(double, participation, 0.1, "beta: fraction of users sampled per round");
ABSL_FLAG(int64_t, min_clients, 0, "n_min: fewest inputs in a decoded sum (0: the whole cohort)");
ABSL_FLAG(double, dropout_fraction, 0.3,
          "fraction of a cohort SecAgg tolerates losing (threshold >= n_min regardless)");
ABSL_FLAG(int64_t, wait_for_users, 0,
          "the first round waits until this many users are connected (0: one cohort)");
ABSL_FLAG(double, stage_timeout_s, 20, "deadline of each SecAgg stage; late clients are dropped");
ABSL_FLAG(std::string, mechanism, "pbm", "pbm, gaussian or none");
ABSL_FLAG(std::string, projection, "sparse", "sparse or none");
ABSL_FLAG(double, compression, 3, "m/p of the sparse projection");
ABSL_FLAG(std::string, item_model, "compressed", "compressed (the paper's B = S V) or full");
ABSL_FLAG(
    bool, secure_aggregation, true,
    "false: clients upload privatized vectors in the clear, each with the noise a lone client "
    "needs (the paper's non-SecAgg case)");
ABSL_FLAG(double, epsilon, 1, "privacy budget of the whole run");
ABSL_FLAG(double, delta, 0, "0: epsilon is RDP at order 2 (the paper's); else (epsilon, delta)-DP");
ABSL_FLAG(int64_t, max_q, 16, "PBM: largest number of trials");
ABSL_FLAG(int, rank, 14, "k");
ABSL_FLAG(double, learning_rate, 0.05, "Adam step size");
ABSL_FLAG(uint64_t, seed, 1, "model initialization, public projection seeds and cohort sampling");
ABSL_FLAG(std::string, run_id, "fedmf", "bound into every SecAgg session context");
ABSL_FLAG(std::string, secagg_graph, "auto",
          "auto (SecAgg+ Harary graph with k, t from the parameter finder once a neighborhood is "
          "at most half the cohort, else complete), complete or harary");
ABSL_FLAG(double, corrupt_fraction, 0.05,
          "fraction of a cohort assumed corrupt (colluding with the server), for the finder");
ABSL_FLAG(int32_t, secagg_degree, 0,
          "with --secagg_graph=harary: this even degree k instead of the finder's (tests, "
          "experiments: no statistical guarantee computed)");
ABSL_FLAG(bool, secagg_signatures, true,
          "clients sign SecAgg advertisements with their registered Ed25519 keys (the "
          "coordinator relays the cohort's keys)");
ABSL_FLAG(bool, secagg_consistency_check, true,
          "with signatures and the complete graph: Bonawitz's consistency round (clients sign "
          "the survivor list before unmasking)");

namespace fedmf::server {
namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

absl::StatusOr<algorithms::dpmf_rp::DpmfRpConfig> ConfigFromFlags(int64_t users, int32_t items) {
  namespace d = algorithms::dpmf_rp;
  d::DpmfRpConfig c;
  c.num_users = users;
  c.num_items = items;
  c.rank = absl::GetFlag(FLAGS_rank);
  absl::StatusOr<d::Mechanism> mechanism = d::ParseMechanism(absl::GetFlag(FLAGS_mechanism));
  if (!mechanism.ok()) return mechanism.status();
  c.mechanism = *mechanism;
  absl::StatusOr<d::Projection> projection = d::ParseProjection(absl::GetFlag(FLAGS_projection));
  if (!projection.ok()) return projection.status();
  c.projection = *projection;
  absl::StatusOr<d::ItemModel> model = d::ParseItemModel(absl::GetFlag(FLAGS_item_model));
  if (!model.ok()) return model.status();
  c.item_model = *model;
  c.compression = absl::GetFlag(FLAGS_compression);
  c.participation = absl::GetFlag(FLAGS_participation);
  c.min_clients = absl::GetFlag(FLAGS_min_clients);
  c.secure_aggregation = absl::GetFlag(FLAGS_secure_aggregation);
  c.epsilon = absl::GetFlag(FLAGS_epsilon);
  c.delta = absl::GetFlag(FLAGS_delta);
  c.rounds = absl::GetFlag(FLAGS_rounds);
  c.max_q = absl::GetFlag(FLAGS_max_q);
  c.adam.learning_rate = absl::GetFlag(FLAGS_learning_rate);
  c.seed = absl::GetFlag(FLAGS_seed);
  if (absl::Status s = d::ValidateConfig(c); !s.ok()) return s;
  return c;
}

absl::Status PrintStatus() {
  grpc::ChannelArguments args;
  auto stub = v1::Admin::NewStub(grpc::CreateCustomChannel(
      absl::GetFlag(FLAGS_target), grpc::InsecureChannelCredentials(), args));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  v1::StatusResponse r;
  const grpc::Status s = stub->Status(&context, v1::StatusRequest(), &r);
  if (!s.ok()) {
    return absl::UnavailableError(
        absl::StrCat(absl::GetFlag(FLAGS_target), ": ", s.error_message()));
  }
  std::printf(
      "round=%lld total_rounds=%lld stage=%s registered_users=%d connected_clients=%d "
      "participants=%d dropouts=%d bytes_in=%lld bytes_out=%lld epsilon_rdp2=%g epsilon_dp=%g "
      "delta=%g\n",
      static_cast<long long>(r.round()), static_cast<long long>(r.total_rounds()),
      r.stage().c_str(), r.registered_users(), r.connected_clients(), r.participants(),
      r.dropouts(), static_cast<long long>(r.bytes_in()), static_cast<long long>(r.bytes_out()),
      r.epsilon_rdp2(), r.epsilon_dp(), r.delta());
  return absl::OkStatus();
}

// The checkpoint in `state_dir` if there is one, else a fresh run from the flags.
absl::StatusOr<CoordinatorState> InitialState(const std::string& state_dir, int64_t users,
                                              int32_t items) {
  if (!state_dir.empty()) {
    absl::StatusOr<std::optional<CoordinatorState>> loaded = LoadCheckpoint(state_dir);
    if (!loaded.ok()) return loaded.status();
    if (*loaded) {
      EventLine("resume")
          .Add("state_dir", state_dir)
          .Add("rounds_done", (*loaded)->updater->round())
          .Add("ledger_entries", (*loaded)->ledger.entries().size());
      return std::move(**loaded);
    }
  }
  absl::StatusOr<algorithms::dpmf_rp::DpmfRpConfig> config = ConfigFromFlags(users, items);
  if (!config.ok()) return config.status();
  absl::StatusOr<std::unique_ptr<algorithms::dpmf_rp::DpmfRpUpdater>> updater =
      algorithms::dpmf_rp::DpmfRpUpdater::Create(*config);
  if (!updater.ok()) return updater.status();
  absl::StatusOr<dp::PrivacyLedger> ledger = dp::PrivacyLedger::Create();
  if (!ledger.ok()) return ledger.status();
  EventLine("new_run")
      .Add("mechanism", absl::GetFlag(FLAGS_mechanism))
      .Add("item_model", absl::GetFlag(FLAGS_item_model))
      .Add("secure_aggregation", config->secure_aggregation ? "on" : "off")
      .Add("epsilon", config->epsilon)
      .Add("rounds", config->rounds)
      .Add("cohort", algorithms::dpmf_rp::CohortSize(*config))
      .Add("n_min", algorithms::dpmf_rp::MinContributors(*config));
  return CoordinatorState{std::string(algorithms::dpmf_rp::kAlgorithmName), std::move(*updater),
                          std::move(*ledger), config->seed, config->rounds};
}

absl::Status Serve() {
  CoordinatorOptions options;
  options.state_dir = absl::GetFlag(FLAGS_state_dir);
  options.enrollment_token = absl::GetFlag(FLAGS_enrollment_token);
  options.dropout_fraction = absl::GetFlag(FLAGS_dropout_fraction);
  options.stage_timeout = absl::Seconds(absl::GetFlag(FLAGS_stage_timeout_s));
  options.run_id = absl::GetFlag(FLAGS_run_id);
  options.wait_for_users = absl::GetFlag(FLAGS_wait_for_users);
  absl::StatusOr<GraphMode> graph = ParseGraphMode(absl::GetFlag(FLAGS_secagg_graph));
  if (!graph.ok()) return graph.status();
  options.secagg_graph = *graph;
  options.corrupt_fraction = absl::GetFlag(FLAGS_corrupt_fraction);
  options.harary_degree = absl::GetFlag(FLAGS_secagg_degree);
  options.signatures = absl::GetFlag(FLAGS_secagg_signatures);
  options.consistency_check = absl::GetFlag(FLAGS_secagg_consistency_check);
  if (!(options.corrupt_fraction >= 0 && options.corrupt_fraction < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--corrupt_fraction must be in [0, 1), got ", options.corrupt_fraction));
  }
  int64_t users = absl::GetFlag(FLAGS_num_users);
  int32_t items = absl::GetFlag(FLAGS_num_items);
  std::shared_ptr<data::TrainTest> split;
  if (const std::string spec = absl::GetFlag(FLAGS_eval_data); !spec.empty()) {
    absl::StatusOr<data::RatingsDataset> data = data::LoadDataset(spec);
    if (!data.ok()) return data.status();
    if (users == 0) users = data->num_users();
    if (items == 0) items = data->num_items();
    absl::StatusOr<std::vector<data::TrainTest>> splits =
        data::MakeSplits(*data, absl::GetFlag(FLAGS_split), absl::GetFlag(FLAGS_split_seed));
    if (!splits.ok()) return splits.status();
    split = std::make_shared<data::TrainTest>(std::move((*splits)[0]));
    options.evaluate = [split](const algorithms::Updater& u) { return Evaluate(u, *split); };
    EventLine("simulation_evaluation").Add("data", spec).Add("split", absl::GetFlag(FLAGS_split));
  }
  if (users <= 0 || items <= 0) {
    return absl::InvalidArgumentError("set --num_users and --num_items (or --eval_data)");
  }
  options.num_users = users;

  // One descriptor per client connection: take all the hard limit allows.
  absl::StatusOr<uint64_t> open_files = RaiseOpenFileLimit();
  if (!open_files.ok()) return open_files.status();
  if (*open_files < 1024) {
    EventLine("warning")
        .Add("open_file_limit", *open_files)
        .Add("effect", "fewer than ~1000 client connections can be held; raise ulimit -Hn");
  }
  absl::StatusOr<CoordinatorState> state = InitialState(options.state_dir, users, items);
  if (!state.ok()) return state.status();
  Coordinator coordinator(options, std::move(*state));
  FederationService federation(&coordinator);
  AdminService admin(&coordinator);
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(absl::GetFlag(FLAGS_listen), grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(client::kMaxMessageBytes);
  builder.SetMaxSendMessageSize(client::kMaxMessageBytes);
  builder.RegisterService(&federation);
  builder.RegisterService(&admin);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", absl::GetFlag(FLAGS_listen)));
  }
  EventLine("listening")
      .Add("address", absl::GetFlag(FLAGS_listen))
      .Add("port", port)
      .Add("open_file_limit", *open_files);
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);
  std::thread watcher([&coordinator] {
    while (!g_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    coordinator.Stop();
  });
  const absl::Status status = coordinator.Run();
  coordinator.WaitForDisconnects(absl::Seconds(5));  // let clients read the final result
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  g_stop.store(true);
  watcher.join();
  return status;
}

}  // namespace
}  // namespace fedmf::server

int main(int argc, char** argv) {
  std::vector<char*> args = fedmf::InitCommandLine(
      argc, argv,
      "fedmf-coordinator [--listen=ADDR:PORT --state_dir=DIR ...]: federated DPMF-RP training\n"
      "fedmf-coordinator status --target=HOST:PORT: status of a running coordinator");
  absl::Status status;
  if (args.size() == 1 && std::string(args[0]) == "status") {
    status = fedmf::server::PrintStatus();
  } else if (args.empty()) {
    status = fedmf::server::Serve();
  } else {
    status = absl::InvalidArgumentError(absl::StrCat("unknown command '", args[0], "'"));
  }
  if (!status.ok()) {
    std::fprintf(stderr, "fedmf-coordinator: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
