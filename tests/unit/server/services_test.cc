// The Federation service's stream limits over real gRPC on a loopback port: streams beyond
// max_streams are refused, a stream over the message rate is ended, a stream whose client does
// not read has a bounded outbound queue and is ended, and bytes that are not a ClientMessage end
// their stream with INVALID_ARGUMENT; the coordinator keeps serving. The Admin service's run calls
// reach the RunControl (a fake) with the caller's identity and its answer, only from an admin
// identity.
#include "server/services.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "server/connection.h"
#include "tests/unit/client/test_round.h"
#include "wire/limits.h"

namespace fedmf::server {
namespace {

// Polls `done` every 10 ms until it holds: bounded by the test's CTest timeout, not by a guess of
// how slow a loaded machine may be.
void WaitUntil(const std::function<bool()>& done) {
  while (!done()) absl::SleepFor(absl::Milliseconds(10));
}

std::unique_ptr<Coordinator> MakeCoordinator() {
  CoordinatorOptions options;
  options.enrollment_token = "token";
  options.num_users = 40;
  return std::make_unique<Coordinator>(
      options, CoordinatorState{"dpmf-rp", client::test_util::SmallUpdater(),
                                dp::PrivacyLedger::Create().value(), 1, 1, FixedPopulation()});
}

struct Server {
  template <typename Service>
  explicit Server(Service* service) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service);
    server = builder.BuildAndStart();
    stub = v1::Federation::NewStub(grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                                       grpc::InsecureChannelCredentials()));
  }
  ~Server() { server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1)); }
  std::shared_ptr<grpc::Channel> Channel() const {
    return grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                               grpc::InsecureChannelCredentials());
  }
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<v1::Federation::Stub> stub;
  int port = 0;
};

std::string RegisterUser(v1::Federation::Stub& stub, uint32_t id) {
  grpc::ClientContext context;
  v1::RegisterRequest request;
  request.set_protocol_version(wire::kProtocolVersion);
  request.set_enrollment_token("token");
  request.set_signing_public_key(std::string(32, 'k'));
  request.add_participant_ids(id);
  v1::RegisterResponse response;
  EXPECT_TRUE(stub.Register(&context, request, &response).ok());
  return response.session_token();
}

// Opens a Participate stream that presents `token` (none if nullopt) in its metadata.
std::unique_ptr<grpc::ClientReaderWriter<v1::ClientMessage, v1::ServerMessage>> Open(
    v1::Federation::Stub& stub, grpc::ClientContext& context,
    const std::optional<std::string>& token) {
  if (token) context.AddMetadata(wire::kSessionTokenMetadataKey, *token);
  return stub.Participate(&context);
}

// How a stream opened with `token` ends when it writes `messages`.
grpc::Status StreamEnd(v1::Federation::Stub& stub, const std::optional<std::string>& token,
                       const std::vector<v1::ClientMessage>& messages = {}) {
  grpc::ClientContext context;
  auto stream = Open(stub, context, token);
  for (const v1::ClientMessage& m : messages) {
    if (!stream->Write(m)) break;
  }
  v1::ServerMessage ignored;
  while (stream->Read(&ignored)) {
  }
  return stream->Finish();
}

// A field tag with wire type 7, which no protobuf parser accepts.
const std::string kGarbage("\x0f\xff\xff\xff\xff\x07garbage", 12);

