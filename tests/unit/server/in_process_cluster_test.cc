// Test (iv) of docs/scale-out.md section 11 item 3: the invariants across streams hold across the
// fronts of an in-process cluster as on one coordinator (placement.h): a user has one live stream
// (a second one, on another front, is refused with ALREADY_EXISTS and ended there), the holder
// of a credential that reconnects through another front takes its users over (the old front ends
// the old stream), and a client's cap of live streams counts every front's.
#include "server/in_process_cluster.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/credentials.h"
#include "tests/unit/server/fake_client.h"
#include "tests/unit/server/test_stream.h"
#include "wire/envelope.h"

namespace fedmf::server {
namespace {

using ::testing::HasSubstr;
using testing::OpenStream;
using testing::RegistrationOf;
using testing::TestStream;

class PlacementAcrossFrontsTest : public ::testing::Test {
 protected:
  // The shared enrollment token "token", or, with `credentials`, only the credentials file's:
  // alice's, for users 1-5.
  static CoordinatorOptions Options(bool credentials) {
    CoordinatorOptions options;
    options.enrollment_token = "token";
    options.num_users = 40;
    if (credentials) {
      auto file = std::make_shared<const Credentials>(
          Credentials::Parse(absl::StrCat(TokenCredential("alice-token"), " 1-5\n")).value());
      options.credentials = [file] { return file; };
    }
    return options;
  }
  // Two fronts and their combiner.
  static std::unique_ptr<InProcessCluster> Cluster(bool credentials) {
    return std::make_unique<InProcessCluster>(2, Options(credentials), State(),
                                              SteadyClock::Get());
  }
  // A run the test never starts: only the combiner's placement is exercised.
  static CoordinatorState State() {
    return CoordinatorState{
        "dpmf-rp", algorithms::dpmf_rp::DpmfRpUpdater::Create(testing::SmallRun(1)).value(),
        dp::PrivacyLedger::Create().value(), 1, 1, FixedPopulation()};
  }

  // Opens a stream of `ids` on front `front` and waits until the combiner has placed it.
  TestStream Open(size_t front, std::vector<uint32_t> ids, const std::string& token = "token",
                  const std::string& identity = "") {
    TestStream s = OpenStream(cluster_->front(front), RegistrationOf(ids, token), identity);
    cluster_->Drain();
    return s;
  }
  // Whether the front still takes a message of the stream's user `id` (a refused or replaced
  // stream's are refused: FAILED_PRECONDITION).
  absl::Status Speak(size_t front, const TestStream& s, uint32_t id) {
    v1::ClientMessage message =
        wire::FromParticipant({0, 0}, id, v1::secagg::ClientToServer());
    message.mutable_secagg()->mutable_message()->mutable_abort()->set_reason("test");
    return cluster_->front(front).OnClientMessage(s.connection, message);
  }
  int LiveUsers() { return cluster_->combiner().Status().registered_users(); }

  std::unique_ptr<InProcessCluster> cluster_ = Cluster(/*credentials=*/false);
};

TEST_F(PlacementAcrossFrontsTest, ASecondStreamForALiveUserOnAnotherFrontIsRefused) {
  TestStream first = Open(0, {7});
  ::testing::internal::CaptureStderr();
  TestStream second = Open(1, {7, 8});
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("event=stream_ended client=\"\" peer=test users=2 status=\"ALREADY_EXISTS: "
                        "participant 7 is already hosted by another live stream"));
  EXPECT_EQ(Speak(1, second, 8).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Speak(0, first, 7).ok());
  EXPECT_EQ(LiveUsers(), 1);
}

TEST_F(PlacementAcrossFrontsTest, TheSameCredentialTakesItsUsersOverThroughAnotherFront) {
  cluster_ = Cluster(/*credentials=*/true);
  TestStream old = Open(0, {1, 2}, "alice-token");
  TestStream reconnected = Open(1, {1, 2}, "alice-token");
  EXPECT_EQ(Speak(0, old, 1).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Speak(1, reconnected, 1).ok());
  EXPECT_EQ(LiveUsers(), 2);
}

TEST_F(PlacementAcrossFrontsTest, AClientsStreamCapCountsEveryFront) {
  TestStream first = Open(0, {10}, "token", "device-3");
  TestStream second = Open(1, {11}, "token", "device-3");
  EXPECT_EQ(Speak(1, second, 11).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(LiveUsers(), 1);
  // Once the combiner has heard that the first ended, the client may stream again, through
  // either front.
  cluster_->front(0).OnStreamClosed(first.connection);
  cluster_->Drain();
  TestStream third = Open(1, {11}, "token", "device-3");
  EXPECT_TRUE(Speak(1, third, 11).ok());
  EXPECT_EQ(LiveUsers(), 1);
}

}  // namespace
}  // namespace fedmf::server
