// Check-in end to end on a loopback port: a coordinator that ends the streams a round does not
// need (swept every 10 ms as fedmf-coordinator's watcher does every second, window 0, delays of
// 0.1 to 0.3 s) against both transports: the stream pool (a stream a user) and RunGrpcClient (a
// stream a process of several users). Told-to-leave hosts come back, every later cohort fills
// without a dropout (no cohort member is ever dismissed), and every host hears the end.
#include <atomic>
#include <future>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "client/grpc_client.h"
#include "client/stream_pool.h"
#include "gtest/gtest.h"
#include "tests/unit/client/test_coordinator.h"
#include "tests/unit/client/test_round.h"

namespace fedmf::client {
namespace {

constexpr int64_t kRounds = 3;

// Check-in every 0.2 s on average, as soon as a stream opened; the first round waits for its
// cohort only.
server::CoordinatorOptions CheckInOptions() {
  server::CoordinatorOptions o;
  o.check_in_period = absl::Milliseconds(200);
  o.check_in_window = absl::ZeroDuration();
  return o;
}

// Sweeps as fedmf-coordinator's watcher does, until destroyed.
class Sweeper {
 public:
  explicit Sweeper(server::Coordinator& coordinator)
      : thread_([this, &coordinator] {
          while (!done_.load()) {
            coordinator.DismissIdleStreams(absl::Now());
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
          }
        }) {}
  ~Sweeper() {
    done_.store(true);
    thread_.join();
  }

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// The coordinator's event=round lines in `log`: each applied, without a dropout.
void ExpectRoundsAppliedWithoutDropouts(const std::string& log) {
  const std::regex round_line(
      "event=round round=\\d+ phase=0 attempt=\\d+ applied=(\\w+).*"
      " dropouts=(\\d+)");
  int applied = 0;
  for (std::sregex_iterator it(log.begin(), log.end(), round_line), end; it != end; ++it) {
    EXPECT_EQ((*it)[1], "yes") << it->str();
    EXPECT_EQ((*it)[2], "0") << it->str();
    ++applied;
  }
  EXPECT_EQ(applied, kRounds) << log;
}

TEST(CheckInTest, PooledUsersToldToLeaveComeBackAndHearTheEnd) {
  test_util::TestCoordinator s(kRounds, CheckInOptions());
  ASSERT_NE(s.server, nullptr);
  auto data = test_util::SmallData();
  std::vector<std::unique_ptr<ParticipantHost>> hosts;
  for (int32_t u = 0; u < data->num_users(); ++u) {
    hosts.push_back(ParticipantHost::Create(data, {u}).value());
  }
  StreamPoolOptions options;
  options.client.target = s.target();
  options.client.name = "pool";
  options.client.enrollment_token = "token";
  options.client.backoff.give_up_after = absl::Seconds(60);
  options.channels = 3;
  std::atomic<bool> stop{false};
  ::testing::internal::CaptureStderr();
  absl::Status pool;
  {
    Sweeper sweeper(*s.coordinator);
    std::future<absl::Status> run =
        std::async(std::launch::async, [&] { return s.coordinator->Run(); });
    pool = RunStreamPool(hosts, options, stop);
    EXPECT_TRUE(run.get().ok());
  }
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(pool.ok()) << pool;
  EXPECT_EQ(s.coordinator->Status().round(), kRounds);
  EXPECT_GT(s.coordinator->Status().checked_in_streams(), 0);
  ExpectRoundsAppliedWithoutDropouts(log);
  for (const auto& h : hosts) EXPECT_TRUE(h->training_done());
}

TEST(CheckInTest, OneStreamClientsToldToLeaveComeBackAndHearTheEnd) {
  test_util::TestCoordinator s(kRounds, CheckInOptions());
  ASSERT_NE(s.server, nullptr);
  auto data = test_util::SmallData();
  // 8 processes of 5 users: a process with no member in a cohort of 10 is told to leave.
  std::vector<std::unique_ptr<ParticipantHost>> hosts;
  for (int32_t first = 0; first < data->num_users(); first += 5) {
    hosts.push_back(
        ParticipantHost::Create(data, {first, first + 1, first + 2, first + 3, first + 4}).value());
  }
  std::atomic<bool> stop{false};
  ::testing::internal::CaptureStderr();
  std::vector<absl::Status> clients(hosts.size());
  {
    Sweeper sweeper(*s.coordinator);
    std::future<absl::Status> run =
        std::async(std::launch::async, [&] { return s.coordinator->Run(); });
    std::vector<std::thread> threads;
    for (size_t i = 0; i < hosts.size(); ++i) {
      threads.emplace_back([&, i] {
        GrpcClientOptions options;
        options.target = s.target();
        options.name = "client-" + std::to_string(i);
        options.enrollment_token = "token";
        options.backoff.give_up_after = absl::Seconds(60);
        clients[i] = RunGrpcClient(*hosts[i], options, stop);
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_TRUE(run.get().ok());
  }
  const std::string log = ::testing::internal::GetCapturedStderr();
  for (const absl::Status& c : clients) EXPECT_TRUE(c.ok()) << c;
  EXPECT_EQ(s.coordinator->Status().round(), kRounds);
  EXPECT_GT(s.coordinator->Status().checked_in_streams(), 0);
  EXPECT_NE(log.find("event=check_in_later client=client-"), std::string::npos);
  ExpectRoundsAppliedWithoutDropouts(log);
  for (const auto& h : hosts) EXPECT_TRUE(h->training_done());
}

}  // namespace
}  // namespace fedmf::client
