#include "server/in_process_link.h"

#include <mutex>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::server {
namespace {

using ::testing::ElementsAre;

v1::FrontMessage Dropped(uint32_t participant_id) {
  v1::FrontMessage message;
  message.mutable_relayed()->add_items()->set_dropped(participant_id);
  return message;
}

TEST(InProcessChannelTest, DeliversInTheOrderSent) {
  std::mutex mu;
  std::vector<uint32_t> received;
  InProcessChannel<v1::FrontMessage> channel([&](v1::FrontMessage message) {
    std::lock_guard<std::mutex> lock(mu);
    received.push_back(message.relayed().items(0).dropped());
  });
  std::vector<uint32_t> sent;
  for (uint32_t id = 1; id <= 200; ++id) {
    channel.Send(Dropped(id));
    sent.push_back(id);
  }
  channel.Drain();
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(received, sent);
}

// A side sends under its own lock, and the receiver takes that lock: the send does not wait for
// the receiver, so the two never hold each other up.
TEST(InProcessChannelTest, SendsUnderALockTheReceiverTakes) {
  std::mutex side_mu;
  std::vector<uint32_t> received;
  InProcessChannel<v1::FrontMessage> channel([&](v1::FrontMessage message) {
    std::lock_guard<std::mutex> lock(side_mu);
    received.push_back(message.relayed().items(0).dropped());
  });
  {
    std::lock_guard<std::mutex> lock(side_mu);
    channel.Send(Dropped(1));
    channel.Send(Dropped(2));
  }
  channel.Drain();
  std::lock_guard<std::mutex> lock(side_mu);
  EXPECT_THAT(received, ElementsAre(1, 2));
}

TEST(InProcessChannelTest, DeliversWhatWasSentBeforeItIsDestroyed) {
  std::vector<uint32_t> received;  // read after the channel's thread is joined
  {
    std::mutex gate;
    std::unique_lock<std::mutex> hold(gate);  // the first delivery waits until all are sent
    InProcessChannel<v1::FrontMessage> channel([&](v1::FrontMessage message) {
      std::lock_guard<std::mutex> lock(gate);
      received.push_back(message.relayed().items(0).dropped());
    });
    for (uint32_t id = 1; id <= 3; ++id) channel.Send(Dropped(id));
    hold.unlock();
  }
  EXPECT_THAT(received, ElementsAre(1, 2, 3));
}

TEST(InProcessLinkTest, EachDirectionReachesItsReceiver) {
  std::vector<uint32_t> at_combiner;
  std::vector<int64_t> at_front;
  {
    InProcessLink link(
        [&](v1::FrontMessage message) {
          at_combiner.push_back(message.relayed().items(0).dropped());
        },
        [&](v1::CombinerMessage message) { at_front.push_back(message.seal().round()); });
    link.to_combiner.Send(Dropped(7));
    v1::CombinerMessage seal;
    seal.mutable_seal()->set_round(3);
    link.to_front.Send(seal);
  }
  EXPECT_THAT(at_combiner, ElementsAre(7));
  EXPECT_THAT(at_front, ElementsAre(3));
}

}  // namespace
}  // namespace fedmf::server
