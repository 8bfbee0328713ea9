#include "server/link_queue.h"

#include <string>
#include <vector>

#include "fedmf/v1/replica.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::server {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// A reactor that records what it was asked to write and how the link ended.
struct FakeReactor {
  std::vector<std::string> started;  // each write's front name, in order
  std::vector<grpc::StatusCode> ends;
};

v1::FrontMessage Named(const std::string& name) {
  v1::FrontMessage message;
  message.mutable_hello()->set_name(name);
  return message;
}

LinkQueue<v1::FrontMessage> QueueFor(FakeReactor& reactor, uint64_t max_bytes) {
  return LinkQueue<v1::FrontMessage>(
      max_bytes,
      [&reactor](const v1::FrontMessage& m) { reactor.started.push_back(m.hello().name()); },
      [&reactor](const grpc::Status& status) { reactor.ends.push_back(status.error_code()); });
}

// One write in flight: the next starts when the one before is done, in order.
TEST(LinkQueueTest, WritesOneAtATimeInOrder) {
  FakeReactor reactor;
  LinkQueue<v1::FrontMessage> queue = QueueFor(reactor, 1 << 20);
  queue.Send(Named("a"));
  queue.Send(Named("b"));
  queue.Send(Named("c"));
  EXPECT_THAT(reactor.started, ElementsAre("a"));
  queue.WriteDone();
  EXPECT_THAT(reactor.started, ElementsAre("a", "b"));
  queue.WriteDone();
  queue.WriteDone();
  EXPECT_THAT(reactor.started, ElementsAre("a", "b", "c"));
  queue.Send(Named("d"));  // the queue was empty: written at once
  EXPECT_THAT(reactor.started, ElementsAre("a", "b", "c", "d"));
  EXPECT_THAT(reactor.ends, IsEmpty());
}

// Close with a write in flight ends the link only when it is done (a reactor must not finish
// with a write outstanding); what was queued is dropped, and so is what is sent afterwards.
TEST(LinkQueueTest, CloseWaitsForTheWriteInFlight) {
  FakeReactor reactor;
  LinkQueue<v1::FrontMessage> queue = QueueFor(reactor, 1 << 20);
  queue.Send(Named("a"));
  queue.Send(Named("b"));
  queue.Close(grpc::Status::CANCELLED);
  EXPECT_THAT(reactor.ends, IsEmpty());
  queue.Send(Named("c"));
  queue.WriteDone();
  EXPECT_THAT(reactor.started, ElementsAre("a"));
  EXPECT_THAT(reactor.ends, ElementsAre(grpc::StatusCode::CANCELLED));
  queue.Close(grpc::Status::OK);  // only the first close counts
  EXPECT_THAT(reactor.ends, SizeIs(1));
}

TEST(LinkQueueTest, CloseWithNothingInFlightEndsAtOnce) {
  FakeReactor reactor;
  LinkQueue<v1::FrontMessage> queue = QueueFor(reactor, 1 << 20);
  queue.Close(grpc::Status::OK);
  EXPECT_THAT(reactor.ends, ElementsAre(grpc::StatusCode::OK));
  queue.Send(Named("a"));
  EXPECT_THAT(reactor.started, IsEmpty());
}

// A peer that does not read: the queue past its bound breaks the link with RESOURCE_EXHAUSTED,
// once the write in flight is done.
TEST(LinkQueueTest, OverflowBreaksTheLink) {
  FakeReactor reactor;
  const uint64_t one = Named("x").ByteSizeLong();
  LinkQueue<v1::FrontMessage> queue = QueueFor(reactor, 3 * one);
  for (int i = 0; i < 3; ++i) queue.Send(Named("x"));
  EXPECT_THAT(reactor.ends, IsEmpty());
  queue.Send(Named("x"));  // the fourth does not fit
  queue.WriteDone();
  EXPECT_THAT(reactor.started, SizeIs(1));
  EXPECT_THAT(reactor.ends, ElementsAre(grpc::StatusCode::RESOURCE_EXHAUSTED));
}

}  // namespace
}  // namespace fedmf::server
