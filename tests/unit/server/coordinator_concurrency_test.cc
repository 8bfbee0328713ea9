// What does not wait for the round driver: while the driver applies a sum (a test updater blocks
// in ApplySum until released), Admin.Status, a registration and every stream callback return.
// Waits are bounded by progress (latches), not by the wall clock.
#include <future>
#include <latch>
#include <memory>
#include <utility>
#include <vector>

#include "client/participant_host.h"
#include "client/registration.h"
#include "common/algorithms/dpmf_rp/updater.h"
#include "gtest/gtest.h"
#include "server/coordinator.h"
#include "tests/unit/server/fake_client.h"

namespace fedmf::server {
namespace {

// DPMF-RP whose first ApplySum signals `entered` and then waits for `release`.
class BlockingUpdater final : public algorithms::Updater {
 public:
  BlockingUpdater(std::unique_ptr<algorithms::Updater> inner, std::latch& entered,
                  std::latch& release)
      : inner_(std::move(inner)), entered_(entered), release_(release) {}

  int64_t round() const override { return inner_->round(); }
  absl::StatusOr<v1::RoundPlan> Plan() const override { return inner_->Plan(); }
  absl::Status ApplySum(absl::Span<const uint64_t> sum,
                        absl::Span<const uint32_t> contributors) override {
    if (!blocked_once_) {
      blocked_once_ = true;
      entered_.count_down();
      release_.wait();
    }
    return inner_->ApplySum(sum, contributors);
  }
  absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t participants, const std::vector<double>& orders) const override {
    return inner_->RoundPrivacy(participants, orders);
  }
  std::optional<dp::PrivacyBudget> budget() const override { return inner_->budget(); }
  absl::StatusOr<std::string> SerializeState() const override { return inner_->SerializeState(); }

 private:
  std::unique_ptr<algorithms::Updater> inner_;
  std::latch& entered_;
  std::latch& release_;
  bool blocked_once_ = false;
};

TEST(CoordinatorConcurrencyTest, StreamsRegistrationAndStatusDoNotWaitForASlowApplySum) {
  std::latch entered(1), release(1);
  CoordinatorOptions options;
  options.enrollment_token = "token";
  options.num_users = 40;
  options.dropout_fraction = 0.6;
  auto updater = std::make_unique<BlockingUpdater>(
      algorithms::dpmf_rp::DpmfRpUpdater::Create(testing::SmallRun(1)).value(), entered, release);
  Coordinator coordinator(
      options, CoordinatorState{"dpmf-rp", std::move(updater), dp::PrivacyLedger::Create().value(),
                                1, 1, FixedPopulation()});
  auto data = testing::SmallDataset();
  // Three of four client processes take part; the fourth joins while the sum is being applied.
  std::vector<std::unique_ptr<testing::FakeClient>> clients;
  for (int i = 0; i < 3; ++i) {
    clients.push_back(std::make_unique<testing::FakeClient>(
        coordinator, client::ParticipantHost::Create(data, testing::Shard(i, 4, 40)).value(),
        i + 1));
  }
  std::future<absl::Status> run = std::async(std::launch::async, [&] { return coordinator.Run(); });
  entered.wait();  // the driver is inside ApplySum, after the last stage closed

  const v1::StatusResponse during = coordinator.Status();
  EXPECT_EQ(during.round(), 0);
  EXPECT_EQ(during.connected_clients(), 3);

  std::unique_ptr<client::ParticipantHost> late =
      client::ParticipantHost::Create(data, testing::Shard(3, 4, 40)).value();
  v1::RegisterResponse response;
  ASSERT_TRUE(
      coordinator.Register(client::MakeRegisterRequest(*late, "", "token"), response, "").ok());
  EXPECT_EQ(response.current_round(), 0);
  auto stream = std::make_shared<Connection>(coordinator.NextConnectionId(), "late",
                                             [](const v1::ServerMessage&) {});
  ASSERT_TRUE(coordinator.OnStreamOpen(stream, response.session_token()).ok());
  v1::ClientMessage message;
  message.mutable_secagg()->set_participant_id(late->participant_ids().front());
  EXPECT_TRUE(coordinator.OnClientMessage(stream, message).ok());  // late for the round: ignored
  EXPECT_EQ(coordinator.Status().connected_clients(), 4);
  coordinator.OnStreamClosed(stream);

  release.count_down();
  ASSERT_TRUE(run.get().ok());
  EXPECT_EQ(coordinator.Status().round(), 1);
  EXPECT_EQ(coordinator.Status().stage(), "done");
}

}  // namespace
}  // namespace fedmf::server
