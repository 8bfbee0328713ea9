// AggregationInbox: deliveries (clear uploads and drops of a clear aggregation; fronts' partial
// sums of a secure one) go in at once, wait in order while held, and are late once detached.
#include "server/aggregation_inbox.h"

#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "crypto/secagg/client_session.h"
#include "crypto/secagg/partial_sum.h"
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

// A secure aggregation of three SecAgg clients (t = 2) brought to its MaskedInput stage, and the
// partial sum of the masked inputs of clients 2 and 3.
struct AtMaskedInput {
  std::unique_ptr<Aggregation> aggregation;
  secagg::PartialSum partial;
};

AtMaskedInput BringToMaskedInput(const wire::AggregationTag& tag) {
  secagg::SessionConfig config;
  config.context = "aggregation-inbox-test";
  config.num_clients = 3;
  config.threshold = 2;
  config.bits = 8;
  config.length = 2;
  AtMaskedInput out;
  out.aggregation = Aggregation::Secure(tag, config, {1, 2, 3}, nullptr, 2).value();
  std::map<uint32_t, std::unique_ptr<secagg::ClientSession>> clients;
  for (uint32_t id = 1; id <= 3; ++id) {
    clients[id] =
        secagg::ClientSession::Create(config, secagg::ClientIdentity{id, std::nullopt}, nullptr)
            .value();
    EXPECT_TRUE(clients[id]->SetInput({id, 1}).ok());
    out.aggregation->DeliverSecAgg(
        id, wire::FromParticipant(tag, id, clients[id]->Start().value()).secagg());
  }
  secagg::MaskedInputSummer summer = secagg::MaskedInputSummer::Create(8, 2).value();
  for (int stage = 0; stage < 2; ++stage) {  // ShareKeys, then MaskedInput
    Aggregation::Envelopes requests = out.aggregation->CloseStage().value();
    for (Aggregation::Envelope& e : requests) {
      const v1::secagg::ServerToClient& request = e.message.secagg().message();
      v1::secagg::ClientToServer reply = clients[e.participant_id]->Handle(request).value().value();
      if (stage == 0) {
        out.aggregation->DeliverSecAgg(
            e.participant_id, wire::FromParticipant(tag, e.participant_id, reply).secagg());
      } else if (e.participant_id != 1) {
        std::vector<uint32_t> relayed;
        for (const auto& entry : request.masked_input().shares()) {
          relayed.push_back(entry.peer_id());
        }
        EXPECT_TRUE(summer.Add(e.participant_id, reply.masked_input(), relayed).ok());
      }
    }
  }
  out.partial = summer.Partial().value();
  return out;
}

TEST(AggregationInboxTest, PartialSumsQueueWhileHeldAndAreLateWhenDetached) {
  const wire::AggregationTag tag{.round = 2, .phase = 0};
  AtMaskedInput at = BringToMaskedInput(tag);
  std::vector<uint32_t> routed;  // who the replies went to
  const AggregationInbox::Route route = [&routed](Aggregation::Envelopes envelopes) {
    for (const Aggregation::Envelope& e : envelopes) routed.push_back(e.participant_id);
  };
  AggregationInbox inbox;
  EXPECT_FALSE(inbox.Deliver(AggregationInbox::PartialSum{tag, at.partial}, route));  // late
  inbox.Attach(at.aggregation.get());
  EXPECT_THAT(at.aggregation->contributors(), IsEmpty());

  // Member 1's input in a sum the session refuses: it is dropped and told, once released.
  inbox.Hold();
  const secagg::PartialSum broken{.members = {{1, {}}}, .packed = "x"};
  EXPECT_FALSE(inbox.Deliver(AggregationInbox::PartialSum{tag, broken}, route));
  EXPECT_FALSE(inbox.Deliver(AggregationInbox::PartialSum{tag, at.partial}, route));
  EXPECT_THAT(routed, IsEmpty());
  EXPECT_THAT(at.aggregation->Lost(), IsEmpty());
  for (AggregationInbox::Delivery& d : inbox.Release()) inbox.Deliver(std::move(d), route);
  EXPECT_THAT(routed, ElementsAre(1));
  EXPECT_THAT(at.aggregation->Lost(), ElementsAre(1));
  EXPECT_THAT(at.aggregation->contributors(), ElementsAre(2, 3));
  EXPECT_TRUE(inbox.ReadyToClose());
}

}  // namespace
}  // namespace fedmf::server
