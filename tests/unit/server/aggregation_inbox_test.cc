// AggregationInbox on a clear aggregation: deliveries go in at once, wait in order while held, and
// are late once detached.
#include "server/aggregation_inbox.h"

#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/server/clear_plan.h"
#include "wire/clear_upload.h"

namespace fedmf::server {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

v1::ClearUpload UploadOf(uint32_t id) {
  return wire::ToClearUpload({0, 0}, id, algorithms::ContributionVector::Dense({id, 1, 0}));
}

const AggregationInbox::Route kNoRoute = [](Aggregation::Envelopes) {};

TEST(AggregationInboxTest, DeliversAtOnceQueuesWhileHeldAndIgnoresWhenDetached) {
  std::unique_ptr<Aggregation> aggregation =
      Aggregation::Clear({0, 0}, testing::ClearPlan(0, 1, 3), {1, 2, 3}, 1);
  AggregationInbox inbox;
  EXPECT_FALSE(inbox.Deliver(UploadOf(1), kNoRoute));  // detached: late
  inbox.Attach(aggregation.get());
  inbox.Deliver(UploadOf(1), kNoRoute);
  EXPECT_THAT(aggregation->contributors(), ElementsAre(1));

  inbox.Hold();
  inbox.Deliver(UploadOf(2), kNoRoute);
  EXPECT_TRUE(inbox.Deliver(AggregationInbox::Dropped{3}, kNoRoute));   // a member: counted
  EXPECT_FALSE(inbox.Deliver(AggregationInbox::Dropped{9}, kNoRoute));  // not in the cohort
  EXPECT_FALSE(inbox.ReadyToClose());  // held: the aggregation is not the router's to read
  EXPECT_THAT(aggregation->contributors(), ElementsAre(1));

  for (AggregationInbox::Delivery& d : inbox.Release()) inbox.Deliver(std::move(d), kNoRoute);
  EXPECT_THAT(aggregation->contributors(), ElementsAre(1, 2));
  EXPECT_TRUE(inbox.ReadyToClose());  // 3 dropped

  inbox.Hold();
  inbox.Deliver(UploadOf(3), kNoRoute);
  inbox.Detach();
  EXPECT_THAT(inbox.Release(), IsEmpty());
  EXPECT_THAT(inbox.cohort(), IsEmpty());
}

}  // namespace
}  // namespace fedmf::server