// Opens a Participate stream at the byte level (grpc::GenericStub) with `token`, writes each of
// `messages`, reads until the server ends the stream and returns its status.
grpc::Status RawParticipate(const std::shared_ptr<grpc::Channel>& channel, const std::string& token,
                            const std::vector<std::string>& messages) {
  grpc::GenericStub stub(channel);
  grpc::CompletionQueue cq;
  grpc::ClientContext context;
  context.AddMetadata(wire::kSessionTokenMetadataKey, token);
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call =
      stub.PrepareCall(&context, "/fedmf.v1.Federation/Participate", &cq);
  // One operation at a time: returns its ok flag.
  auto await = [&cq](intptr_t want) {
    void* tag = nullptr;
    bool ok = false;
    EXPECT_TRUE(cq.Next(&tag, &ok));
    EXPECT_EQ(reinterpret_cast<intptr_t>(tag), want);
    return ok;
  };
  call->StartCall(reinterpret_cast<void*>(1));
  EXPECT_TRUE(await(1));
  for (const std::string& bytes : messages) {
    grpc::Slice slice(bytes);
    call->Write(grpc::ByteBuffer(&slice, 1), reinterpret_cast<void*>(2));
    if (!await(2)) break;
  }
  grpc::ByteBuffer reply;
  for (bool more = true; more;) {
    call->Read(&reply, reinterpret_cast<void*>(3));
    more = await(3);
  }
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(4));
  EXPECT_TRUE(await(4));
  cq.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq.Next(&tag, &ok)) {
  }
  return status;
}

TEST(FederationServiceTest, StreamsBeyondTheMaximumAreRefused) {
  std::unique_ptr<Coordinator> coordinator = MakeCoordinator();
  StreamLimits limits;
  limits.max_streams = 2;
  FederationService service(coordinator.get(), /*policy=*/nullptr, limits);
  Server server(&service);
  grpc::ClientContext c1, c2, c3;
  auto s1 = Open(*server.stub, c1, RegisterUser(*server.stub, 1));
  auto s2 = Open(*server.stub, c2, RegisterUser(*server.stub, 2));
  // Both streams are open on the server before the third arrives.
  WaitUntil([&] { return service.live_streams() >= 2; });
  ASSERT_EQ(service.live_streams(), 2);
  auto s3 = Open(*server.stub, c3, RegisterUser(*server.stub, 3));
  v1::ServerMessage ignored;
  EXPECT_FALSE(s3->Read(&ignored));
  const grpc::Status refused = s3->Finish();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused.error_message().find("at most 2"), std::string::npos);
  // Ending one stream frees a place.
  s1->WritesDone();
  EXPECT_FALSE(s1->Read(&ignored));
  EXPECT_TRUE(s1->Finish().ok());
  WaitUntil([&] { return service.live_streams() <= 1; });
  grpc::ClientContext c4;
  auto s4 = Open(*server.stub, c4, RegisterUser(*server.stub, 4));
  WaitUntil([&] { return service.live_streams() >= 2; });
  EXPECT_EQ(service.live_streams(), 2);
  c2.TryCancel();
  c4.TryCancel();
}

// Issue 21 item 3: a stream without a valid session token ends when it opens, reads nothing and
// holds no slot, however many there are and whatever they send.
TEST(FederationServiceTest, StreamsWithoutAValidSessionTokenAreRefusedAtOpen) {
  std::unique_ptr<Coordinator> coordinator = MakeCoordinator();
  StreamLimits limits;
  limits.max_streams = 2;
  FederationService service(coordinator.get(), /*policy=*/nullptr, limits);
  Server server(&service);
  v1::ClientMessage large;  // 1 MiB: refused unread
  large.mutable_clear_upload()->mutable_values()->Resize(1 << 17, ~uint64_t{0} >> 1);
  testing::internal::CaptureStderr();
  for (int i = 0; i < 10; ++i) {
    const grpc::Status none = StreamEnd(*server.stub, std::nullopt, {large});
    EXPECT_EQ(none.error_code(), grpc::StatusCode::UNAUTHENTICATED) << none.error_message();
    EXPECT_NE(none.error_message().find(wire::kSessionTokenMetadataKey), std::string::npos);
    const grpc::Status unknown = StreamEnd(*server.stub, "not a session token", {large});
    EXPECT_EQ(unknown.error_code(), grpc::StatusCode::NOT_FOUND) << unknown.error_message();
  }
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("event=stream_refused peer="), std::string::npos) << log;
  EXPECT_EQ(coordinator->Status().bytes_in(), 0);  // no message was read
  // Neither kind holds a slot: both places are free for registered clients.
  WaitUntil([&] { return service.live_streams() == 0; });
  grpc::ClientContext c1, c2;
  auto s1 = Open(*server.stub, c1, RegisterUser(*server.stub, 1));
  auto s2 = Open(*server.stub, c2, RegisterUser(*server.stub, 2));
  WaitUntil([&] { return coordinator->Status().connected_clients() >= 2; });
  EXPECT_EQ(coordinator->Status().connected_clients(), 2);
  c1.TryCancel();
  c2.TryCancel();
}

