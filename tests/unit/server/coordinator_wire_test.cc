// The coordinator's wire hooks without sockets: chunked messages both ways (whole rounds with a
// 128-byte chunk size on both ends), refused chunk sequences, and the per-stage traffic accounting
// reported in Admin.Status, and the bounds on partial uploads (one budget, a timeout).
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/participant_host.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "common/data/synthetic.h"
#include "gtest/gtest.h"
#include "server/coordinator.h"
#include "tests/unit/server/fake_client.h"
#include "wire/chunking.h"
#include "wire/limits.h"

namespace fedmf::server {
namespace {

// 40 users, cohort 10, n_min 3, rank 4, no noise, full item model.
// `upload_budget`: bytes all streams' partial uploads may hold.
std::unique_ptr<Coordinator> MakeChunkedCoordinator(
    int64_t rounds, size_t chunk_bytes, bool secure_aggregation = true,
    uint64_t upload_budget = CoordinatorOptions().max_upload_buffer_bytes,
    uint64_t max_plan_bytes = wire::kMaxTransferBytes) {
  algorithms::dpmf_rp::DpmfRpConfig c = testing::SmallRun(rounds);
  c.secure_aggregation = secure_aggregation;
  CoordinatorOptions options;
  options.enrollment_token = "token";
  options.num_users = 40;
  options.dropout_fraction = 0.6;
  options.stage_timeout = absl::Seconds(5);
  options.chunk_bytes = chunk_bytes;
  options.max_upload_buffer_bytes = upload_budget;
  options.max_plan_bytes = max_plan_bytes;
  options.upload_timeout = absl::Seconds(60);
  return std::make_unique<Coordinator>(
      options, CoordinatorState{"dpmf-rp", algorithms::dpmf_rp::DpmfRpUpdater::Create(c).value(),
                                dp::PrivacyLedger::Create().value(), 1, rounds, FixedPopulation()});
}

// Runs to the end (at most 30 s) with `processes` client processes sharing the 40 users, reassembling at most
// `max_download_bytes`; the final models they received whole in `final_models` (if given).
absl::Status RunWith(Coordinator& coordinator, size_t chunk_bytes, int* chunks_received,
                     int* chunks_sent, std::vector<v1::RoundPlan>* final_models = nullptr,
                     uint64_t max_download_bytes = wire::kMaxTransferBytes, int processes = 4) {
  auto data = testing::SmallDataset();
  std::vector<std::unique_ptr<testing::FakeClient>> clients;
  for (int i = 0; i < processes; ++i) {
    auto host = client::ParticipantHost::Create(data, testing::Shard(i, processes, 40)).value();
    host->set_chunk_bytes(chunk_bytes);
    host->set_max_download_bytes(max_download_bytes);
    clients.push_back(std::make_unique<testing::FakeClient>(coordinator, std::move(host), i + 1));
  }
  std::future<absl::Status> run = std::async(std::launch::async, [&] { return coordinator.Run(); });
  if (run.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    coordinator.Stop();
    run.wait();
    return absl::DeadlineExceededError("coordinator did not finish in 30 s");
  }
  *chunks_received = *chunks_sent = 0;
  for (auto& c : clients) {
    *chunks_received += static_cast<int>(c->chunks_received());
    *chunks_sent += static_cast<int>(c->chunks_sent());
    // Honest clients: every message handled, every reply accepted.
    EXPECT_EQ(c->handle_errors(), 0);
    EXPECT_EQ(c->refused_replies(), 0);
    if (final_models != nullptr) final_models->push_back(c->final_model());
  }
  return run.get();
}

const v1::StageTraffic* Find(const v1::StatusResponse& s, const std::string& stage) {
  for (const v1::StageTraffic& t : s.traffic()) {
    if (t.stage() == stage) return &t;
  }
  return nullptr;
}

TEST(CoordinatorWireTest, RoundsCompleteWithTinyChunksBothWays) {
  auto coordinator = MakeChunkedCoordinator(2, wire::kMinChunkBytes);
  int received = 0, sent = 0;
  ASSERT_TRUE(RunWith(*coordinator, wire::kMinChunkBytes, &received, &sent).ok());
  const v1::StatusResponse s = coordinator->Status();
  EXPECT_EQ(s.round(), 2);
  EXPECT_EQ(s.dropouts(), 0);
  EXPECT_GT(received, 0);  // tasks (the plan holds 30 x 4 doubles) went out in chunks
  EXPECT_GT(sent, 0);      // and so did the participants' messages
}

// The result that ends training carries the final model, the plan of the round after the last,
// to every client: without it a device would keep the model of its last task, one update behind.
TEST(CoordinatorWireTest, TheLastResultCarriesTheFinalModel) {
  auto coordinator = MakeChunkedCoordinator(2, wire::kDefaultChunkBytes);
  int received = 0, sent = 0;
  std::vector<v1::RoundPlan> final_models;
  ASSERT_TRUE(
      RunWith(*coordinator, wire::kDefaultChunkBytes, &received, &sent, &final_models).ok());
  ASSERT_EQ(final_models.size(), 4u);
  for (const v1::RoundPlan& model : final_models) {
    EXPECT_EQ(model.algorithm(), "dpmf-rp");
    EXPECT_EQ(model.round(), 2);
    EXPECT_EQ(model.phase(), 0);
    EXPECT_FALSE(model.payload().empty());
    EXPECT_EQ(model.SerializeAsString(), final_models[0].SerializeAsString());
  }
}

// The plan bound with small figures standing in for 1 GiB: a task is the plan plus 1 MiB for its
// SecAgg parameters. One byte less than the first task and the run stops at once naming the flag
// to raise; 64 bytes more (room for round 1's plan, a few bytes longer: its round numbers are no
// longer proto3's absent 0), and clients whose download bound is as large, and both rounds run
// with the plans in 128-byte chunks, every client reassembling and handling them (RunWith checks
// that no message failed; the byte-for-byte round trip is chunking_test's).
TEST(CoordinatorWireTest, PlanBoundRefusesNamingTheFlagOrCarriesTheChunkedPlan) {
  const v1::RoundPlan plan =
      algorithms::dpmf_rp::DpmfRpUpdater::Create(testing::SmallRun(2)).value()->Plan().value();
  const uint64_t first_task_bytes = plan.ByteSizeLong() + (uint64_t{1} << 20);
  const uint64_t raised_bytes = first_task_bytes + 64;
  const uint64_t upload_budget = CoordinatorOptions().max_upload_buffer_bytes;
  int received = 0, sent = 0;
  auto refusing = MakeChunkedCoordinator(2, wire::kMinChunkBytes, /*secure_aggregation=*/true,
                                         upload_budget, first_task_bytes - 1);
  const absl::Status refused = RunWith(*refusing, wire::kMinChunkBytes, &received, &sent);
  EXPECT_TRUE(absl::IsResourceExhausted(refused)) << refused;
  EXPECT_NE(refused.message().find(absl::StrCat("--max_plan_bytes=", first_task_bytes - 1)),
            std::string::npos)
      << refused;
  EXPECT_EQ(refusing->Status().round(), 0);

  auto raised = MakeChunkedCoordinator(2, wire::kMinChunkBytes, /*secure_aggregation=*/true,
                                       upload_budget, raised_bytes);
  const absl::Status ran =
      RunWith(*raised, wire::kMinChunkBytes, &received, &sent, nullptr, raised_bytes);
  ASSERT_TRUE(ran.ok()) << ran;
  const v1::StatusResponse status = raised->Status();
  EXPECT_EQ(status.round(), 2);
  EXPECT_EQ(status.dropouts(), 0);
  EXPECT_GT(received, 0);
}

// The upload buffers are shared among the cohort's streams, not its users: a stream uploads one
// message at a time, whichever member it is for. 2 client processes host the cohort of 10, so
// each stream may hold half of a pool of 32 masked inputs, room for any one message (the largest,
// a member's 9 encrypted key shares, is about 10 masked inputs); a user's tenth of the pool (3.2
// masked inputs) refused the key shares, and on Gowalla (2 GiB among 29,858 users: 72 KB) every
// power sum's upload of a host of thousands of users.
TEST(CoordinatorWireTest, AStreamHostingManyUsersHasAStreamsShareOfTheUploadBuffers) {
  const v1::RoundPlan plan =
      algorithms::dpmf_rp::DpmfRpUpdater::Create(testing::SmallRun(1)).value()->Plan().value();
  const uint64_t masked_input = (plan.length() * plan.bits() + 7) / 8 + 24;
  auto coordinator = MakeChunkedCoordinator(1, wire::kMinChunkBytes, /*secure_aggregation=*/true,
                                            /*upload_budget=*/32 * masked_input);
  int received = 0, sent = 0;
  const absl::Status ran = RunWith(*coordinator, wire::kMinChunkBytes, &received, &sent, nullptr,
                                   wire::kMaxTransferBytes, /*processes=*/2);
  ASSERT_TRUE(ran.ok()) << ran;
  const v1::StatusResponse status = coordinator->Status();
  EXPECT_EQ(status.round(), 1);
  EXPECT_EQ(status.dropouts(), 0);
  EXPECT_GT(sent, 0);
}

// Stage accounting on the real serialized messages of the last round (round 1 of 0..1, cohort 10).
// The masked input of one participant is its packed vector, ceil(length * bits / 8) bytes, plus
// the envelope: ClientMessage{secagg{participant_id, message{masked_input{packed}}, round}} adds
// at most 2 tag/length pairs of <= 4 bytes each around `packed`, 2 more around the SecAgg message,
// and participant id (<= 3 bytes) and round (2 bytes): <= 24 bytes.
TEST(CoordinatorWireTest, StatusReportsPerStageBytesPerUser) {
  auto coordinator = MakeChunkedCoordinator(2, wire::kDefaultChunkBytes);
  int received = 0, sent = 0;
  ASSERT_TRUE(RunWith(*coordinator, wire::kDefaultChunkBytes, &received, &sent).ok());
  EXPECT_EQ(received, 0);
  EXPECT_EQ(sent, 0);
  const v1::StatusResponse s = coordinator->Status();
  EXPECT_EQ(s.traffic_round(), 1);
  EXPECT_EQ(s.traffic_cohort(), 10);
  auto plan =
      algorithms::dpmf_rp::DpmfRpUpdater::Create(testing::SmallRun(2)).value()->Plan().value();
  const double packed = static_cast<double>((plan.length() * plan.bits() + 7) / 8);
  const v1::StageTraffic* masked = Find(s, "masked_input");
  ASSERT_NE(masked, nullptr);
  EXPECT_GE(masked->up_bytes_per_user(), packed);
  EXPECT_LE(masked->up_bytes_per_user(), packed + 24);
  EXPECT_DOUBLE_EQ(masked->up_bytes_per_user() * 10, static_cast<double>(masked->up_bytes()));
  // The task carries the plan (the model) to each of the 4 processes.
  const v1::StageTraffic* task = Find(s, "task");
  ASSERT_NE(task, nullptr);
  EXPECT_EQ(task->up_bytes(), 0);
  EXPECT_GE(task->down_bytes(), 4 * static_cast<int64_t>(plan.ByteSizeLong()));
  for (const char* stage : {"advertise_keys", "share_keys", "unmasking", "result"}) {
    EXPECT_NE(Find(s, stage), nullptr) << stage;
  }
  EXPECT_EQ(Find(s, "clear_upload"), nullptr);
}

class CoordinatorWireStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    coordinator_ =
        MakeChunkedCoordinator(1, 64, /*secure_aggregation=*/true, /*upload_budget=*/1000);
    connection_ = Open(1);
  }
  // A stream bound to a registration of `participant`.
  std::shared_ptr<Connection> Open(uint32_t participant) {
    v1::RegisterRequest request;
    request.set_protocol_version(wire::kProtocolVersion);
    request.set_enrollment_token("token");
    request.set_signing_public_key(std::string(32, 'k'));
    request.add_participant_ids(participant);
    v1::RegisterResponse response;
    EXPECT_TRUE(coordinator_->Register(request, response, "").ok());
    auto connection = std::make_shared<Connection>(participant, "test");
    EXPECT_TRUE(coordinator_->OnStreamOpen(connection, response.session_token()).ok());
    return connection;
  }
  // The first chunk of a message of `participant` that declares `total_bytes`.
  v1::ClientMessage FirstChunk(uint32_t participant, uint64_t total_bytes) {
    v1::ClientMessage first = Chunks(participant)[0];
    first.mutable_chunk()->set_total_bytes(total_bytes);
    return first;
  }
  std::vector<v1::ClientMessage> Chunks(uint32_t participant) {
    v1::ClientMessage m;
    m.mutable_secagg()->set_participant_id(participant);
    m.mutable_secagg()->mutable_message()->mutable_masked_input()->set_packed(
        std::string(300, 'p'));
    return wire::Split(m, 64);
  }
  std::unique_ptr<Coordinator> coordinator_;
  std::shared_ptr<Connection> connection_;
};

