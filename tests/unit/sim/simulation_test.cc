// fedmf-sim's core: a whole run in process is a function of the seeds, not of the number of
// client processes (threads) or their timing; the noise seed matters; refusals are errors; stage
// deadlines wait on the clients' progress; the summed-noise shortcuts are accounted as the users'
// own noise.
#include "tools/sim/simulation.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/algorithms/dpmf_rp/updater.h"
#include "common/algorithms/lfl_sgdmf/updater.h"
#include "common/data/synthetic.h"
#include "common/dp/ledger_text_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/coordinator_setup.h"
#include "server/in_process_cluster.h"
#include "tests/unit/algorithms/lfl_sgdmf/test_config.h"

namespace fedmf::sim {
namespace {

using ::testing::HasSubstr;

constexpr char kToken[] = "token";

std::shared_ptr<const data::RatingsDataset> Data() {
  data::SyntheticConfig c;
  c.num_users = 60;
  c.num_items = 80;
  c.ratings_per_user = 12;
  c.min_ratings_per_user = 5;
  c.seed = 3;
  return std::make_shared<const data::RatingsDataset>(data::GenerateSynthetic(c).value());
}

// How a test run differs from the default one.
struct RunChoice {
  bool plain_sum = false;
  absl::Duration stage_timeout = absl::Seconds(20);    // every SecAgg stage's deadline ...
  server::Clock* clock = &server::SteadyClock::Get();  // ... on this clock
  algorithms::dpmf_rp::Mechanism mechanism = algorithms::dpmf_rp::Mechanism::kPbm;
  bool summed_noise = false;
  bool summed_uploads = false;
  algorithms::dpmf_rp::Projection projection = algorithms::dpmf_rp::Projection::kSparse;
};

struct Run {
  server::CoordinatorOptions options;
  server::CoordinatorState state;
};

// 3 rounds of PBM (epsilon 10, so the noise is random but not everything) with secure
// aggregation: cohort 15 of 60 users, threshold 11.
Run MakeRun(uint64_t seed, const RunChoice& choice) {
  algorithms::dpmf_rp::DpmfRpConfig c;
  c.num_users = 60;
  c.num_items = 80;
  c.rank = 4;
  c.mechanism = choice.mechanism;
  c.simulation_summed_noise = choice.summed_noise;
  c.epsilon = 10;
  c.item_model = algorithms::dpmf_rp::ItemModel::kFull;
  c.projection = choice.projection;
  c.compression = 2;
  c.participation = 0.25;
  c.min_clients = 10;
  c.rounds = 3;
  c.seed = seed;
  server::CoordinatorOptions options;
  options.enrollment_token = kToken;
  options.num_users = 60;
  options.simulation_plain_sum = choice.plain_sum;
  options.stage_timeout = choice.stage_timeout;
  options.max_failed_rounds = 1;  // honest in-process clients: a failed round fails the run
  return Run{.options = options,
             .state = server::CoordinatorState{
                 "dpmf-rp", algorithms::dpmf_rp::DpmfRpUpdater::Create(c).value(),
                 dp::PrivacyLedger::Create().value(), seed, c.rounds, server::FixedPopulation()}};
}

std::unique_ptr<server::Coordinator> MakeCoordinator(uint64_t seed = 1,
                                                     const RunChoice& choice = {}) {
  Run run = MakeRun(seed, choice);
  return std::make_unique<server::Coordinator>(std::move(run.options), std::move(run.state),
                                               *choice.clock);
}

struct Outcome {
  std::string updater_state;
  std::string ledger;
  mf::FactorModel model;
  int64_t bytes_in = 0;  // what the clients uploaded
  size_t ledger_entries = 0;
};

// `client_processes` processes hosting the users, whose noise is keyed from `noise_seed`.
SimulationOptions UserOptions(int client_processes, uint64_t noise_seed) {
  return SimulationOptions{.client_processes = client_processes,
                           .parties = {},
                           .item_genres = "",
                           .data_spec = "",
                           .noise_seed = noise_seed,
                           .enrollment_token = kToken,
                           .test = nullptr};
}

Outcome Simulate(int client_processes, uint64_t noise_seed, const RunChoice& choice = {}) {
  auto data = Data();
  auto coordinator = MakeCoordinator(1, choice);
  SimulationOptions options = UserOptions(client_processes, noise_seed);
  options.plain_sum = choice.plain_sum;
  options.summed_uploads = choice.summed_uploads;
  absl::StatusOr<SimulationReport> report = RunSimulation(*coordinator, data, options);
  EXPECT_TRUE(report.ok()) << report.status();
  if (report.ok()) {
    EXPECT_EQ(report->status.round(), 3);
    EXPECT_EQ(report->client_processes, client_processes);
    EXPECT_EQ(report->status.dropouts(), 0);
  }
  const server::CoordinatorState& state = coordinator->state();
  return Outcome{state.updater->SerializeState().value(), dp::SerializeLedger(state.ledger),
                 FinalModel(*state.updater, *data).value(),
                 report.ok() ? report->status.bytes_in() : 0, state.ledger.entries().size()};
}

TEST(SimulationTest, OneAndFourClientProcessesGiveTheSameModel) {
  const Outcome one = Simulate(1, 7);
  const Outcome four = Simulate(4, 7);
  EXPECT_EQ(one.updater_state, four.updater_state);
  EXPECT_EQ(one.ledger, four.ledger);
  EXPECT_TRUE(one.model.item_factors == four.model.item_factors);
  EXPECT_TRUE(one.model.user_factors == four.model.user_factors);
  EXPECT_EQ(one.model.user_factors.rows(), 60);
  EXPECT_EQ(one.model.item_factors.rows(), 80);
  EXPECT_EQ(one.model.item_factors.cols(), 4);
}

// What the combiner received: partial sums with members, and masked inputs (there must be none).
struct CombinerReceived {
  std::mutex mu;
  int partials = 0;
  int masked_inputs = 0;
};

// How a run on fronts differs from the default one.
struct FrontsChoice {
  absl::Duration stage_timeout = absl::Seconds(20);
  CombinerReceived* received = nullptr;  // counts what the combiner received
  // Cuts the link of the front that sent a message for which this is true, before the combiner
  // sees the message.
  std::function<bool(size_t front, const v1::FrontMessage&)> cut_at = nullptr;
};

// The scale-out roles in one process (docs/scale-out.md): a combiner and `fronts` fronts over
// in-process links, client process i on front i % fronts, each front summing its members' masked
// inputs; deadlines on the progress clock, which the links hold while a message is in flight, so
// stage_timeout counts only time in which nothing moves.
Outcome SimulateOnFronts(int fronts, int client_processes, uint64_t noise_seed,
                         const FrontsChoice& choice = {}) {
  auto data = Data();
  ProgressClock clock(server::SteadyClock::Get());
  Run run = MakeRun(1, {.stage_timeout = choice.stage_timeout});
  // A cut fails the round it happens in (too few members left) and the driver retries it.
  if (choice.cut_at) run.options.max_failed_rounds = 3;
  server::InProcessCluster* cluster_of_tap = nullptr;  // set before any device connects
  server::InProcessCluster cluster(
      fronts, run.options, std::move(run.state), clock, &clock,
      [&choice, &cluster_of_tap](size_t front, const v1::FrontMessage& message) {
        if (choice.cut_at && choice.cut_at(front, message)) cluster_of_tap->Cut(front);
        if (choice.received == nullptr) return;
        std::lock_guard<std::mutex> lock(choice.received->mu);
        if (message.partial().members_size() > 0) ++choice.received->partials;
        for (const v1::Relayed::Item& item : message.relayed().items()) {
          if (item.secagg().message().has_masked_input()) ++choice.received->masked_inputs;
        }
      });
  cluster_of_tap = &cluster;
  SimulationOptions options = UserOptions(client_processes, noise_seed);
  options.clock = &clock;
  absl::StatusOr<SimulationReport> report = RunSimulation(cluster, data, options);
  EXPECT_TRUE(report.ok()) << report.status();
  if (report.ok()) {
    EXPECT_EQ(report->status.round(), 3);
    if (!choice.cut_at) {
      EXPECT_EQ(report->status.dropouts(), 0);
    }
  }
  const server::CoordinatorState& state = cluster.combiner().state();
  return Outcome{state.updater->SerializeState().value(), dp::SerializeLedger(state.ledger),
                 FinalModel(*state.updater, *data).value(),
                 report.ok() ? report->status.bytes_in() : 0, state.ledger.entries().size()};
}

// Test (i) of docs/scale-out.md section 11 item 3: the same seeds give the same run, bit for bit,
// on a combiner with three fronts as on one coordinator (the fronts' partial sums add to the sum
// of the inputs mod 2^b).
TEST(SimulationTest, ThreeFrontsGiveTheSingleCoordinatorsRun) {
  const Outcome single = Simulate(6, 7);
  CombinerReceived received;
  const Outcome fronts = SimulateOnFronts(3, 6, 7, {.received = &received});
  EXPECT_EQ(single.updater_state, fronts.updater_state);
  EXPECT_EQ(single.ledger, fronts.ledger);
  EXPECT_TRUE(single.model.item_factors == fronts.model.item_factors);
  EXPECT_TRUE(single.model.user_factors == fronts.model.user_factors);
  // The inputs reached the combiner only as the fronts' sums: in each of the 3 rounds' SecAgg
  // at least one front had members (a cohort of 15 over 3 fronts: at most 3 partials a round).
  EXPECT_EQ(received.masked_inputs, 0);
  EXPECT_GE(received.partials, 3);
  EXPECT_LE(received.partials, 9);
}

// As StageDeadlinesWaitOnTheClientsProgress, across the links: with 1 ns stage deadlines every
// round still completes with every member, because a message on a link holds the clock as a
// message in a client's inbox does. One front per client process, and two on one front.
TEST(SimulationTest, StageDeadlinesOnFrontsWaitForTheLinks) {
  const std::string single = Simulate(4, 7).updater_state;
  EXPECT_EQ(SimulateOnFronts(4, 4, 7, {.stage_timeout = absl::Nanoseconds(1)}).updater_state,
            single);
  EXPECT_EQ(SimulateOnFronts(2, 4, 7, {.stage_timeout = absl::Nanoseconds(1)}).updater_state,
            single);
}

// Whether `message` carries, in round 1, a device's SecAgg message that `is` is true of.
bool InRoundOne(const v1::FrontMessage& message,
                const std::function<bool(const v1::secagg::ClientToServer&)>& is) {
  for (const v1::Relayed::Item& item : message.relayed().items()) {
    if (item.secagg().round() == 1 && is(item.secagg().message())) return true;
  }
  return false;
}

// Test (iii) of docs/scale-out.md section 11 item 3: front 0's link is cut in each stage of round
// 1 (its process died, or a partition): its members drop out of the round, which completes or
// aborts and is retried with the users still live; the run completes its 3 rounds and the ledger
// has one entry a round, as the single coordinator's: nothing is applied or charged twice.
TEST(SimulationTest, AFrontLostInAnyStageLeavesOneLedgerEntryPerAppliedRound) {
  const size_t entries = Simulate(6, 7).ledger_entries;
  ASSERT_GT(entries, 0u);
  using Message = v1::secagg::ClientToServer;
  struct Stage {
    std::string name;
    std::function<bool(const v1::FrontMessage&)> cut_at;
  };
  const std::vector<Stage> stages = {
      {"AdvertiseKeys",
       [](const v1::FrontMessage& m) {
         return InRoundOne(m, [](const Message& s) { return s.has_advertise_keys(); });
       }},
      {"ShareKeys",
       [](const v1::FrontMessage& m) {
         return InRoundOne(m, [](const Message& s) { return s.has_share_keys(); });
       }},
      {"MaskedInput (its partial sum lost)",
       [](const v1::FrontMessage& m) {
         return m.partial().round() == 1 && m.partial().members_size() > 0;
       }},
      {"ConsistencyCheck",
       [](const v1::FrontMessage& m) {
         return InRoundOne(m, [](const Message& s) { return s.has_consistency_check(); });
       }},
      {"Unmasking",
       [](const v1::FrontMessage& m) {
         return InRoundOne(m, [](const Message& s) { return s.has_unmasking(); });
       }},
  };
  for (const Stage& stage : stages) {
    SCOPED_TRACE(stage.name);
    std::atomic<int> cuts{0};
    const Outcome outcome =
        SimulateOnFronts(3, 6, 7, {.cut_at = [&](size_t front, const v1::FrontMessage& m) {
                           if (front != 0 || !stage.cut_at(m)) return false;
                           ++cuts;
                           return true;
                         }});
    EXPECT_EQ(cuts.load(), 1);  // front 0 is gone: it sends nothing more
    EXPECT_EQ(outcome.ledger_entries, entries);
  }
}

// --plain_sum adds the same vectors SecAgg would: the model and the ledger are identical.
TEST(SimulationTest, PlainSumGivesTheSecAggModel) {
  const Outcome secagg = Simulate(2, 7);
  const Outcome plain = Simulate(2, 7, {.plain_sum = true});
  EXPECT_EQ(secagg.updater_state, plain.updater_state);
  EXPECT_EQ(secagg.ledger, plain.ledger);
}

// The noise is the users' (seeded by the noise seed), not a function of the run's seed alone.
TEST(SimulationTest, AnotherNoiseSeedGivesAnotherModel) {
  EXPECT_NE(Simulate(2, 7).updater_state, Simulate(2, 8).updater_state);
}

// Every stage's deadline is 1 ns, far shorter than any client takes to answer; on the progress
// clock it counts only time in which no client computes, so every round of SecAgg (four stages)
// completes with every member, as under the default deadline, on any machine at any load.
TEST(SimulationTest, StageDeadlinesWaitOnTheClientsProgress) {
  auto data = Data();
  ProgressClock clock(server::SteadyClock::Get());
  auto coordinator = MakeCoordinator(1, {.stage_timeout = absl::Nanoseconds(1), .clock = &clock});
  absl::StatusOr<SimulationReport> report =
      RunSimulation(*coordinator, data,
                    SimulationOptions{.client_processes = 3,
                                      .parties = {},
                                      .item_genres = "",
                                      .data_spec = "",
                                      .noise_seed = 7,
                                      .enrollment_token = kToken,
                                      .test = nullptr,
                                      .clock = &clock});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->status.round(), 3);
  EXPECT_EQ(report->status.dropouts(), 0);
  const server::CoordinatorState& state = coordinator->state();
  EXPECT_EQ(state.updater->SerializeState().value(), Simulate(3, 7).updater_state);
}

// Summed noise (Gaussian, --plain_sum): the coordinator draws the sum's noise, so the run is still
// a function of the seeds alone (not of the client processes); the ledger is the per-user path's;
// the model is not (other draws).
TEST(SimulationTest, SummedNoiseRunsAreReproducibleAndAccountedAsPerUserNoise) {
  const RunChoice gaussian{.plain_sum = true,
                           .mechanism = algorithms::dpmf_rp::Mechanism::kGaussian};
  RunChoice summed = gaussian;
  summed.summed_noise = true;
  const Outcome one = Simulate(1, 7, summed);
  const Outcome four = Simulate(4, 7, summed);
  EXPECT_EQ(one.updater_state, four.updater_state);
  const Outcome per_user = Simulate(2, 7, gaussian);
  EXPECT_EQ(one.ledger, per_user.ledger);
  EXPECT_NE(one.updater_state, per_user.updater_state);
}

// Summed uploads (each client process uploads its users' clipped sum once, the rest zero) only
// round differently: the ledger is the per-user uploads', the coordinator's noise draws are the
// same, so the model stays within the rounding's reach of theirs, and under half the bytes
// arrive. With and without the random projection (docs/results/papers-at-scale.md compares the
// two).
TEST(SimulationTest, SummedUploadsGiveThePerUserUploadsModelUpToRounding) {
  for (const auto projection :
       {algorithms::dpmf_rp::Projection::kSparse, algorithms::dpmf_rp::Projection::kNone}) {
    SCOPED_TRACE(algorithms::dpmf_rp::ProjectionName(projection));
    RunChoice choice{.plain_sum = true,
                     .mechanism = algorithms::dpmf_rp::Mechanism::kGaussian,
                     .summed_noise = true,
                     .projection = projection};
    const Outcome per_user = Simulate(2, 7, choice);
    choice.summed_uploads = true;
    const Outcome summed = Simulate(2, 7, choice);
    EXPECT_EQ(summed.ledger, per_user.ledger);
    EXPECT_LT(summed.bytes_in, per_user.bytes_in / 2);
    const double moved =
        (summed.model.item_factors - per_user.model.item_factors).cwiseAbs().maxCoeff();
    EXPECT_GT(moved, 0);
    EXPECT_LT(moved, 1e-5);
  }
}

// A coordinator of `users` honest in-process users summing in the clear (--plain_sum), running
// `state` on `clock`.
std::unique_ptr<server::Coordinator> PlainSumCoordinator(server::CoordinatorState state,
                                                         int32_t users, server::Clock& clock) {
  server::CoordinatorOptions options;
  options.enrollment_token = kToken;
  options.num_users = users;
  options.simulation_plain_sum = true;
  options.max_failed_rounds = 1;
  return std::make_unique<server::Coordinator>(options, std::move(state), clock);
}

// Two client processes summing in the clear, the users' noise keyed from `noise_seed`.
SimulationOptions PlainSumOptions(uint64_t noise_seed, ProgressClock* clock = nullptr) {
  SimulationOptions options = UserOptions(2, noise_seed);
  options.plain_sum = true;
  options.clock = clock;
  return options;
}

// A run of 2 rounds over the 60 users of Data() with `options`, every user answering: its updater
// state, ledger and bytes in (no final model).
Outcome RunTwoRounds(server::Coordinator& coordinator, const SimulationOptions& options) {
  absl::StatusOr<SimulationReport> report = RunSimulation(coordinator, Data(), options);
  EXPECT_TRUE(report.ok()) << report.status();
  if (!report.ok()) return {};
  EXPECT_EQ(report->status.round(), 2);
  EXPECT_EQ(report->status.dropouts(), 0);
  const server::CoordinatorState& state = coordinator.state();
  return Outcome{state.updater->SerializeState().value(),
                 dp::SerializeLedger(state.ledger),
                 {},
                 report->status.bytes_in()};
}

// LFL-SGDMF (two-phase noise) with every user in both phases of 2 rounds, the noise shares
// drawn by each user or (summed) by the coordinator.
Outcome SimulateLfl(bool summed_noise) {
  v1::LflSgdmfConfig c = algorithms::lfl_sgdmf::testing::SmallConfig(
      v1::LFL_NOISE_TWO_PHASE, 60, 80, /*cohort=*/60, /*omega=*/0.3, /*sigma=*/0);
  c.set_rounds(2);
  c.set_simulation_summed_noise(summed_noise);
  auto coordinator = PlainSumCoordinator(
      server::CoordinatorState{
          "lfl-sgdmf", algorithms::lfl_sgdmf::LflSgdmfUpdater::Create(c).value(),
          dp::PrivacyLedger::Create().value(), 1, c.rounds(), server::FixedPopulation()},
      60, server::SteadyClock::Get());
  return RunTwoRounds(*coordinator, PlainSumOptions(7));
}

// LFL-SGDMF with summed noise: the users upload their rating's row only, the coordinator draws
// both phases' noise; the ledger is the per-user noise run's, and a fraction of the bytes arrive.
TEST(SimulationTest, LflSummedNoiseIsAccountedAsPerUserNoise) {
  const Outcome per_user = SimulateLfl(false);
  const Outcome summed = SimulateLfl(true);
  EXPECT_EQ(summed.ledger, per_user.ledger);
  EXPECT_FALSE(summed.ledger.empty());
  EXPECT_LT(summed.bytes_in, per_user.bytes_in / 10);
}

// The run fedmf-sim sets up for hdpmf with the options `set` (sound mode by default), every user in
// each of 2 rounds at whole-run epsilon 5.
server::ProcessRun HdpmfRun(const std::vector<std::string>& set) {
  server::ProcessRun run;
  run.spec.set_algorithm("hdpmf");
  for (const std::string& option : set) run.spec.add_set(option);
  run.spec.set_rounds(2);
  run.spec.set_participation(1);
  run.spec.set_epsilon(5);
  run.spec.set_seed(1);
  return run;
}

// HdpmfRun({}) over the 60 users on `client_processes` processes summing in the clear, the noise
// shares drawn by each user or (summed) by the coordinator.
Outcome SimulateHdpmf(bool summed_noise, int client_processes) {
  absl::StatusOr<server::CoordinatorState> state =
      server::InitialStateForRun(HdpmfRun({}), 60, 80, summed_noise);
  EXPECT_TRUE(state.ok()) << state.status();
  if (!state.ok()) return {};
  auto coordinator = PlainSumCoordinator(*std::move(state), 60, server::SteadyClock::Get());
  SimulationOptions options = PlainSumOptions(7);
  options.client_processes = client_processes;
  return RunTwoRounds(*coordinator, options);
}

// HDPMF with summed noise: the users upload their rated items' rows only and the coordinator draws
// the noise, so the run is a function of the seeds, not of the client processes; the ledger is the
// per-user noise run's, the model is not (other draws), and fewer bytes arrive. The
// noiseless variant mf has nothing to sum: refused, naming it.
TEST(SimulationTest, HdpmfSummedNoiseRunsAreReproducibleAndAccountedAsPerUserNoise) {
  const Outcome one = SimulateHdpmf(true, 1);
  const Outcome four = SimulateHdpmf(true, 4);
  EXPECT_EQ(one.updater_state, four.updater_state);
  const Outcome per_user = SimulateHdpmf(false, 2);
  EXPECT_EQ(one.ledger, per_user.ledger);
  EXPECT_FALSE(one.ledger.empty());
  EXPECT_NE(one.updater_state, per_user.updater_state);
  EXPECT_LT(one.bytes_in, per_user.bytes_in / 2);  // 12 of 80 rows, an index with each value
  EXPECT_THAT(server::InitialStateForRun(HdpmfRun({"mode=paper", "variant=mf"}), 60, 80, true)
                  .status()
                  .message(),
              HasSubstr("hdpmf except its noiseless variant mf"));
}

// The scale runs CI keeps (`tools/experiments/run.py scale` runs them at MovieLens-20M's shape):
// `algorithm` with the options `set`, set up as fedmf-sim sets up a run, over 20,000 users of 300
// items, every one in each of 2 rounds at whole-run epsilon 5, on the progress clock. Every round
// applies with every user (in every phase), and an (epsilon, delta) budget's ledger stays within
// it (a pure-epsilon run's status reports its RDP curve's conversion, a little above). The Release
// suite runs them; the sanitizer preset excludes them by name (CMakePresets.json: most of a minute
// each under ASan at -O0 for the code paths the 60-user tests above already run there).
void ExpectTwentyThousandUsersEveryRound(const std::string& algorithm,
                                         const std::vector<std::string>& set, bool summed_noise,
                                         bool summed_uploads, bool pure_epsilon = false) {
  constexpr int32_t kUsers = 20000;
  data::SyntheticConfig d;
  d.num_users = kUsers;
  d.num_items = 300;
  d.ratings_per_user = 10;
  d.min_ratings_per_user = 5;
  d.seed = 4;
  auto data = std::make_shared<const data::RatingsDataset>(data::GenerateSynthetic(d).value());
  server::ProcessRun run;
  run.spec.set_algorithm(algorithm);
  for (const std::string& option : set) run.spec.add_set(option);
  run.spec.set_rounds(2);
  run.spec.set_participation(1);
  run.spec.set_epsilon(5);
  run.spec.set_seed(1);
  absl::StatusOr<server::CoordinatorState> state =
      server::InitialStateForRun(run, kUsers, 300, summed_noise);
  ASSERT_TRUE(state.ok()) << state.status();
  ProgressClock clock(server::SteadyClock::Get());
  auto coordinator = PlainSumCoordinator(*std::move(state), kUsers, clock);
  SimulationOptions options = PlainSumOptions(1, &clock);
  options.summed_uploads = summed_uploads;
  absl::StatusOr<SimulationReport> report = RunSimulation(*coordinator, data, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->status.round(), 2);
  EXPECT_EQ(report->status.participants(), kUsers);
  EXPECT_EQ(report->status.dropouts(), 0);
  EXPECT_GT(report->status.epsilon_dp(), 0);
  if (!pure_epsilon) {
    EXPECT_LE(report->status.epsilon_dp(), 5 * (1 + 1e-9));
  }
}

// DPMF-RP Gaussian at (5, 1e-5)-DP with summed noise and uploads; the calibration spends the
// budget.
TEST(SimulationTest, TwentyThousandUsersEveryRoundDpmfRp) {
  ExpectTwentyThousandUsersEveryRound(
      "dpmf-rp", {"mechanism=gaussian", "item_model=full", "rank=4"}, true, true);
}

// LFL-SGDMF with two-phase noise, summed.
TEST(SimulationTest, TwentyThousandUsersEveryRoundLflSgdmf) {
  ExpectTwentyThousandUsersEveryRound("lfl-sgdmf", {}, true, false);
}

// Local-DP GD-DR in the paper's mode (one Phi for the run), each user's own noise.
TEST(SimulationTest, TwentyThousandUsersEveryRoundLdpGdDr) {
  ExpectTwentyThousandUsersEveryRound("ldp-gd-dr", {}, false, false, /*pure_epsilon=*/true);
}

TEST(SimulationTest, MoreProcessesThanUsersIsCappedAtOneUserEach) {
  auto data = Data();
  auto coordinator = MakeCoordinator();
  absl::StatusOr<SimulationReport> report =
      RunSimulation(*coordinator, data,
                    SimulationOptions{.client_processes = 100,
                                      .parties = {},
                                      .item_genres = "",
                                      .data_spec = "",
                                      .noise_seed = 1,
                                      .enrollment_token = kToken,
                                      .test = nullptr,
                                      .plain_sum = false});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->client_processes, 60);
  EXPECT_EQ(report->status.round(), 3);
}

TEST(SimulationTest, RefusalsAndBadOptionsAreErrors) {
  auto data = Data();
  auto coordinator = MakeCoordinator();
  EXPECT_EQ(RunSimulation(*coordinator, data,
                          SimulationOptions{.client_processes = 2,
                                            .parties = {},
                                            .item_genres = "",
                                            .data_spec = "",
                                            .enrollment_token = "wrong",
                                            .test = nullptr,
                                            .plain_sum = false})
                .status()
                .code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(RunSimulation(*coordinator, data,
                          SimulationOptions{.client_processes = 0,
                                            .parties = {},
                                            .item_genres = "",
                                            .data_spec = "",
                                            .enrollment_token = kToken,
                                            .test = nullptr,
                                            .plain_sum = false})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(coordinator->state().updater->round(), 0);  // nothing ran
}

}  // namespace
}  // namespace fedmf::sim