// Issue 21 item 5: one address cannot register faster than --max_registrations_per_s.
TEST(FederationServiceTest, RegistrationsOverTheRateOfAnAddressAreRefused) {
  std::unique_ptr<Coordinator> coordinator = MakeCoordinator();
  StreamLimits limits;
  limits.registrations_per_second = 0.001;  // no refill within the test
  limits.registration_burst = 3;
  FederationService service(coordinator.get(), /*policy=*/nullptr, limits);
  Server server(&service);
  for (uint32_t id = 1; id <= 3; ++id) RegisterUser(*server.stub, id);
  testing::internal::CaptureStderr();
  grpc::ClientContext context;
  v1::RegisterRequest request;
  request.set_protocol_version(wire::kProtocolVersion);
  request.set_enrollment_token("token");
  request.set_signing_public_key(std::string(32, 'k'));
  request.add_participant_ids(4);
  v1::RegisterResponse response;
  const grpc::Status refused = server.stub->Register(&context, request, &response);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_NE(refused.error_message().find("too many registrations from this address"),
            std::string::npos);
  EXPECT_NE(log.find("event=register_rate_limited peer="), std::string::npos) << log;
  EXPECT_EQ(log.find("event=register "), std::string::npos) << log;  // not even parsed further
}

TEST(FederationServiceTest, StreamOverTheMessageRateIsEnded) {
  std::unique_ptr<Coordinator> coordinator = MakeCoordinator();
  StreamLimits limits;
  limits.messages_per_second = 1;
  limits.message_burst = 5;
  FederationService service(coordinator.get(), /*policy=*/nullptr, limits);
  Server server(&service);
  grpc::ClientContext context;
  auto stream = Open(*server.stub, context, RegisterUser(*server.stub, 1));
  // Late SecAgg messages (no round is running) are accepted and ignored: only the rate ends it.
  v1::ClientMessage late;
  late.mutable_secagg()->set_participant_id(1);
  late.mutable_secagg()->set_round(7);
  for (int i = 0; i < 20; ++i) {
    if (!stream->Write(late)) break;
  }
  v1::ServerMessage ignored;
  while (stream->Read(&ignored)) {
  }
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
  EXPECT_NE(status.error_message().find("rate"), std::string::npos);
  // The coordinator keeps serving: a new stream is accepted.
  grpc::ClientContext again;
  auto next = Open(*server.stub, again, RegisterUser(*server.stub, 2));
  WaitUntil([&] { return coordinator->Status().connected_clients() >= 1; });
  EXPECT_EQ(coordinator->Status().connected_clients(), 1);
  again.TryCancel();
}

