// Fixed-population runs of the Coordinator (population.h) with in-process clients: a test-local
// updater of two phases per round (DPMF-RP's plan, summed twice) that asks for a fixed
// population. Every phase's cohort is the whole population with SecAgg threshold = cohort (on a
// Harary graph: every neighbourhood whole); losing a member (silent, declining) ends the run with a
// reason; late registrants are never invited; a restarted coordinator keeps the checkpoint's
// population.
#include <algorithm>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "client/participant_host.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "common/data/synthetic.h"
#include "gtest/gtest.h"
#include "server/coordinator.h"
#include "tests/unit/server/fake_client.h"

namespace fedmf::server {
namespace {

// DPMF-RP's round as two phases: phase 0's sum is only counted, phase 1 (for phase 0's
// contributors) applies DPMF-RP's; a fixed population.
class TwoPhaseUpdater final : public algorithms::Updater {
 public:
  explicit TwoPhaseUpdater(std::unique_ptr<algorithms::Updater> inner) : inner_(std::move(inner)) {}

  int64_t round() const override { return inner_->round(); }
  absl::StatusOr<v1::RoundPlan> Plan() const override {
    absl::StatusOr<v1::RoundPlan> plan = inner_->Plan();
    if (plan.ok()) plan->set_phase(phase_);
    return plan;
  }
  std::vector<uint32_t> PhaseParticipants() const override {
    return phase_ == 0 ? std::vector<uint32_t>() : phase0_contributors_;
  }
  absl::Status ApplySum(absl::Span<const uint64_t> sum,
                        absl::Span<const uint32_t> contributors) override {
    if (phase_ == 0) {
      phase0_contributors_.assign(contributors.begin(), contributors.end());
      phase_ = 1;
      return absl::OkStatus();
    }
    if (absl::Status s = inner_->ApplySum(sum, contributors); !s.ok()) return s;
    phase_ = 0;
    return absl::OkStatus();
  }
  void AbandonRound() override { phase_ = 0; }
  absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t participants, const std::vector<double>& orders) const override {
    return inner_->RoundPrivacy(participants, orders);
  }
  bool fixed_population() const override { return true; }
  std::optional<dp::PrivacyBudget> budget() const override { return inner_->budget(); }
  absl::StatusOr<std::string> SerializeState() const override { return inner_->SerializeState(); }

 private:
  std::unique_ptr<algorithms::Updater> inner_;
  int phase_ = 0;
  std::vector<uint32_t> phase0_contributors_;
};

constexpr int kClients = 4;  // each hosting 10 of the 40 users (testing::Shard)

// Every user may take part (participation 1: max_contributors 40), n_min 3, `rounds` rounds.
// Stages wait up to 20 s: only a silent client ever waits that long.
std::unique_ptr<Coordinator> MakeTwoPhaseCoordinator(int64_t rounds, int64_t wait_for_users = 0,
                                                     FixedPopulation population = {},
                                                     int harary_degree = 0) {
  algorithms::dpmf_rp::DpmfRpConfig c = testing::SmallRun(rounds);
  c.participation = 1;
  CoordinatorOptions options;
  options.enrollment_token = "token";
  options.num_users = 40;
  options.stage_timeout = absl::Seconds(20);
  options.wait_for_users = wait_for_users;
  options.max_failed_rounds = 3;
  if (harary_degree > 0) {
    options.secagg_graph = GraphMode::kHarary;
    options.harary_degree = harary_degree;
  }
  return std::make_unique<Coordinator>(
      options,
      CoordinatorState{
          "two-phase",
          std::make_unique<TwoPhaseUpdater>(algorithms::dpmf_rp::DpmfRpUpdater::Create(c).value()),
          dp::PrivacyLedger::Create().value(), 1, rounds, std::move(population)});
}

std::unique_ptr<testing::FakeClient> Client(Coordinator& coordinator, int i,
                                            testing::FakeClientOptions hooks = {}) {
  return std::make_unique<testing::FakeClient>(
      coordinator,
      client::ParticipantHost::Create(testing::SmallDataset(), testing::Shard(i, kClients, 40))
          .value(),
      i + 1, std::move(hooks));
}

// The kClients clients, the last one with `last`'s hooks.
std::vector<std::unique_ptr<testing::FakeClient>> Clients(Coordinator& coordinator,
                                                          const testing::FakeClientOptions& last) {
  std::vector<std::unique_ptr<testing::FakeClient>> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(
        Client(coordinator, i, i == kClients - 1 ? last : testing::FakeClientOptions{}));
  }
  return clients;
}

