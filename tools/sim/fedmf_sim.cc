// fedmf-sim: the federated training of fedmf-coordinator + fedmf-client processes in one process
// with no network, for fast experiments. The same Coordinator runs the rounds (the same run,
// --run=FILE or the same flags; cohort sampling, SecAgg sessions, ledger and checkpoints); N
// in-process client processes, one worker thread each, host the users. Every user's noise is
// keyed from (--seed, participant id), so a run is reproducible and equals a networked run whose
// clients use --insecure_noise_seed=--seed.
// Stage deadlines (--stage_timeout_s) count only time in which no simulated client is computing.
// With --parties=KIND:N the client processes are N silo parties instead of users, each as
// fedmf-client --party=KIND:I/N --insecure_noise_seed=--seed hosts it; an algorithm that cannot
// run with the hosting is refused before any round (hosting.h).
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "client/party_spec.h"
#include "common/algorithms/registry.h"
#include "common/mf/model_io.h"
#include "common/util/cli.h"
#include "common/util/event_log.h"
#include "server/coordinator.h"
#include "server/coordinator_setup.h"
#include "server/in_process_cluster.h"
#include "tools/sim/hosting.h"
#include "tools/sim/progress_clock.h"
#include "tools/sim/simulation.h"

ABSL_FLAG(std::string, data, "synthetic",
          "dataset the users come from (same syntax as every binary's --data); users train on "
          "the train part of --split, the model is scored on its test part");
ABSL_FLAG(int, client_processes, 0,
          "simulated client processes, one worker thread each, user u in process u % N "
          "(0: the hardware threads, or 8 if unknown)");
ABSL_FLAG(std::string, parties, "",
          "host N silo parties instead of users (cross-silo algorithms, e.g. hfl-sgdmf and "
          "vfl-sgdmf): KIND:N with KIND hfl, vfl or vfl-genre as fedmf-client's --party, party I "
          "holding the shard fedmf-client --party=KIND:I/N holds; one client process each "
          "(excludes --client_processes); N must be the run's number of parties "
          "(the option parties of hfl-sgdmf and vfl-sgdmf: --set parties=N)");
ABSL_FLAG(std::string, item_genres, "",
          "--parties=vfl-genre: the MovieLens 100K u.item with each movie's genre flags (default: "
          "the u.item beside --data=ml-100k:DIR/u.data)");
ABSL_FLAG(int64_t, evaluate_every, 1,
          "score the model on the test part after every N-th round and after the last (0: never)");
ABSL_FLAG(bool, plain_sum, false,
          "add the users' vectors in the clear instead of through SecAgg: the same sum bit for "
          "bit (tested), without the key agreements, for large experiments (e.g. every one of "
          "943 users in every round); the run's privacy accounting is unchanged");
ABSL_FLAG(bool, setup_only, false,
          "set the run up and exit before training: prints its event=new_run and, for a private "
          "run, event=noise_outlook (how loud the budget's noise is against the signal, and "
          "whether the measurements predict the model beats DP popularity)");
ABSL_FLAG(bool, summed_noise, false,
          "with --plain_sum, dpmf-rp with mechanism gaussian, lfl-sgdmf with noise or hdpmf (not "
          "variant mf): the users upload without noise (sparsely: lfl-sgdmf its rating's row, "
          "hdpmf its rated items' rows) and the coordinator adds each sum's noise as one draw per "
          "coordinate instead of one per user (the same Gaussian or Gamma-difference noise in "
          "distribution, minus the per-user rounding of each share: common/dp/gaussian_secagg.h, "
          "common/algorithms/lfl_sgdmf/lfl_sgdmf.h, common/algorithms/hdpmf/hdpmf.h); not what a "
          "deployment does, so off by default; event=new_run says noise=summed (dpmf-rp) or "
          "noise_draw=summed (lfl-sgdmf, hdpmf)");
ABSL_FLAG(bool, summed_uploads, false,
          "with --summed_noise, dpmf-rp: each client process adds its users' clipped "
          "contributions and uploads their sum once, the others uploading zero (the same sum in "
          "distribution, rounded once instead of once per user: common/dp/gaussian_secagg.h), "
          "tens of times less work a user; not what a deployment does, so off by default; "
          "event=sim_start says uploads=summed or uploads=per_user");
ABSL_FLAG(int, fronts, 0,
          "run the scale-out roles in this process (docs/scale-out.md): N fronts hold the "
          "client processes' streams (process i on front i % N), sum their members' masked "
          "inputs and relay the rest over in-process replica links to a combiner that runs the "
          "rounds; the same model as the single coordinator for the same seeds (tested); "
          "0: one coordinator");
ABSL_FLAG(std::string, save_model, "",
          "write the final model (item factors and every user's factor) here "
          "(fedmf.v1.FactorModel, common/mf/model_io.h); factor models only");

