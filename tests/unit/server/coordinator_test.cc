// The coordinator's handling of registrations and stream messages, without sockets (connections
// without a reactor drop what is sent to them). Rounds themselves run in the integration tests.
#include "server/coordinator.h"

#include "common/algorithms/dpmf_rp/updater.h"
#include "gtest/gtest.h"
#include "wire/limits.h"

namespace fedmf::server {
namespace {

std::unique_ptr<Coordinator> MakeCoordinator() {
  algorithms::dpmf_rp::DpmfRpConfig c;
  c.num_users = 40;
  c.num_items = 30;
  c.rank = 4;
  c.mechanism = algorithms::dpmf_rp::Mechanism::kNone;
  c.participation = 0.25;
  CoordinatorOptions options;
  options.enrollment_token = "token";
  options.num_users = 40;
  return std::make_unique<Coordinator>(
      options, CoordinatorState{"dpmf-rp", algorithms::dpmf_rp::DpmfRpUpdater::Create(c).value(),
                                dp::PrivacyLedger::Create().value(), 1, 3, FixedPopulation()});
}

v1::RegisterRequest Enrollment(std::vector<uint32_t> ids, std::string token = "token") {
  v1::RegisterRequest r;
  r.set_protocol_version(wire::kProtocolVersion);
  r.set_enrollment_token(token);
  r.set_signing_public_key(std::string(32, 'k'));
  for (uint32_t id : ids) r.add_participant_ids(id);
  return r;
}

v1::ClientMessage SecAgg(uint32_t id) {
  v1::ClientMessage m;
  m.mutable_secagg()->set_participant_id(id);
  m.mutable_secagg()->mutable_message()->mutable_advertise_keys()->set_c_public_key("x");
  return m;
}

TEST(CoordinatorTest, RegisterMapsRefusalsToGrpcCodes) {
  auto coordinator = MakeCoordinator();
  v1::RegisterResponse response;
  EXPECT_EQ(coordinator->Register(Enrollment({1}, "bad"), response, "").code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(coordinator->Register(Enrollment({41}), response, "").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(coordinator->Register(Enrollment({1}), response, "").ok());
  EXPECT_EQ(response.session_token().size(), 16u);
  EXPECT_EQ(response.current_round(), 0);
}

TEST(CoordinatorTest, AStreamOpensOnlyWithAValidSessionToken) {
  auto coordinator = MakeCoordinator();
  auto c = std::make_shared<Connection>(1, "test");
  EXPECT_EQ(coordinator->OnStreamOpen(c, "unknown").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(coordinator->OnStreamOpen(c, "").code(), absl::StatusCode::kNotFound);
  // Nothing an unbound stream sends is handled.
  EXPECT_EQ(coordinator->OnClientMessage(c, SecAgg(1)).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(coordinator->Status().connected_clients(), 0);
}

TEST(CoordinatorTest, BoundStreamsMaySpeakOnlyForTheirOwnUsers) {
  auto coordinator = MakeCoordinator();
  v1::RegisterResponse response;
  ASSERT_TRUE(coordinator->Register(Enrollment({1, 2}), response, "").ok());
  auto c = std::make_shared<Connection>(1, "test");
  ASSERT_TRUE(coordinator->OnStreamOpen(c, response.session_token()).ok());
  EXPECT_EQ(coordinator->Status().registered_users(), 2);
  EXPECT_EQ(coordinator->Status().connected_clients(), 1);
  EXPECT_EQ(coordinator->OnClientMessage(c, SecAgg(3)).code(), absl::StatusCode::kPermissionDenied);
  // No round is running: a (malformed) message of an own user is ignored, not fatal.
  EXPECT_TRUE(coordinator->OnClientMessage(c, SecAgg(1)).ok());
  EXPECT_EQ(coordinator->OnStreamOpen(c, response.session_token()).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(coordinator->OnClientMessage(c, v1::ClientMessage()).code(),
            absl::StatusCode::kInvalidArgument);
  coordinator->OnStreamClosed(c);
  EXPECT_EQ(coordinator->Status().registered_users(), 0);
  EXPECT_EQ(coordinator->Status().connected_clients(), 0);
}

TEST(CoordinatorTest, StatusReportsTheRunBeforeAnyRound) {
  auto coordinator = MakeCoordinator();
  const v1::StatusResponse s = coordinator->Status();
  EXPECT_EQ(s.round(), 0);
  EXPECT_EQ(s.total_rounds(), 3);
  EXPECT_EQ(s.stage(), "starting");
  EXPECT_EQ(s.epsilon_rdp2(), 0);  // nothing released yet
}

// A stop is not the end of training (the clients wait for the restart): stage "stopped", not
// "done".
TEST(CoordinatorTest, StopEndsRunWhileWaitingForUsers) {
  auto coordinator = MakeCoordinator();
  coordinator->Stop();
  EXPECT_TRUE(coordinator->Run().ok());
  EXPECT_EQ(coordinator->Status().stage(), "stopped");
  EXPECT_EQ(coordinator->Status().round(), 0);
}

}  // namespace
}  // namespace fedmf::server