TEST(FederationServiceTest, GarbageEndsItsStreamWithInvalidArgument) {
  std::unique_ptr<Coordinator> coordinator = MakeCoordinator();
  FederationService service(coordinator.get());
  Server server(&service);
  testing::internal::CaptureStderr();
  const grpc::Status bound =
      RawParticipate(server.Channel(), RegisterUser(*server.stub, 1), {kGarbage});
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(bound.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << bound.error_message();
  EXPECT_EQ(bound.error_message(), "unparseable ClientMessage");
  EXPECT_NE(log.find("event=message_refused client=\"\" peer="), std::string::npos)
      << log;  // RegisterUser names no client
  EXPECT_NE(log.find("code=3 reason=\"unparseable ClientMessage\""), std::string::npos) << log;
  // The client sees its status before the server's OnDone unbinds the refused stream: wait for
  // that, or the new stream below could be counted next to it.
  WaitUntil([&] { return coordinator->Status().connected_clients() == 0; });
  // The coordinator keeps serving: a valid stream is parsed and bound.
  grpc::ClientContext context;
  auto stream = Open(*server.stub, context, RegisterUser(*server.stub, 2));
  WaitUntil([&] { return coordinator->Status().connected_clients() >= 1; });
  EXPECT_EQ(coordinator->Status().connected_clients(), 1);
  stream->WritesDone();
  v1::ServerMessage ignored;
  EXPECT_FALSE(stream->Read(&ignored));
  EXPECT_TRUE(stream->Finish().ok());
}

// A handler that answers the first message with `count` messages of ~1 MiB.
class Flooder final : public StreamHandler {
 public:
  explicit Flooder(int count) : count_(count) {}
  absl::Status OnStreamOpen(const std::shared_ptr<Connection>&, absl::string_view) override {
    return absl::OkStatus();
  }
  absl::Status OnClientMessage(const std::shared_ptr<Connection>& connection,
                               const v1::ClientMessage&) override {
    for (int i = 0; i < count_; ++i) {
      v1::ServerMessage m;
      m.mutable_result()->set_reason(std::string(1 << 20, 'x'));
      if (connection->Send(std::move(m)) == 0) ++refused;
      max_queued = std::max(max_queued, connection->queued_bytes());
    }
    overflowed = connection->TakeOverflow();
    return absl::OkStatus();
  }
  void OnStreamClosed(const std::shared_ptr<Connection>&) override { closed = true; }
  void OnMessageRefused(const std::shared_ptr<Connection>&, const absl::Status&) override {}
  MessageBounds ClientMessageBounds() const override { return kUnplannedBounds; }

  const int count_;
  int refused = 0;
  uint64_t max_queued = 0;
  std::atomic<bool> overflowed{false};
  std::atomic<bool> closed{false};
};

class FloodService final
    : public v1::Federation::WithRawCallbackMethod_Participate<v1::Federation::Service> {
 public:
  FloodService(Flooder* handler, StreamLimits limits) : handler_(handler), limits_(limits) {}
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* Participate(
      grpc::CallbackServerContext* context) override {
    return new FederationReactor(handler_, 1, context->peer(), "", "token", limits_);
  }

 private:
  Flooder* handler_;
  StreamLimits limits_;
};

TEST(FederationReactorTest, ClientThatDoesNotReadHasABoundedQueueAndIsEnded) {
  Flooder flooder(100);  // 100 MiB if nothing were bounded
  StreamLimits limits;
  limits.max_queued_bytes = 8 << 20;
  FloodService service(&flooder, limits);
  Server server(&service);
  grpc::ClientContext context;
  auto stream = server.stub->Participate(&context);
  ASSERT_TRUE(stream->Write(v1::ClientMessage()));
  WaitUntil([&] { return flooder.overflowed.load(); });
  EXPECT_TRUE(flooder.overflowed);
  EXPECT_LE(flooder.max_queued, (8u << 20) + (1u << 20) + 64);
  EXPECT_GT(flooder.refused, 80);  // at most ~9 of 100 messages were queued
  // Once the client reads, it gets what was in flight, then RESOURCE_EXHAUSTED.
  v1::ServerMessage m;
  int received = 0;
  while (stream->Read(&m)) ++received;
  EXPECT_LT(received, 20);
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
  WaitUntil([&] { return flooder.closed.load(); });
  EXPECT_TRUE(flooder.closed);
}

// Records the run calls; answers `submit_answer` to Submit.
class FakeRunControl final : public RunControl {
 public:
  absl::StatusOr<v1::RunRecord> Submit(const v1::RunSpec& spec,
                                       absl::string_view identity) override {
    ++calls;
    submitted = spec;
    last_identity = std::string(identity);
    if (!submit_answer.ok()) return submit_answer;
    v1::RunRecord record;
    record.set_id(7);
    *record.mutable_spec() = spec;
    record.set_state(v1::RUN_STATE_QUEUED);
    return record;
  }
  v1::ListRunsResponse List() const override {
    ++calls;
    v1::ListRunsResponse response;
    response.add_runs()->set_id(1);
    response.add_runs()->set_id(2);
    return response;
  }
  absl::StatusOr<v1::RunRecord> Cancel(int64_t id, absl::string_view identity) override {
    ++calls;
    last_identity = std::string(identity);
    if (id != 2) return absl::NotFoundError(absl::StrCat("no run ", id));
    v1::RunRecord record;
    record.set_id(id);
    record.set_state(v1::RUN_STATE_CANCELLED);
    return record;
  }

  absl::Status submit_answer = absl::OkStatus();
  v1::RunSpec submitted;
  std::string last_identity = "unset";
  mutable int calls = 0;
};

v1::RunSpec SmallSpec() {
  v1::RunSpec spec;
  spec.set_algorithm("dpmf-rp");
  spec.set_rounds(2);
  return spec;
}

TEST(AdminServiceTest, RunCallsReachTheRunControlWithTheCallersIdentity) {
  std::unique_ptr<Coordinator> coordinator = MakeCoordinator();
  FakeRunControl runs;
  AdminService service(coordinator.get(), {}, &runs);
  Server server(&service);
  auto stub = v1::Admin::NewStub(server.Channel());
  {
    grpc::ClientContext context;
    v1::RunRecord record;
    const grpc::Status s = stub->SubmitRun(&context, SmallSpec(), &record);
    ASSERT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(record.id(), 7);
    EXPECT_EQ(record.spec().rounds(), 2);
    EXPECT_EQ(runs.submitted.algorithm(), "dpmf-rp");
    EXPECT_EQ(runs.last_identity, "");  // no mutual TLS: no identity
  }
  {
    grpc::ClientContext context;
    v1::ListRunsResponse list;
    ASSERT_TRUE(stub->ListRuns(&context, v1::ListRunsRequest(), &list).ok());
    ASSERT_EQ(list.runs_size(), 2);
    EXPECT_EQ(list.runs(1).id(), 2);
  }
  {
    grpc::ClientContext context;
    v1::CancelRunRequest request;
    request.set_id(2);
    v1::RunRecord record;
    ASSERT_TRUE(stub->CancelRun(&context, request, &record).ok());
    EXPECT_EQ(record.state(), v1::RUN_STATE_CANCELLED);
  }
}

TEST(AdminServiceTest, TheRunControlsRefusalsKeepTheirCodeAndMessage) {
  std::unique_ptr<Coordinator> coordinator = MakeCoordinator();
  FakeRunControl runs;
  runs.submit_answer = absl::InvalidArgumentError("submitted run: rounds=0 (need >= 1)");
  AdminService service(coordinator.get(), {}, &runs);
  Server server(&service);
  auto stub = v1::Admin::NewStub(server.Channel());
  grpc::ClientContext submit_context;
  v1::RunRecord record;
  grpc::Status s = stub->SubmitRun(&submit_context, SmallSpec(), &record);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.error_message(), "submitted run: rounds=0 (need >= 1)");
  grpc::ClientContext cancel_context;
  v1::CancelRunRequest request;
  request.set_id(9);
  s = stub->CancelRun(&cancel_context, request, &record);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(s.error_message(), "no run 9");
}