TEST_F(CoordinatorWireStreamTest, AcceptsAWholeChunkSequenceOutsideARound) {
  for (const v1::ClientMessage& c : Chunks(1)) {
    EXPECT_TRUE(coordinator_->OnClientMessage(connection_, c).ok());
  }
}

TEST_F(CoordinatorWireStreamTest, RefusesChunksForAnotherStreamsParticipant) {
  EXPECT_EQ(coordinator_->OnClientMessage(connection_, Chunks(2)[0]).code(),
            absl::StatusCode::kPermissionDenied);
}

TEST_F(CoordinatorWireStreamTest, ABrokenChunkSequenceEndsTheStream) {
  const std::vector<v1::ClientMessage> chunks = Chunks(1);
  ASSERT_TRUE(coordinator_->OnClientMessage(connection_, chunks[0]).ok());
  EXPECT_EQ(coordinator_->OnClientMessage(connection_, chunks[2]).code(),
            absl::StatusCode::kInvalidArgument);
  coordinator_->OnStreamClosed(connection_);  // what the reactor does on an error status
  EXPECT_EQ(coordinator_->Status().connected_clients(), 0);
}

TEST_F(CoordinatorWireStreamTest, ASequenceOverTheUploadBoundIsRefusedAtItsFirstChunk) {
  v1::ClientMessage first = Chunks(1)[0];
  first.mutable_chunk()->set_total_bytes(wire::kMaxTransferBytes + 1);
  EXPECT_EQ(coordinator_->OnClientMessage(connection_, first).code(),
            absl::StatusCode::kInvalidArgument);
}