namespace fedmf::sim {
namespace {

constexpr char kEnrollmentToken[] = "fedmf-sim";

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

int ClientProcesses() {
  if (const int n = absl::GetFlag(FLAGS_client_processes); n != 0) return n;
  const unsigned hardware = std::thread::hardware_concurrency();
  return hardware == 0 ? 8 : static_cast<int>(hardware);
}

// --parties, parsed; empty for users. InvalidArgument for a bad value, with
// --client_processes, or --item_genres without --parties=vfl-genre:N.
absl::StatusOr<std::vector<client::PartySpec>> PartiesFromFlags() {
  const std::string flag = absl::GetFlag(FLAGS_parties);
  std::vector<client::PartySpec> parties;
  if (!flag.empty()) {
    absl::StatusOr<std::vector<client::PartySpec>> parsed = client::ParseParties(flag);
    if (!parsed.ok()) return parsed.status();
    parties = *std::move(parsed);
    if (const int n = absl::GetFlag(FLAGS_client_processes); n != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--parties=", flag, " hosts one client process per party; drop --client_processes=", n));
    }
  }
  if (!absl::GetFlag(FLAGS_item_genres).empty() &&
      (parties.empty() || parties[0].kind != client::PartySpec::Kind::kVerticalByGenre)) {
    return absl::InvalidArgumentError("--item_genres is read by --parties=vfl-genre:N only");
  }
  return parties;
}

absl::Status Simulate() {
  // The hosting and the options are checked first: a run that cannot train ends before the data
  // is loaded.
  absl::StatusOr<std::vector<client::PartySpec>> parties = PartiesFromFlags();
  if (!parties.ok()) return parties.status();
  const std::string parties_flag = absl::GetFlag(FLAGS_parties);
  absl::StatusOr<server::ProcessRun> run = server::RunOfProcess();
  if (!run.ok()) return run.status();
  absl::StatusOr<const algorithms::AlgorithmDefinition*> algorithm =
      algorithms::FindTrainingAlgorithm(run->spec.algorithm());
  if (!algorithm.ok()) return algorithm.status();
  if (absl::Status s = CheckHosting(**algorithm, *parties, parties_flag); !s.ok()) return s;
  const std::string spec = absl::GetFlag(FLAGS_data);
  absl::StatusOr<data::TrainTest> loaded = server::LoadSplitFromFlags(spec);
  if (!loaded.ok()) return loaded.status();
  auto split = std::make_shared<const data::TrainTest>(std::move(*loaded));
  const std::shared_ptr<const data::RatingsDataset> train(split, &split->train);
  // The run's population, when it names one, is the data's.
  if ((run->spec.num_users() != 0 && run->spec.num_users() != train->num_users()) ||
      (run->spec.num_items() != 0 && run->spec.num_items() != train->num_items())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the run's num_users=", run->spec.num_users(), ", num_items=", run->spec.num_items(),
        " (0: the data's) are not the data's ", train->num_users(), " users and ",
        train->num_items(), " items (--data=", spec, ")"));
  }
  if (run->spec.wait_for_users() > train->num_users()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the run's wait_for_users=", run->spec.wait_for_users(),
                     " would never start: --data=", spec, " has ", train->num_users(), " users"));
  }
  absl::StatusOr<server::CoordinatorOptions> run_options =
      server::CoordinatorOptionsForRun(run->spec);
  if (!run_options.ok()) return run_options.status();
  server::CoordinatorOptions options = *std::move(run_options);
  options.simulation_plain_sum = absl::GetFlag(FLAGS_plain_sum);
  // A simulation is a batch job whose clients are all honest: repeated failures end it.
  if (options.max_failed_rounds == 0) options.max_failed_rounds = 5;
  options.enrollment_token = kEnrollmentToken;
  options.num_users = train->num_users();
  if (const int64_t every = absl::GetFlag(FLAGS_evaluate_every); every > 0) {
    server::EvaluateEveryRound(split, spec, options);
    options.evaluate_every = every;
  } else if (every < 0) {
    return absl::InvalidArgumentError(absl::StrCat("--evaluate_every=", every, " must be >= 0"));
  }
  const bool summed_noise = absl::GetFlag(FLAGS_summed_noise);
  if (summed_noise && !options.simulation_plain_sum) {
    return absl::InvalidArgumentError(
        "--summed_noise needs --plain_sum (under SecAgg the coordinator would see the sum "
        "before its noise)");
  }
  const bool summed_uploads = absl::GetFlag(FLAGS_summed_uploads);
  if (summed_uploads && !summed_noise) {
    return absl::InvalidArgumentError(
        "--summed_uploads needs --summed_noise (a user's upload would carry its own noise share)");
  }
  const int fronts = absl::GetFlag(FLAGS_fronts);
  if (fronts < 0) {
    return absl::InvalidArgumentError(absl::StrCat("--fronts=", fronts, " must be >= 0"));
  }
  absl::StatusOr<server::CoordinatorState> state =
      server::InitialStateForRun(*run, train->num_users(), train->num_items(), summed_noise);
  if (!state.ok()) return state.status();
  absl::StatusOr<v1::RoundPlan> first_plan = state->updater->Plan();
  if (!first_plan.ok()) return first_plan.status();
  if (absl::Status s = CheckPartyCount(*first_plan, *parties, parties_flag); !s.ok()) return s;
  if (absl::GetFlag(FLAGS_setup_only)) return absl::OkStatus();
  // The run's seed: --seed, or the resumed checkpoint's (a resumed run restarts the users' noise
  // streams, so it differs from an uninterrupted one).
  const uint64_t noise_seed = state->sampling_seed;
  // The in-process clients take the plans the coordinator may send.
  const uint64_t max_download_bytes = options.max_plan_bytes;
  // Deadlines wait on the simulated clients' progress (progress_clock.h), not the wall clock.
  ProgressClock clock(server::SteadyClock::Get());
  std::unique_ptr<server::InProcessCluster> cluster;
  std::unique_ptr<server::Coordinator> single;
  if (fronts > 0) {
    cluster = std::make_unique<server::InProcessCluster>(fronts, options, std::move(*state), clock,
                                                         &clock);
  } else {
    single = std::make_unique<server::Coordinator>(std::move(options), std::move(*state), clock);
  }
  server::Coordinator& coordinator = cluster != nullptr ? cluster->combiner() : *single;

  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);
  std::atomic<bool> finished{false};
  std::thread watcher([&coordinator, &finished] {
    while (!finished.load()) {
      if (g_stop.load()) {
        coordinator.Stop();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  const int processes = parties->empty() ? ClientProcesses() : static_cast<int>(parties->size());
  EventLine("sim_start")
      .Add("data", spec)
      .Add("users", train->num_users())
      .Add("items", train->num_items())
      .Add("client_processes", processes)
      .Add("parties", parties->empty() ? "none" : parties_flag)
      .Add("uploads", summed_uploads ? "summed" : "per_user")
      .Add("fronts", fronts)
      .Add("noise_seed", noise_seed);
  const SimulationOptions simulation{
      .client_processes = processes,
      .parties = *parties,
      .item_genres = absl::GetFlag(FLAGS_item_genres),
      .data_spec = spec,
      .noise_seed = noise_seed,
      .enrollment_token = kEnrollmentToken,
      .test = std::shared_ptr<const data::RatingsDataset>(split, &split->test),
      .plain_sum = absl::GetFlag(FLAGS_plain_sum),
      .summed_uploads = summed_uploads,
      .max_download_bytes = max_download_bytes,
      .clock = &clock};
  absl::StatusOr<SimulationReport> report = cluster != nullptr
                                                ? RunSimulation(*cluster, train, simulation)
                                                : RunSimulation(coordinator, train, simulation);
  finished.store(true);
  watcher.join();
  if (!report.ok()) return report.status();

  const v1::StatusResponse& s = report->status;
  EventLine summary("sim_summary");
  summary.Add("rounds", s.round())
      .Add("client_processes", report->client_processes)
      .Add("setup_s", report->setup_seconds)
      .Add("wall_s", report->run_seconds)
      .Add("s_per_round", s.round() > 0 ? report->run_seconds / static_cast<double>(s.round()) : 0)
      .Add("bytes_in", s.bytes_in())
      .Add("bytes_out", s.bytes_out());
  if (s.epsilon_rdp2() > 0) {
    summary.Add("epsilon_rdp2", s.epsilon_rdp2())
        .Add("epsilon_dp", s.epsilon_dp())
        .Add("privacy_unit", s.privacy_unit())
        .Add("privacy_bound", s.privacy_bound());
  }
  if (const std::string path = absl::GetFlag(FLAGS_save_model); !path.empty()) {
    absl::StatusOr<mf::FactorModel> model = FinalModel(*coordinator.state().updater, *train);
    if (!model.ok()) return model.status();
    if (absl::Status saved = mf::SaveModel(*model, *train->id_maps(), path); !saved.ok()) {
      return saved;
    }
    summary.Add("model", path);
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace fedmf::sim

int main(int argc, char** argv) {
  const std::vector<char*> args = fedmf::InitCommandLine(
      argc, argv,
      fedmf::server::UsageWithAlgorithms(
          "fedmf-sim [--data=SPEC --client_processes=N|--parties=KIND:N --algorithm=NAME "
          "--rounds=T --seed=S ...|--run=FILE]: federated training (coordinator, clients, "
          "SecAgg) in one process, no network;\n"
          "every user's noise is keyed from --seed (reproducible experiments, not a private "
          "deployment)\n"
          "fedmf-sim describe NAME: the options of algorithm NAME (--config, --set)"),
      fedmf::server::RepeatedRunFlags());
  if (!args.empty() && std::string(args[0]) == "describe") {
    return fedmf::ExitCode(fedmf::server::PrintAlgorithmOptions(args));
  }
  if (!args.empty()) {
    std::fprintf(stderr,
                 "fedmf-sim: unexpected argument '%s' (flags only, or describe NAME; see "
                 "--help)\n",
                 args[0]);
    return 2;
  }
  return fedmf::ExitCode(fedmf::sim::Simulate());
}