TEST(AdminServiceTest, OnlyAdminIdentitiesMayCallIt) {
  std::unique_ptr<Coordinator> coordinator = MakeCoordinator();
  FakeRunControl runs;
  // Mutual TLS with admin identity "admin": this plaintext caller has no identity, as a
  // participant's certificate has another one; it is refused before anything is done.
  AdminService service(coordinator.get(), {.identities = {"admin"}, .token = ""}, &runs);
  Server server(&service);
  auto stub = v1::Admin::NewStub(server.Channel());
  testing::internal::CaptureStderr();
  std::vector<grpc::Status> answers;
  {
    grpc::ClientContext context;
    v1::RunRecord record;
    answers.push_back(stub->SubmitRun(&context, SmallSpec(), &record));
  }
  {
    grpc::ClientContext context;
    v1::ListRunsResponse list;
    answers.push_back(stub->ListRuns(&context, v1::ListRunsRequest(), &list));
  }
  {
    grpc::ClientContext context;
    v1::CancelRunRequest request;
    request.set_id(2);
    v1::RunRecord record;
    answers.push_back(stub->CancelRun(&context, request, &record));
  }
  {
    grpc::ClientContext context;
    v1::StatusResponse status;
    answers.push_back(stub->Status(&context, v1::StatusRequest(), &status));
  }
  const std::string log = testing::internal::GetCapturedStderr();
  for (const grpc::Status& s : answers) {
    EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED) << s.error_message();
    EXPECT_EQ(s.error_message(), "identity '' is not an admin identity");
  }
  EXPECT_EQ(runs.calls, 0);
  for (const char* method : {"SubmitRun", "ListRuns", "CancelRun", "Status"}) {
    EXPECT_NE(log.find(absl::StrCat("event=admin_refused method=", method, " identity=\"\"")),
              std::string::npos)
        << method << ": " << log;
  }
}

