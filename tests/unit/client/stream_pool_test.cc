// RunStreamPool against a real coordinator on a loopback port: every host registers on its own
// stream (spread over several channels) and trains to the end; a refused registration ends the
// pool with the coordinator's status; a stop request cancels it.
#include "client/stream_pool.h"

#include <grpcpp/grpcpp.h>

#include <future>
#include <mutex>
#include <thread>

#include "gtest/gtest.h"
#include "tests/unit/client/test_coordinator.h"
#include "tests/unit/client/test_round.h"

namespace fedmf::client {
namespace {

std::vector<std::unique_ptr<ParticipantHost>> SingleUserHosts() {
  auto data = test_util::SmallData();
  std::vector<std::unique_ptr<ParticipantHost>> hosts;
  for (int32_t u = 0; u < data->num_users(); ++u) {
    hosts.push_back(ParticipantHost::Create(data, {u}).value());
  }
  return hosts;
}

StreamPoolOptions Options(const std::string& target, const std::string& token) {
  StreamPoolOptions o;
  o.client.target = target;
  o.client.name = "pool";
  o.client.enrollment_token = token;
  o.client.backoff.give_up_after = absl::Seconds(20);
  o.channels = 3;
  o.workers = 2;
  return o;
}

TEST(StreamPoolTest, FortySingleUserStreamsTrainToTheEnd) {
  test_util::TestCoordinator s(2);
  ASSERT_NE(s.server, nullptr);
  auto hosts = SingleUserHosts();
  std::atomic<bool> stop{false};
  std::future<absl::Status> run =
      std::async(std::launch::async, [&] { return s.coordinator->Run(); });
  const absl::Status pool = RunStreamPool(hosts, Options(s.target(), "token"), stop);
  EXPECT_TRUE(pool.ok()) << pool;
  EXPECT_TRUE(run.get().ok());
  EXPECT_EQ(s.coordinator->Status().round(), 2);
  int64_t completed = 0;
  for (const auto& h : hosts) {
    EXPECT_TRUE(h->training_done());
    completed += h->rounds_completed();
  }
  // Every host sees both RoundResults (they are broadcast to every stream).
  EXPECT_EQ(completed, 2 * 40);
}

TEST(StreamPoolTest, ARefusedRegistrationEndsThePoolWithItsStatus) {
  test_util::TestCoordinator s(1);
  auto hosts = SingleUserHosts();
  std::atomic<bool> stop{false};
  const absl::Status pool = RunStreamPool(hosts, Options(s.target(), "wrong"), stop);
  EXPECT_EQ(pool.code(), absl::StatusCode::kUnauthenticated) << pool;
}

TEST(StreamPoolTest, StopCancelsEveryStream) {
  test_util::TestCoordinator s(1);  // never runs a round: the streams stay open until stopped
  auto hosts = SingleUserHosts();
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    while (s.coordinator->Status().connected_clients() < 40) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    stop.store(true);
  });
  const absl::Status pool = RunStreamPool(hosts, Options(s.target(), "token"), stop);
  stopper.join();
  EXPECT_EQ(pool.code(), absl::StatusCode::kCancelled) << pool;
}

// Cuts the stream of the first host that gets a RoundTask (once), withholds the first RoundResult
// of another host, delays every other message by 20 ms.
class TestObserver final : public StreamObserver {
 public:
  StreamAction OnReceive(size_t host, const v1::ServerMessage& m) override {
    StreamAction a;
    std::lock_guard<std::mutex> lock(mu_);
    if (m.has_task() && cut_host_ < 0) {
      cut_host_ = static_cast<int>(host);
      a.disconnect = true;
      return a;
    }
    if (m.has_result() && !m.result().training_done() && withheld_host_ < 0 &&
        static_cast<int>(host) != cut_host_) {
      withheld_host_ = static_cast<int>(host);
      a.deliver = false;
      return a;
    }
    a.delay = absl::Milliseconds(20);
    ++delayed_;
    return a;
  }
  std::mutex mu_;
  int cut_host_ = -1;
  int withheld_host_ = -1;
  int delayed_ = 0;
};

TEST(StreamPoolTest, ObserverCutsWithholdsAndDelays) {
  test_util::TestCoordinator s(2);
  auto hosts = SingleUserHosts();
  std::atomic<bool> stop{false};
  TestObserver observer;
  StreamPoolOptions options = Options(s.target(), "token");
  options.observer = &observer;
  std::future<absl::Status> run =
      std::async(std::launch::async, [&] { return s.coordinator->Run(); });
  const absl::Status pool = RunStreamPool(hosts, options, stop);
  EXPECT_TRUE(pool.ok()) << pool;
  EXPECT_TRUE(run.get().ok());
  EXPECT_EQ(s.coordinator->Status().round(), 2);
  ASSERT_GE(observer.cut_host_, 0);
  ASSERT_GE(observer.withheld_host_, 0);
  EXPECT_GT(observer.delayed_, 40);  // at least every host's final result
  for (const auto& h : hosts) {
    EXPECT_TRUE(h->training_done());  // the cut host re-registered and saw the end
    // The final result says how many rounds completed, whichever results a host missed.
    EXPECT_EQ(h->rounds_completed(), 2);
  }
}

TEST(StreamPoolTest, RejectsBadOptions) {
  std::atomic<bool> stop{false};
  EXPECT_EQ(RunStreamPool({}, Options("x", "t"), stop).code(), absl::StatusCode::kInvalidArgument);
  auto hosts = SingleUserHosts();
  StreamPoolOptions o = Options("x", "t");
  o.workers = 0;
  EXPECT_EQ(RunStreamPool(hosts, o, stop).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::client