// Participant ids of client i: users u with u % kClients == i, id u + 1.
std::vector<uint32_t> IdsOf(int i) {
  std::vector<uint32_t> ids;
  for (int32_t u : testing::Shard(i, kClients, 40)) ids.push_back(static_cast<uint32_t>(u) + 1);
  return ids;
}

// The coordinator's Run() to its end (at most 60 s, then stopped).
absl::Status RunToEnd(Coordinator& coordinator, std::future<absl::Status>& run) {
  if (run.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    coordinator.Stop();
    run.wait();
    return absl::DeadlineExceededError("coordinator did not finish in 60 s");
  }
  return run.get();
}

std::future<absl::Status> Start(Coordinator& coordinator) {
  return std::async(std::launch::async, [&coordinator] { return coordinator.Run(); });
}

// Polls `condition` until it holds (true) or 60 s pass (false).
bool Eventually(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// Every task a client got is for a SecAgg session of `cohort` with threshold `cohort`; the
// (round, phase) pairs it saw.
std::set<std::pair<int64_t, int32_t>> CheckTasks(testing::FakeClient& client, int cohort) {
  std::set<std::pair<int64_t, int32_t>> seen;
  for (const v1::RoundTask& task : client.tasks()) {
    EXPECT_EQ(task.secagg().num_clients(), cohort);
    EXPECT_EQ(task.secagg().threshold(), cohort);
    EXPECT_EQ(task.participant_ids_size(), 10);
    seen.emplace(task.round(), task.plan().phase());
  }
  return seen;
}

TEST(CoordinatorPopulationTest, EveryPhaseIsTheWholePopulationWithFullThreshold) {
  auto coordinator = MakeTwoPhaseCoordinator(2);
  std::vector<std::unique_ptr<testing::FakeClient>> clients = Clients(*coordinator, {});
  std::future<absl::Status> run = Start(*coordinator);
  const absl::Status status = RunToEnd(*coordinator, run);
  ASSERT_TRUE(status.ok()) << status;
  const v1::StatusResponse s = coordinator->Status();
  EXPECT_EQ(s.round(), 2);
  EXPECT_EQ(s.population(), 40);
  EXPECT_EQ(s.participants(), 40);
  EXPECT_EQ(coordinator->state().population.size(), 40);
  for (auto& client : clients) {
    EXPECT_EQ(CheckTasks(*client, 40),
              (std::set<std::pair<int64_t, int32_t>>{{0, 0}, {0, 1}, {1, 0}, {1, 1}}));
    EXPECT_TRUE(Eventually([&] { return client->done_reason() == "rounds done"; }));
  }
}

// On SecAgg+'s Harary graph of degree 4 a fixed population still sums everyone in every phase:
// each session is the whole population, and each neighbourhood (the client and its 4 neighbours)
// must be whole to unmask, t = 5, so nobody can be left out.
TEST(CoordinatorPopulationTest, AHararyGraphSumsTheWholePopulationWithWholeNeighbourhoods) {
  auto coordinator = MakeTwoPhaseCoordinator(1, 0, {}, 4);
  std::vector<std::unique_ptr<testing::FakeClient>> clients = Clients(*coordinator, {});
  std::future<absl::Status> run = Start(*coordinator);
  const absl::Status status = RunToEnd(*coordinator, run);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(coordinator->Status().round(), 1);
  EXPECT_EQ(coordinator->Status().participants(), 40);
  for (auto& client : clients) {
    std::set<std::pair<int64_t, int32_t>> seen;
    for (const v1::RoundTask& task : client->tasks()) {
      EXPECT_EQ(task.secagg().num_clients(), 40);
      EXPECT_TRUE(task.secagg().harary_graph());
      EXPECT_EQ(task.secagg().degree(), 4);
      EXPECT_EQ(task.secagg().threshold(), 5);
      seen.emplace(task.round(), task.plan().phase());
    }
    EXPECT_EQ(seen, (std::set<std::pair<int64_t, int32_t>>{{0, 0}, {0, 1}}));
    EXPECT_TRUE(Eventually([&] { return client->done_reason() == "rounds done"; }));
  }
}

// The last client answers phase 0 but disconnects when phase 1's task comes: the run ends,
// naming its participants, without another attempt.
TEST(CoordinatorPopulationTest, AMemberLostMidRunEndsTheRun) {
  auto coordinator = MakeTwoPhaseCoordinator(2);
  testing::FakeClientOptions lost_in_phase1;
  lost_in_phase1.disconnect_on = [](const v1::ServerMessage& m) {
    return m.has_task() && m.task().plan().phase() == 1;
  };
  std::vector<std::unique_ptr<testing::FakeClient>> clients = Clients(*coordinator, lost_in_phase1);
  std::future<absl::Status> run = Start(*coordinator);
  const absl::Status status = RunToEnd(*coordinator, run);
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted) << status;
  EXPECT_NE(status.message().find("fixed population of 40 lost 10 participants: 4, 8, 12"),
            std::string::npos)
      << status;
  EXPECT_NE(status.message().find("phase 1 of round 0"), std::string::npos) << status;
  EXPECT_EQ(coordinator->state().updater->round(), 0);
  EXPECT_EQ(coordinator->Status().stage(), "done");
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(Eventually([&] { return clients[i]->done_reason() == status.message(); }))
        << clients[i]->done_reason();
    // One attempt: phase 0 and phase 1 of round 0, no fresh cohort.
    EXPECT_EQ(CheckTasks(*clients[i], 40), (std::set<std::pair<int64_t, int32_t>>{{0, 0}, {0, 1}}));
  }
}

