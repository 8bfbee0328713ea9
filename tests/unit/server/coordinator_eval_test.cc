// Federated evaluation rounds of the Coordinator (evaluation_rounds.h) without sockets: client
// processes are ParticipantHosts (train and test parts of one split) behind in-process
// connections (testing::FakeClient).
#include <chrono>
#include <cmath>
#include <future>
#include <map>
#include <optional>
#include <thread>
#include <vector>

#include "client/participant_host.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "common/data/splits.h"
#include "common/data/synthetic.h"
#include "common/metrics/metric_codec.h"
#include "gtest/gtest.h"
#include "server/coordinator.h"
#include "server/evaluation.h"
#include "tests/unit/server/fake_client.h"
#include "wire/chunking.h"
#include "wire/envelope.h"

namespace fedmf::server {
namespace {

std::shared_ptr<const data::TrainTest> Split() {
  const data::RatingsDataset all = data::GenerateSynthetic(testing::SmallData()).value();
  return std::make_shared<const data::TrainTest>(data::SplitHoldoutPerUser(all, 0.25, 3).value());
}

// Stages end after 300 ms, enough for the training cohort of 10; an evaluation of all 40 users
// needs more in a sanitizer build (~1 s for its ShareKeys).
CoordinatorOptions EvalOptions(int64_t eval_every, double eval_participation = 0,
                               absl::Duration stage_timeout = absl::Milliseconds(300)) {
  CoordinatorOptions options;
  options.eval_every = eval_every;
  options.eval_participation = eval_participation;
  options.stage_timeout = stage_timeout;
  return options;
}

// Cohort 10 of 40 users, n_min 3.
std::unique_ptr<Coordinator> MakeEvaluatingCoordinator(
    int64_t rounds, CoordinatorOptions options,
    algorithms::dpmf_rp::Mechanism mechanism = algorithms::dpmf_rp::Mechanism::kNone) {
  algorithms::dpmf_rp::DpmfRpConfig c = testing::SmallRun(rounds);
  c.mechanism = mechanism;
  c.epsilon = 1;
  options.enrollment_token = "token";
  options.num_users = 40;
  options.dropout_fraction = 0.6;
  options.max_failed_rounds = 3;
  return std::make_unique<Coordinator>(
      options, CoordinatorState{"dpmf-rp", algorithms::dpmf_rp::DpmfRpUpdater::Create(c).value(),
                                dp::PrivacyLedger::Create().value(), 1, rounds, FixedPopulation()});
}

// Runs the coordinator to the end (at most 30 s) with 4 client processes (user u in process
// u % 4); the last one is silent in evaluation rounds if asked. Returns the evaluation result
// rounds the first process saw; `chunks_received` (if set): chunk messages all processes got.
absl::StatusOr<std::vector<int64_t>> RunWith(Coordinator& coordinator, const data::TrainTest& split,
                                             bool last_silent_in_evaluation = false,
                                             size_t chunk_bytes = wire::kDefaultChunkBytes,
                                             int64_t* chunks_received = nullptr) {
  std::vector<std::unique_ptr<testing::FakeClient>> clients;
  for (int i = 0; i < 4; ++i) {
    auto host =
        client::ParticipantHost::Create(std::make_shared<const data::RatingsDataset>(split.train),
                                        testing::Shard(i, 4, 40),
                                        std::make_shared<const data::RatingsDataset>(split.test))
            .value();
    host->set_chunk_bytes(chunk_bytes);
    testing::FakeClientOptions hooks;
    if (i == 3 && last_silent_in_evaluation) {
      // Ignores evaluation tasks and their SecAgg messages (a dropout).
      hooks.ignore = [](const v1::ServerMessage& m) {
        return (m.has_task() && m.task().plan().phase() == wire::kEvaluationPhase) ||
               (m.has_secagg() && m.secagg().phase() == wire::kEvaluationPhase);
      };
    }
    clients.push_back(
        std::make_unique<testing::FakeClient>(coordinator, std::move(host), i + 1, hooks));
  }
  std::future<absl::Status> run = std::async(std::launch::async, [&] { return coordinator.Run(); });
  if (run.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    coordinator.Stop();
    run.wait();
    return absl::DeadlineExceededError("coordinator did not finish in 30 s");
  }
  if (absl::Status s = run.get(); !s.ok()) return s;
  // The final results are sent before Run returns; give the pump a moment to read them.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (chunks_received != nullptr) {
    *chunks_received = 0;
    for (const auto& c : clients) *chunks_received += c->chunks_received();
  }
  return clients[0]->evaluation_results();
}

TEST(CoordinatorEvalTest, EvaluatesEveryNthRoundAndAfterTheLast) {
  auto split = Split();
  auto coordinator = MakeEvaluatingCoordinator(3, EvalOptions(2));
  absl::StatusOr<std::vector<int64_t>> evaluated = RunWith(*coordinator, *split);
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_EQ(*evaluated, (std::vector<int64_t>{2, 3}));
  const v1::StatusResponse s = coordinator->Status();
  EXPECT_EQ(s.round(), 3);
  ASSERT_TRUE(s.has_federated_evaluation());
  const v1::FederatedEvaluation& e = s.federated_evaluation();
  EXPECT_EQ(e.round(), 3);
  EXPECT_EQ(e.contributors(), 10);  // the training cohort size
  EXPECT_GT(e.num_ratings(), 0);
  EXPECT_GT(e.rmse(), 0);
  EXPECT_EQ(e.clamped_users(), 0);
}

TEST(CoordinatorEvalTest, OffByDefault) {
  auto split = Split();
  auto coordinator = MakeEvaluatingCoordinator(2, EvalOptions(0));
  absl::StatusOr<std::vector<int64_t>> evaluated = RunWith(*coordinator, *split);
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_TRUE(evaluated->empty());
  EXPECT_FALSE(coordinator->Status().has_federated_evaluation());
}

// --eval_every=auto: a run without noise evaluates (here only after its last round, before the
// 10th); a private run does not, since the sums would be released without noise.
TEST(CoordinatorEvalTest, AutoEvaluatesOnlyARunWithoutNoise) {
  auto split = Split();
  const CoordinatorOptions automatic = EvalOptions(CoordinatorOptions::kEvalEveryAuto);
  auto plain = MakeEvaluatingCoordinator(2, automatic);
  absl::StatusOr<std::vector<int64_t>> evaluated = RunWith(*plain, *split);
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_EQ(*evaluated, (std::vector<int64_t>{2}));
  auto private_run = MakeEvaluatingCoordinator(2, automatic, algorithms::dpmf_rp::Mechanism::kPbm);
  evaluated = RunWith(*private_run, *split);
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_TRUE(evaluated->empty());
  EXPECT_EQ(private_run->Status().round(), 2);
  EXPECT_FALSE(private_run->Status().has_federated_evaluation());
}

// With every user sampled and no dropout, the federated metrics are the central ones of the
// same model (server/evaluation.h) up to the fixed-point rounding: each of the 40 users' values
// is rounded to 2^-f (f = 61 - 24 - ceil(log2 40) = 31), so a sum moves by at most
// 40 * 2^-32; RMSE = sqrt(S / N) by at most that / (N (rmse_fed + rmse_central)), a mean over
// R users by at most that / R. 1e-12 relative covers the two double summation orders.
TEST(CoordinatorEvalTest, FederatedMetricsEqualCentralWhenEveryUserIsSampled) {
  auto split = Split();
  std::mutex mu;
  std::optional<Evaluation> central;  // the last central evaluation: the final model's
  CoordinatorOptions options = EvalOptions(1, 1, absl::Seconds(10));
  options.evaluate = [&](const algorithms::Updater& u) -> absl::StatusOr<Evaluation> {
    absl::StatusOr<Evaluation> e = Evaluate(u, *split);
    std::lock_guard<std::mutex> lock(mu);
    if (e.ok()) central = *e;
    return e;
  };
  auto coordinator = MakeEvaluatingCoordinator(2, options);
  absl::StatusOr<std::vector<int64_t>> evaluated = RunWith(*coordinator, *split);
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_EQ(*evaluated, (std::vector<int64_t>{1, 2}));
  const v1::FederatedEvaluation fed = coordinator->Status().federated_evaluation();
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_TRUE(central.has_value());
  const int f = metrics::MetricCodec::ForContributors(40)->fraction_bits();
  ASSERT_EQ(f, 31);
  const double sum_bound = 40 * std::ldexp(1.0, -(f + 1));
  EXPECT_EQ(fed.contributors(), 40);
  ASSERT_TRUE(central->errors.has_value());  // a factor model predicts ratings
  EXPECT_FALSE(fed.rating_errors_absent());
  EXPECT_EQ(fed.num_ratings(), central->errors->num_ratings);
  EXPECT_EQ(fed.error_users(), central->errors->num_users);
  EXPECT_EQ(fed.ranking_users(), central->ranking.num_users);
  const double n = static_cast<double>(fed.num_ratings());
  EXPECT_NEAR(fed.rmse(), central->errors->rmse,
              sum_bound / (n * (fed.rmse() + central->errors->rmse)) + 1e-12 * fed.rmse());
  EXPECT_NEAR(fed.mae(), central->errors->mae, sum_bound / n + 1e-12 * fed.mae());
  const double r = static_cast<double>(fed.ranking_users());
  EXPECT_NEAR(fed.precision(), central->ranking.precision, sum_bound / r + 1e-12);
  EXPECT_NEAR(fed.recall(), central->ranking.recall, sum_bound / r + 1e-12);
  EXPECT_NEAR(fed.map(), central->ranking.map, sum_bound / r + 1e-12);
}

// A process whose ten users never answer evaluation rounds: SecAgg drops them at the 3 s
// deadline of AdvertiseKeys (40 users, threshold max(2, 3, 40 - floor(0.6 * 40)) = 16), the sum
// holds the other 30, and training round 3 runs as usual between the two evaluations.
TEST(CoordinatorEvalTest, SilentUsersAreDroppedAndTrainingGoesOn) {
  auto split = Split();
  auto coordinator = MakeEvaluatingCoordinator(3, EvalOptions(2, 1, absl::Seconds(3)));
  absl::StatusOr<std::vector<int64_t>> evaluated =
      RunWith(*coordinator, *split, /*last_silent_in_evaluation=*/true);
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_EQ(*evaluated, (std::vector<int64_t>{2, 3}));
  const v1::StatusResponse s = coordinator->Status();
  EXPECT_EQ(s.round(), 3);
  EXPECT_EQ(s.federated_evaluation().contributors(), 30);
  EXPECT_EQ(s.dropouts(), 10);
}

// Evaluation rounds release sums without noise and are not charged: a PBM run spends the same
// privacy with and without them.
TEST(CoordinatorEvalTest, EvaluationIsNotChargedToTheLedger) {
  auto split = Split();
  auto with = MakeEvaluatingCoordinator(2, EvalOptions(1), algorithms::dpmf_rp::Mechanism::kPbm);
  ASSERT_TRUE(RunWith(*with, *split).ok());
  auto without = MakeEvaluatingCoordinator(2, EvalOptions(0), algorithms::dpmf_rp::Mechanism::kPbm);
  ASSERT_TRUE(RunWith(*without, *split).ok());
  EXPECT_TRUE(with->Status().has_federated_evaluation());
  EXPECT_GT(without->Status().epsilon_rdp2(), 0);
  EXPECT_EQ(with->Status().epsilon_rdp2(), without->Status().epsilon_rdp2());
}

// Evaluation tasks and evaluation-tagged SecAgg messages go as 64-byte chunks both ways (every
// message is larger), and an evaluation round's traffic is accounted as a round of its own: the
// evaluation after training round 2 is the last finished round, with its cohort of 10.
TEST(CoordinatorEvalTest, EvaluationRoundsChunkBothWaysAndReportTheirOwnTraffic) {
  auto split = Split();
  CoordinatorOptions options = EvalOptions(2, 0, absl::Seconds(3));
  options.chunk_bytes = 64;
  auto coordinator = MakeEvaluatingCoordinator(2, options);
  int64_t chunks = 0;
  absl::StatusOr<std::vector<int64_t>> evaluated =
      RunWith(*coordinator, *split, /*last_silent_in_evaluation=*/false, 64, &chunks);
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_EQ(*evaluated, (std::vector<int64_t>{2}));
  EXPECT_GT(chunks, 0);
  const v1::StatusResponse s = coordinator->Status();
  ASSERT_TRUE(s.has_federated_evaluation());
  EXPECT_EQ(s.federated_evaluation().contributors(), 10);
  EXPECT_TRUE(s.traffic_evaluation());
  EXPECT_EQ(s.traffic_round(), 2);
  EXPECT_EQ(s.traffic_cohort(), 10);
  std::map<std::string, const v1::StageTraffic*> stages;
  for (const v1::StageTraffic& t : s.traffic()) stages[t.stage()] = &t;
  for (const char* stage :
       {"task", "advertise_keys", "share_keys", "masked_input", "unmasking", "result"}) {
    ASSERT_TRUE(stages.count(stage)) << stage;
  }
  EXPECT_GT(stages["task"]->down_bytes(), 0);        // the evaluation's RoundTasks
  EXPECT_GT(stages["masked_input"]->up_bytes(), 0);  // the masked metric vectors
  EXPECT_EQ(stages["result"]->up_bytes(), 0);
  EXPECT_GT(stages["result"]->down_bytes(), 0);  // the evaluation RoundResult
}

}  // namespace
}  // namespace fedmf::server