// Issue 48 finding 3: partial uploads of all streams share one budget, from which they take the
// bytes that arrived, not the size they declare; what a sequence took is given back when it
// completes, fails or its stream ends.
TEST_F(CoordinatorWireStreamTest, PartialUploadsHoldWhatArrivedNotWhatTheyDeclare) {
  for (const v1::ClientMessage& c : Chunks(1)) {
    ASSERT_TRUE(coordinator_->OnClientMessage(connection_, c).ok());
  }
  EXPECT_EQ(coordinator_->upload_buffer_bytes(), 0u);  // completed
  const v1::ClientMessage first = FirstChunk(1, 600);
  const uint64_t data = first.chunk().data().size();
  ASSERT_TRUE(coordinator_->OnClientMessage(connection_, first).ok());
  EXPECT_EQ(coordinator_->upload_buffer_bytes(), data);
  // Two declarations of 600 of a 1000-byte budget both fit: they hold what they sent.
  std::shared_ptr<Connection> second = Open(2);
  ASSERT_TRUE(coordinator_->OnClientMessage(second, FirstChunk(2, 600)).ok());
  EXPECT_EQ(coordinator_->upload_buffer_bytes(), 2 * data);
  coordinator_->OnStreamClosed(second);
  // The first stream ends mid-sequence: its bytes are free again.
  coordinator_->OnStreamClosed(connection_);
  EXPECT_EQ(coordinator_->upload_buffer_bytes(), 0u);
  std::shared_ptr<Connection> third = Open(3);
  EXPECT_TRUE(coordinator_->OnClientMessage(third, FirstChunk(3, 600)).ok());
  // A sequence refused mid-way gives its bytes back too.
  EXPECT_EQ(coordinator_->OnClientMessage(third, Chunks(3)[3]).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(coordinator_->upload_buffer_bytes(), 0u);
}

// Issue 48 finding 3: a declaration above the largest message the plan allows (here no plan yet)
// is refused before anything is reserved.
TEST_F(CoordinatorWireStreamTest, ADeclarationAboveThePlanIsRefusedBeforeAnythingIsReserved) {
  const absl::Status refused =
      coordinator_->OnClientMessage(connection_, FirstChunk(1, kUnplannedBounds.max_bytes + 1));
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find(absl::StrCat("Chunk.total_bytes ",
                                                kUnplannedBounds.max_bytes + 1, " exceeds")),
            std::string::npos)
      << refused.message();
  EXPECT_EQ(coordinator_->upload_buffer_bytes(), 0u);
}

TEST_F(CoordinatorWireStreamTest, AStalledUploadEndsItsStreamAfterTheTimeout) {
  const absl::Time before = absl::Now();
  ASSERT_TRUE(coordinator_->OnClientMessage(connection_, FirstChunk(1, 600)).ok());
  const absl::Time after = absl::Now();
  EXPECT_EQ(coordinator_->EndStalledUploads(before + absl::Seconds(59)), 0);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(coordinator_->EndStalledUploads(after + absl::Seconds(61)), 1);
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("event=upload_stalled "), std::string::npos) << log;
  // A stream without an upload in progress is never ended for it.
  std::shared_ptr<Connection> idle = Open(2);
  coordinator_->OnStreamClosed(connection_);
  EXPECT_EQ(coordinator_->EndStalledUploads(after + absl::Hours(1)), 0);
  coordinator_->OnStreamClosed(idle);
}

}  // namespace
}  // namespace fedmf::server
