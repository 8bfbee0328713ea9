// Whole rounds of the Coordinator without sockets: client processes are ParticipantHosts behind
// in-process connections (testing::FakeClient). Covers honest runs, clients that
// go silent mid-round (dropped at the stage deadline, recovered by SecAgg) and clients that send
// garbage (rejected, never a crash).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "client/participant_host.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "common/data/synthetic.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/coordinator.h"
#include "tests/unit/server/fake_client.h"
#include "wire/clear_upload.h"
#include "wire/limits.h"

namespace fedmf::server {
namespace {

enum class Behavior { kHonest, kSilentAfterAdvertise, kGarbage, kSparse, kMalformedSparse };

// The fake client's hooks for `behavior`; `garbage` seeds the scrambled payloads.
testing::FakeClientOptions Hooks(Behavior behavior, uint64_t garbage_seed) {
  testing::FakeClientOptions o;
  if (behavior == Behavior::kSilentAfterAdvertise) {
    o.ignore = [](const v1::ServerMessage& m) { return m.has_secagg(); };
  }
  if (behavior == Behavior::kGarbage) {
    // Replaces the SecAgg payload with random bytes read as a ClientToServer, or a random-length
    // advertisement when they do not parse.
    auto garbage = std::make_shared<std::mt19937_64>(garbage_seed);
    o.tamper = [garbage](v1::ClientMessage& reply) {
      std::string bytes(std::uniform_int_distribution<int>(0, 80)(*garbage), '\0');
      for (char& c : bytes) c = static_cast<char>((*garbage)());
      v1::secagg::ClientToServer junk;
      if (!junk.ParseFromString(bytes)) {
        junk.mutable_advertise_keys()->set_c_public_key(bytes);
      }
      *reply.mutable_secagg()->mutable_message() = junk;
    };
  }
  if (behavior == Behavior::kSparse || behavior == Behavior::kMalformedSparse) {
    // Re-sends each clear upload in the sparse form (its non-zero coordinates); malformed, with
    // one more coordinate at index plan.length.
    const bool malformed = behavior == Behavior::kMalformedSparse;
    o.tamper = [malformed](v1::ClientMessage& reply) {
      if (!reply.has_clear_upload()) return;
      const v1::ClearUpload& dense = reply.clear_upload();
      std::vector<uint64_t> indices, values;
      for (int j = 0; j < dense.values_size(); ++j) {
        if (dense.values(j) == 0) continue;
        indices.push_back(static_cast<uint64_t>(j));
        values.push_back(dense.values(j));
      }
      if (malformed) {
        indices.push_back(static_cast<uint64_t>(dense.values_size()));
        values.push_back(1);
      }
      *reply.mutable_clear_upload() = wire::ToClearUpload(
          {dense.round(), dense.phase()}, dense.participant_id(),
          algorithms::ContributionVector::Sparse(std::move(indices), std::move(values)));
    };
  }
  return o;
}

// Cohort 10 of 40 users; SecAgg tolerates 6 dropouts (t = 4); stages end after 300 ms.
CoordinatorOptions SmallRunOptions() {
  CoordinatorOptions options;
  options.enrollment_token = "token";
  options.num_users = 40;
  options.dropout_fraction = 0.6;
  options.stage_timeout = absl::Milliseconds(300);
  options.max_failed_rounds = 3;
  return options;
}

// A fresh DPMF-RP run of `rounds` rounds, n_min `min_clients`.
CoordinatorState SmallRunState(int64_t rounds, bool secure_aggregation = true,
                               int64_t min_clients = 3) {
  algorithms::dpmf_rp::DpmfRpConfig c = testing::SmallRun(rounds);
  c.min_clients = min_clients;
  c.secure_aggregation = secure_aggregation;
  return CoordinatorState{"dpmf-rp", algorithms::dpmf_rp::DpmfRpUpdater::Create(c).value(),
                          dp::PrivacyLedger::Create().value(), 1, rounds, FixedPopulation()};
}

// A one-shot coordinator of SmallRunOptions and SmallRunState; `tune` adjusts the options (graph,
// signatures) before it is built.
std::unique_ptr<Coordinator> MakeCoordinator(
    int64_t rounds, bool secure_aggregation = true,
    const std::function<void(CoordinatorOptions&)>& tune = nullptr, int64_t min_clients = 3) {
  CoordinatorOptions options = SmallRunOptions();
  if (tune) tune(options);
  return std::make_unique<Coordinator>(options,
                                       SmallRunState(rounds, secure_aggregation, min_clients));
}

// A Register request for user `id` with enrollment token "token".
v1::RegisterRequest RegisterUser(uint32_t id) {
  v1::RegisterRequest request;
  request.set_protocol_version(wire::kProtocolVersion);
  request.set_enrollment_token("token");
  request.set_signing_public_key(std::string(32, 'k'));
  request.add_participant_ids(id);
  return request;
}

// Runs the coordinator to the end (at most 30 s) with 4 clients, the last one `last`.
absl::Status RunWith(Coordinator& coordinator, Behavior last, int* last_share_key_requests) {
  auto data = testing::SmallDataset();
  std::vector<std::unique_ptr<testing::FakeClient>> clients;
  for (int i = 0; i < 4; ++i) {
    clients.push_back(std::make_unique<testing::FakeClient>(
        coordinator, client::ParticipantHost::Create(data, testing::Shard(i, 4, 40)).value(), i + 1,
        Hooks(i == 3 ? last : Behavior::kHonest, i + 1)));
  }
  std::future<absl::Status> run = std::async(std::launch::async, [&] { return coordinator.Run(); });
  if (run.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    coordinator.Stop();
    run.wait();
    return absl::DeadlineExceededError("coordinator did not finish in 30 s");
  }
  if (last_share_key_requests != nullptr)
    *last_share_key_requests = clients[3]->share_key_requests();
  return run.get();
}

// The value of `sample` (its name and labels as rendered) in the coordinator's Prometheus scrape;
// -1 when it is absent.
double Scraped(const Coordinator& coordinator, absl::string_view sample) {
  const std::string text =
      coordinator.metrics().Render(coordinator.Status(), absl::UnavailableError("not read"));
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    double value = 0;
    if (absl::ConsumePrefix(&line, sample) && absl::ConsumePrefix(&line, " ") &&
        absl::SimpleAtod(line, &value)) {
      return value;
    }
  }
  return -1;
}

TEST(CoordinatorRoundTest, HonestClientsCompleteEveryRound) {
  auto coordinator = MakeCoordinator(3);
  EXPECT_TRUE(RunWith(*coordinator, Behavior::kHonest, nullptr).ok());
  const v1::StatusResponse s = coordinator->Status();
  EXPECT_EQ(s.round(), 3);
  EXPECT_EQ(s.stage(), "done");
  EXPECT_EQ(s.participants(), 10);
  EXPECT_EQ(s.dropouts(), 0);
  EXPECT_GT(s.bytes_in(), 0);
  EXPECT_GT(s.bytes_out(), 0);
  // The scrape counts the same rounds, each of the five stages once per round.
  EXPECT_EQ(Scraped(*coordinator, "fedmf_aggregations_started_total{kind=\"training\"}"), 3);
  EXPECT_EQ(Scraped(*coordinator, "fedmf_aggregations_applied_total{kind=\"training\"}"), 3);
  EXPECT_EQ(Scraped(*coordinator, "fedmf_aggregations_failed_total{kind=\"training\"}"), 0);
  for (const char* stage :
       {"AdvertiseKeys", "ShareKeys", "MaskedInput", "ConsistencyCheck", "Unmasking"}) {
    const std::string labels = absl::StrCat("{kind=\"training\",stage=\"", stage, "\"}");
    EXPECT_EQ(Scraped(*coordinator, absl::StrCat("fedmf_stage_duration_seconds_count", labels)), 3)
        << stage;
    EXPECT_EQ(Scraped(*coordinator, absl::StrCat("fedmf_stage_dropouts_total", labels)), 0)
        << stage;
  }
  EXPECT_EQ(Scraped(*coordinator, "fedmf_rounds_completed"), 3);
  EXPECT_EQ(Scraped(*coordinator, "fedmf_received_bytes_total"), static_cast<double>(s.bytes_in()));
}

// With a model store, the run publishes its final model (and, with publish_every, the model of
// every other round); a device that registers after the run learns the final version and may
// download it with its session token only.
TEST(CoordinatorRoundTest, TheFinalModelIsPublishedAndOfferedToLateDevices) {
  std::shared_ptr<ModelStore> store = ModelStore::Open({.dir = "", .keep = 5}).value();
  auto coordinator = MakeCoordinator(4, true, [&](CoordinatorOptions& o) {
    o.models = store;
    o.publish_every = 2;
    o.run_id = "run-7";
  });
  auto data = testing::SmallDataset();
  std::vector<std::unique_ptr<testing::FakeClient>> clients;
  for (int i = 0; i < 4; ++i) {
    clients.push_back(std::make_unique<testing::FakeClient>(
        *coordinator, client::ParticipantHost::Create(data, testing::Shard(i, 4, 40)).value(),
        i + 1));
  }
  ASSERT_TRUE(coordinator->Run().ok());
  // Round 2's model, then the final one (round 4): two versions.
  ASSERT_NE(store->Find(1), nullptr);
  EXPECT_EQ(store->Find(1)->version.round(), 2);
  EXPECT_FALSE(store->Find(1)->version.final());
  const std::shared_ptr<const ModelStore::Published> final_model = store->Latest();
  ASSERT_NE(final_model, nullptr);
  EXPECT_EQ(final_model->version.version(), 2);
  EXPECT_TRUE(final_model->version.final());
  EXPECT_EQ(final_model->version.round(), 4);
  EXPECT_EQ(final_model->version.run_id(), "run-7");
  EXPECT_EQ(final_model->version.algorithm(), "dpmf-rp");
  // It is the model the connected clients received with the result that ended training.
  EXPECT_EQ(clients[0]->final_model().SerializeAsString(), final_model->model);
  EXPECT_EQ(coordinator->Status().models().latest().version(), 2);
  EXPECT_EQ(coordinator->Status().models().versions(), 2);
  EXPECT_EQ(Scraped(*coordinator, "fedmf_published_model_latest_version"), 2);

  v1::RegisterResponse response;
  ASSERT_TRUE(coordinator->Register(RegisterUser(40), response, "").ok());
  EXPECT_TRUE(response.training_done());
  EXPECT_EQ(response.latest_model().version(), 2);
  EXPECT_EQ(response.latest_model().sha256(), final_model->version.sha256());
  absl::StatusOr<std::shared_ptr<const ModelStore::Published>> download =
      coordinator->ModelForDownload(response.session_token(), "", 2);
  ASSERT_TRUE(download.ok()) << download.status();
  EXPECT_EQ((*download)->model, final_model->model);
  EXPECT_EQ(coordinator->ModelForDownload(std::string(16, 'x'), "", 2).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(coordinator->ModelForDownload(response.session_token(), "", 9).status().code(),
            absl::StatusCode::kNotFound);
}

// The long-running service's coordinator: built without a run it is idle (a device that
// registers is told to wait, not that training is over); it trains the runs started in turn with
// the same clients, which each run's end (run_done, with its final model) leaves connected, and is
// idle again after each.
TEST(CoordinatorRoundTest, AServiceTrainsItsRunsInTurnWithTheSameClients) {
  std::shared_ptr<ModelStore> store = ModelStore::Open({.dir = "", .keep = 5}).value();
  CoordinatorOptions process = SmallRunOptions();
  process.models = store;
  Coordinator coordinator(process);
  EXPECT_EQ(coordinator.Status().stage(), "idle");
  EXPECT_EQ(coordinator.Run().code(), absl::StatusCode::kFailedPrecondition);
  v1::RegisterResponse waiting;
  ASSERT_TRUE(coordinator.Register(RegisterUser(40), waiting, "").ok());
  EXPECT_FALSE(waiting.training_done());
  EXPECT_FALSE(waiting.session_token().empty());

  auto data = testing::SmallDataset();
  std::vector<std::unique_ptr<testing::FakeClient>> clients;
  for (int i = 0; i < 4; ++i) {
    clients.push_back(std::make_unique<testing::FakeClient>(
        coordinator, client::ParticipantHost::Create(data, testing::Shard(i, 4, 40)).value(),
        i + 1));
  }
  int runs = 0;
  for (const auto& [run_id, rounds] : {std::pair<std::string, int64_t>{"first", 2}, {"second", 3}}) {
    CoordinatorOptions run = process;
    run.run_id = run_id;
    coordinator.StartRun(run, SmallRunState(rounds));
    ASSERT_TRUE(coordinator.Run().ok()) << run_id;
    ++runs;
    EXPECT_EQ(coordinator.state().updater->round(), rounds) << run_id;
    for (const auto& client : clients) {
      EXPECT_EQ(client->runs_ended(), runs) << run_id;
      EXPECT_EQ(client->done_reason(), "rounds done") << run_id;
      EXPECT_EQ(client->handle_errors(), 0) << run_id;
    }
    EXPECT_EQ(coordinator.Status().stage(), "idle") << run_id;
    ASSERT_NE(store->Latest(), nullptr);
    EXPECT_EQ(store->Latest()->version.run_id(), run_id);
    EXPECT_EQ(store->Latest()->version.round(), rounds);
  }
  v1::RegisterResponse late;
  ASSERT_TRUE(coordinator.Register(RegisterUser(39), late, "").ok());
  EXPECT_FALSE(late.training_done());
  EXPECT_EQ(late.latest_model().run_id(), "second");
}

// CancelRun ends the run in progress for good: its clients are told (a training_done result
// saying why), nothing is published, Run returns Cancelled. A cancel between runs is forgotten.
TEST(CoordinatorRoundTest, ACancelledRunEndsForItsClientsAndTheNextRunIsUnaffected) {
  std::shared_ptr<ModelStore> store = ModelStore::Open({.dir = "", .keep = 5}).value();
  CoordinatorOptions process = SmallRunOptions();
  process.models = store;
  Coordinator coordinator(process);
  coordinator.StartRun(process, SmallRunState(3));
  coordinator.CancelRun();
  auto data = testing::SmallDataset();
  {
    testing::FakeClient client(
        coordinator, client::ParticipantHost::Create(data, testing::Shard(0, 4, 40)).value(), 1);
    EXPECT_EQ(coordinator.Run().code(), absl::StatusCode::kCancelled);
    EXPECT_EQ(client.done_reason(), "run cancelled");
  }
  EXPECT_EQ(store->Latest(), nullptr);
  EXPECT_EQ(coordinator.Status().stage(), "idle");

  coordinator.CancelRun();
  coordinator.StartRun(process, SmallRunState(2));
  EXPECT_TRUE(RunWith(coordinator, Behavior::kHonest, nullptr).ok());
  EXPECT_EQ(store->Latest()->version.round(), 2);
  EXPECT_EQ(coordinator.state().updater->round(), 2);
}

// The scrape moves with the rounds: when round r's task reaches a client, r rounds were applied.
TEST(CoordinatorRoundTest, ScrapedCountersMoveWithTheRounds) {
  auto coordinator = MakeCoordinator(3);
  auto data = testing::SmallDataset();
  std::mutex mu;
  std::vector<std::pair<int64_t, double>> seen;  // (task round, applied rounds scraped)
  std::vector<std::unique_ptr<testing::FakeClient>> clients;
  for (int i = 0; i < 4; ++i) {
    testing::FakeClientOptions o;
    if (i == 0) {
      o.ignore = [&](const v1::ServerMessage& m) {
        if (m.has_task()) {
          const double applied =
              Scraped(*coordinator, "fedmf_aggregations_applied_total{kind=\"training\"}");
          std::lock_guard<std::mutex> lock(mu);
          seen.emplace_back(m.task().round(), applied);
        }
        return false;
      };
    }
    clients.push_back(std::make_unique<testing::FakeClient>(
        *coordinator, client::ParticipantHost::Create(data, testing::Shard(i, 4, 40)).value(),
        i + 1, std::move(o)));
  }
  std::future<absl::Status> run =
      std::async(std::launch::async, [&] { return coordinator->Run(); });
  ASSERT_EQ(run.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  EXPECT_TRUE(run.get().ok());
  clients.clear();
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_FALSE(seen.empty());
  for (const auto& [round, applied] : seen) EXPECT_EQ(applied, round) << "task of round " << round;
}

TEST(CoordinatorRoundTest, ClientsSilentAfterAdvertisingAreDroppedAtTheDeadline) {
  auto coordinator = MakeCoordinator(3);
  int silent_in_cohorts = 0;
  EXPECT_TRUE(RunWith(*coordinator, Behavior::kSilentAfterAdvertise, &silent_in_cohorts).ok());
  EXPECT_EQ(coordinator->Status().round(), 3);
  // The silent client's users were in cohorts (they got past AdvertiseKeys) and the rounds still
  // completed: SecAgg removed their masks from the unmasking shares of the others.
  EXPECT_GT(silent_in_cohorts, 0);
  // The scrape counts them as dropouts of ShareKeys, the stage they fell silent in.
  EXPECT_EQ(Scraped(*coordinator,
                    "fedmf_stage_dropouts_total{kind=\"training\",stage=\"AdvertiseKeys\"}"),
            0);
  EXPECT_EQ(
      Scraped(*coordinator, "fedmf_stage_dropouts_total{kind=\"training\",stage=\"ShareKeys\"}"),
      silent_in_cohorts);
}

TEST(CoordinatorRoundTest, GarbageFromOneClientNeverStopsTheOthers) {
  auto coordinator = MakeCoordinator(3);
  EXPECT_TRUE(RunWith(*coordinator, Behavior::kGarbage, nullptr).ok());
  EXPECT_EQ(coordinator->Status().round(), 3);
}

// The paper's non-SecAgg case: clear uploads, each checked against the plan and added.
TEST(CoordinatorRoundTest, ClearUploadRoundsComplete) {
  auto coordinator = MakeCoordinator(3, /*secure_aggregation=*/false);
  EXPECT_TRUE(RunWith(*coordinator, Behavior::kHonest, nullptr).ok());
  EXPECT_EQ(coordinator->Status().round(), 3);
  EXPECT_EQ(coordinator->Status().dropouts(), 0);
}

// Sparse clear uploads are added like dense ones (every upload of the last round was accepted);
// a malformed one rejects only its participant, and the rounds go on.
TEST(CoordinatorRoundTest, SparseClearUploadsAreAddedAndMalformedOnesRejected) {
  auto sparse = MakeCoordinator(3, /*secure_aggregation=*/false);
  EXPECT_TRUE(RunWith(*sparse, Behavior::kSparse, nullptr).ok());
  EXPECT_EQ(sparse->Status().round(), 3);
  EXPECT_EQ(sparse->Status().dropouts(), 0);
  auto malformed = MakeCoordinator(3, /*secure_aggregation=*/false);
  EXPECT_TRUE(RunWith(*malformed, Behavior::kMalformedSparse, nullptr).ok());
  EXPECT_EQ(malformed->Status().round(), 3);
}

// The defaults: the complete graph with signed advertisements and the consistency check (the
// tests above run with them too); here without signatures, the pre-signature protocol.
TEST(CoordinatorRoundTest, RoundsWithoutSignaturesComplete) {
  auto coordinator = MakeCoordinator(2, true, [](CoordinatorOptions& o) { o.signatures = false; });
  EXPECT_TRUE(RunWith(*coordinator, Behavior::kHonest, nullptr).ok());
  EXPECT_EQ(coordinator->Status().round(), 2);
}

// SecAgg+ on a Harary graph of degree 4 (each client masks with 4 of the 9 others; t = 5 -
// floor(0.6 * 5) = 2), signatures on, with a client that goes silent after advertising.
TEST(CoordinatorRoundTest, HararyRoundsSurviveASilentClient) {
  auto coordinator = MakeCoordinator(3, true, [](CoordinatorOptions& o) {
    o.secagg_graph = GraphMode::kHarary;
    o.harary_degree = 4;
  });
  int silent_in_cohorts = 0;
  EXPECT_TRUE(RunWith(*coordinator, Behavior::kSilentAfterAdvertise, &silent_in_cohorts).ok());
  EXPECT_EQ(coordinator->Status().round(), 3);
  EXPECT_GT(silent_in_cohorts, 0);
}

// What the processes saw of a signed run: the ids whose signatures their participants were asked
// to verify without a key in the task, their own aborts, and the smallest key list of a
// ShareKeysRequest.
struct KeysSeen {
  std::vector<uint32_t> missing;  // listed or signing without a key
  std::vector<uint32_t> extra;    // keyed though not in the participant's neighborhood
  std::vector<std::string> aborts;
  size_t smallest_neighborhood = SIZE_MAX;
};

// Runs 3 signed rounds with 4 honest clients on `graph` (Harary: of degree 4) and returns what
// each process saw. A client verifies every advertisement its ShareKeysRequest lists and, with
// the consistency check, every survivor signature of its UnmaskingRequest, under the keys that
// came with that ShareKeysRequest; an id without one aborts its session.
std::vector<KeysSeen> RunSignedRounds(GraphMode graph) {
  auto coordinator = MakeCoordinator(3, true, [graph](CoordinatorOptions& o) {
    o.secagg_graph = graph;
    if (graph == GraphMode::kHarary) o.harary_degree = 4;
  });
  struct Observer {
    std::mutex mu;
    std::map<uint32_t, std::set<uint32_t>> keyed;  // per participant, of its ShareKeysRequest
    KeysSeen seen;
  };
  auto data = testing::SmallDataset();
  std::vector<std::shared_ptr<Observer>> observers;
  std::vector<std::unique_ptr<testing::FakeClient>> clients;
  for (int i = 0; i < 4; ++i) {
    auto s = std::make_shared<Observer>();
    testing::FakeClientOptions o;
    o.ignore = [s](const v1::ServerMessage& m) {
      std::lock_guard<std::mutex> lock(s->mu);
      if (m.has_task()) s->keyed.clear();
      const uint32_t to = m.secagg().participant_id();
      std::set<uint32_t>& keyed = s->keyed[to];
      auto need = [&](uint32_t id) {
        if (!keyed.contains(id)) s->seen.missing.push_back(id);
      };
      const v1::secagg::ServerToClient& request = m.secagg().message();
      if (request.has_share_keys()) {
        for (const v1::SigningKeys& k : m.secagg().signing_keys()) {
          keyed.insert(k.participant_ids().begin(), k.participant_ids().end());
        }
        std::set<uint32_t> neighborhood;
        for (const v1::secagg::ClientKeys& c : request.share_keys().clients()) {
          need(c.client_id());
          neighborhood.insert(c.client_id());
        }
        for (uint32_t id : keyed) {
          if (!neighborhood.contains(id)) s->seen.extra.push_back(id);
        }
        s->seen.smallest_neighborhood =
            std::min(s->seen.smallest_neighborhood, neighborhood.size());
      } else if (m.secagg().signing_keys_size() > 0) {
        s->seen.extra.push_back(to);  // keys with another message
      }
      for (const v1::secagg::SurvivorSignature& signer : request.unmasking().signatures()) {
        need(signer.client_id());
      }
      return false;  // an observer: the client handles every message
    };
    o.tamper = [s](v1::ClientMessage& reply) {
      if (!reply.has_secagg() || !reply.secagg().message().has_abort()) return;
      std::lock_guard<std::mutex> lock(s->mu);
      s->seen.aborts.push_back(reply.secagg().message().abort().reason());
    };
    observers.push_back(s);
    clients.push_back(std::make_unique<testing::FakeClient>(
        *coordinator, client::ParticipantHost::Create(data, testing::Shard(i, 4, 40)).value(),
        i + 1, std::move(o)));
  }
  std::future<absl::Status> run =
      std::async(std::launch::async, [&] { return coordinator->Run(); });
  if (run.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    ADD_FAILURE() << "coordinator did not finish in 60 s";
    coordinator->Stop();
  }
  const absl::Status status = run.get();
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(coordinator->Status().round(), 3);
  EXPECT_EQ(coordinator->Status().dropouts(), 0);
  clients.clear();  // stops the pumps
  std::vector<KeysSeen> out;
  for (const auto& s : observers) out.push_back(s->seen);
  return out;
}

// A Harary graph is drawn from the session id, a hash of the keys advertised at stage 0, after the
// tasks went out, so the keys come with each participant's ShareKeysRequest, which names its
// neighbors (docs/protocol.md, "Round tasks"): each neighborhood is 5 of 10, and a process is
// sent the keys of those 5 only, so it learns neither the rest of the cohort nor its grouping.
TEST(CoordinatorRoundTest, HararyShareKeysRequestsCarryTheKeysOfTheNeighborsOnly) {
  const std::vector<KeysSeen> seen = RunSignedRounds(GraphMode::kHarary);
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_THAT(seen[i].missing, ::testing::IsEmpty()) << "process " << i;
    EXPECT_THAT(seen[i].extra, ::testing::IsEmpty()) << "process " << i;
    EXPECT_THAT(seen[i].aborts, ::testing::IsEmpty()) << "process " << i;
    // Every process took part (seed 1) and got k + 1 = 5 keys.
    EXPECT_EQ(seen[i].smallest_neighborhood, 5u) << "process " << i;
  }
}

// The complete graph with the consistency check: every advertiser is a neighbor and every survivor
// a signer of the unmasking request, all keyed in the ShareKeysRequest.
TEST(CoordinatorRoundTest, CompleteGraphShareKeysRequestsKeyEveryAdvertiserAndSigner) {
  const std::vector<KeysSeen> seen = RunSignedRounds(GraphMode::kComplete);
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_THAT(seen[i].missing, ::testing::IsEmpty()) << "process " << i;
    EXPECT_THAT(seen[i].extra, ::testing::IsEmpty()) << "process " << i;
    EXPECT_THAT(seen[i].aborts, ::testing::IsEmpty()) << "process " << i;
    EXPECT_EQ(seen[i].smallest_neighborhood, 10u) << "process " << i;
  }
}

// A Harary session only needs t = 4 live holders per neighborhood (k = 8), but n_min is the whole
// cohort of 10: with a silent client in the cohort the coordinator must refuse to unmask. With
// seed 1 every attempt's cohort holds some of the silent client's 10 users, so the run stops
// after max_failed_rounds = 3 attempts.
TEST(CoordinatorRoundTest, HararyNeverUnmasksFewerThanNMinInputs) {
  auto coordinator = MakeCoordinator(
      1, true,
      [](CoordinatorOptions& o) {
        o.secagg_graph = GraphMode::kHarary;
        o.harary_degree = 8;
      },
      /*min_clients=*/10);
  const absl::Status s = RunWith(*coordinator, Behavior::kSilentAfterAdvertise, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kAborted) << s;
  EXPECT_NE(s.message().find("fewer than n_min 10"), absl::string_view::npos) << s;
  EXPECT_EQ(coordinator->Status().round(), 0);
}

// Every participant of the last client declines (a SecAgg Abort instead of its advertisement, as
// when its own privacy budget is spent): in a sampled run each is a dropout and the rounds
// complete with the others (at most 6 of a cohort's 10 may drop; a round with more is retried).
TEST(CoordinatorRoundTest, DecliningParticipantsAreDropoutsOfASampledRound) {
  auto coordinator = MakeCoordinator(3);
  auto data = testing::SmallDataset();
  auto declined = std::make_shared<std::atomic<int>>(0);
  testing::FakeClientOptions declining;
  declining.tamper = [declined](v1::ClientMessage& reply) {
    if (!reply.has_secagg() || !reply.secagg().message().has_advertise_keys()) return;
    reply.mutable_secagg()->mutable_message()->mutable_abort()->set_reason("budget spent");
    ++*declined;
  };
  std::vector<std::unique_ptr<testing::FakeClient>> clients;
  for (int i = 0; i < 4; ++i) {
    clients.push_back(std::make_unique<testing::FakeClient>(
        *coordinator, client::ParticipantHost::Create(data, testing::Shard(i, 4, 40)).value(),
        i + 1, i == 3 ? declining : testing::FakeClientOptions{}));
  }
  std::future<absl::Status> run =
      std::async(std::launch::async, [&] { return coordinator->Run(); });
  ASSERT_EQ(run.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  const absl::Status status = run.get();
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(coordinator->Status().round(), 3);
  // With seed 1 the declining client's users are in the cohorts.
  EXPECT_GT(declined->load(), 0);
  EXPECT_EQ(clients[3]->share_key_requests(), 0);
}

}  // namespace
}  // namespace fedmf::server