// With a token, every call must present it ("authorization: Bearer TOKEN"): none, another one, or
// the right one without the scheme is UNAUTHENTICATED, logged, and reaches nothing.
TEST(AdminServiceTest, WithATokenOnlyCallersPresentingItMayCall) {
  std::unique_ptr<Coordinator> coordinator = MakeCoordinator();
  FakeRunControl runs;
  AdminService service(coordinator.get(), {.identities = {}, .token = "s3cret-token"}, &runs);
  Server server(&service);
  auto stub = v1::Admin::NewStub(server.Channel());
  testing::internal::CaptureStderr();
  for (const char* presented : {"", "Bearer wrong-token", "s3cret-token", "Bearer s3cret-token!"}) {
    grpc::ClientContext context;
    if (*presented != '\0') context.AddMetadata("authorization", presented);
    v1::RunRecord record;
    const grpc::Status s = stub->SubmitRun(&context, SmallSpec(), &record);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED) << presented;
  }
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(runs.calls, 0);
  EXPECT_NE(log.find("event=admin_refused method=SubmitRun identity=\"\""), std::string::npos)
      << log;
  EXPECT_NE(log.find("code=UNAUTHENTICATED"), std::string::npos) << log;
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer s3cret-token");
  v1::RunRecord record;
  EXPECT_TRUE(stub->SubmitRun(&context, SmallSpec(), &record).ok());
  EXPECT_EQ(runs.calls, 1);
}

TEST(AdminServiceTest, WithoutARunControlTheRunCallsAreUnimplemented) {
  std::unique_ptr<Coordinator> coordinator = MakeCoordinator();
  AdminService service(coordinator.get());
  Server server(&service);
  auto stub = v1::Admin::NewStub(server.Channel());
  grpc::ClientContext context;
  v1::RunRecord record;
  const grpc::Status s = stub->SubmitRun(&context, SmallSpec(), &record);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_NE(s.error_message().find("takes no submitted runs"), std::string::npos)
      << s.error_message();
  grpc::ClientContext status_context;
  v1::StatusResponse status;
  EXPECT_TRUE(stub->Status(&status_context, v1::StatusRequest(), &status).ok());
}

}  // namespace
}  // namespace fedmf::server