// Participant 4 declines (a SecAgg Abort, as when its own budget is spent): the run ends.
TEST(CoordinatorPopulationTest, ADecliningMemberEndsTheRun) {
  auto coordinator = MakeTwoPhaseCoordinator(1);
  testing::FakeClientOptions declining;
  declining.tamper = [](v1::ClientMessage& reply) {
    if (reply.has_secagg() && reply.secagg().participant_id() == 4 &&
        reply.secagg().message().has_advertise_keys()) {
      reply.mutable_secagg()->mutable_message()->mutable_abort()->set_reason("budget spent");
    }
  };
  std::vector<std::unique_ptr<testing::FakeClient>> clients = Clients(*coordinator, declining);
  std::future<absl::Status> run = Start(*coordinator);
  const absl::Status status = RunToEnd(*coordinator, run);
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted) << status;
  EXPECT_NE(status.message().find("lost 1 participant: 4 (dropped out of phase 0 of round 0"),
            std::string::npos)
      << status;
  EXPECT_EQ(coordinator->state().updater->round(), 0);
}

// The population freezes at the 30 users of three clients (--wait_for_users=30); the fourth
// client registers afterwards and is never invited.
TEST(CoordinatorPopulationTest, LateRegistrantsAreNotInvited) {
  auto coordinator = MakeTwoPhaseCoordinator(1, /*wait_for_users=*/30);
  std::vector<std::unique_ptr<testing::FakeClient>> clients;
  for (int i = 0; i < 3; ++i) clients.push_back(Client(*coordinator, i));
  std::future<absl::Status> run = Start(*coordinator);
  ASSERT_TRUE(Eventually([&] { return coordinator->Status().population() == 30; }));
  clients.push_back(Client(*coordinator, 3));
  const absl::Status status = RunToEnd(*coordinator, run);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(coordinator->Status().round(), 1);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(CheckTasks(*clients[i], 30), (std::set<std::pair<int64_t, int32_t>>{{0, 0}, {0, 1}}));
  }
  EXPECT_TRUE(clients[3]->tasks().empty());
}

// A coordinator resumed with a population (the checkpoint's: the first three clients' users)
// waits for exactly it and runs every phase with it, though a fourth client is live.
TEST(CoordinatorPopulationTest, AResumedRunKeepsItsPopulation) {
  std::vector<uint32_t> members;
  for (int i = 0; i < 3; ++i) {
    for (uint32_t id : IdsOf(i)) members.push_back(id);
  }
  std::sort(members.begin(), members.end());
  auto coordinator =
      MakeTwoPhaseCoordinator(1, /*wait_for_users=*/0, FixedPopulation::Restore(members).value());
  std::vector<std::unique_ptr<testing::FakeClient>> clients;
  clients.push_back(Client(*coordinator, 3));  // not a member
  for (int i = 0; i < 3; ++i) clients.push_back(Client(*coordinator, i));
  std::future<absl::Status> run = Start(*coordinator);
  const absl::Status status = RunToEnd(*coordinator, run);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(coordinator->Status().population(), 30);
  EXPECT_TRUE(clients[0]->tasks().empty());
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(CheckTasks(*clients[i], 30), (std::set<std::pair<int64_t, int32_t>>{{0, 0}, {0, 1}}));
  }
}

}  // namespace
}  // namespace fedmf::server
