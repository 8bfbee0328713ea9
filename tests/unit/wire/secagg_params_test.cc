#include "wire/secagg_params.h"

#include <array>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "wire/envelope.h"

namespace fedmf::wire {
namespace {

TEST(SecAggParamsTest, RoundTripsEveryField) {
  secagg::SessionConfig c;
  c.context = "run/round-3";
  c.num_clients = 10;
  c.threshold = 7;
  c.bits = 40;
  c.length = 123;
  c.graph = secagg::GraphKind::kHarary;
  c.degree = 6;
  const absl::StatusOr<secagg::SessionConfig> back = FromProto(ToProto(c));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->context, "run/round-3");
  EXPECT_EQ(back->num_clients, 10);
  EXPECT_EQ(back->threshold, 7);
  EXPECT_EQ(back->bits, 40);
  EXPECT_EQ(back->length, 123u);
  EXPECT_EQ(back->graph, secagg::GraphKind::kHarary);
  EXPECT_EQ(back->degree, 6);
  EXPECT_FALSE(back->signatures);
  EXPECT_FALSE(back->consistency_check);
}

TEST(SecAggParamsTest, RejectsAThresholdAboveTheCohort) {
  v1::SecAggParams p;
  p.set_context("x");
  p.set_num_clients(3);
  p.set_threshold(4);
  p.set_bits(8);
  p.set_length(1);
  EXPECT_EQ(FromProto(p).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SecAggParamsTest, RejectsAnEmptyMessage) {
  EXPECT_EQ(FromProto(v1::SecAggParams()).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SecAggParamsTest, BuildsTheSigningKeyDirectory) {
  google::protobuf::RepeatedPtrField<v1::SigningKeys> keys;
  v1::SigningKeys* a = keys.Add();
  a->set_public_key(std::string(32, 'a'));
  a->add_participant_ids(1);
  a->add_participant_ids(4);
  v1::SigningKeys* b = keys.Add();
  b->set_public_key(std::string(32, 'b'));
  b->add_participant_ids(2);
  auto directory = DirectoryFromProto(keys).value();
  const std::array<uint8_t, 32> key_a = [] {
    std::array<uint8_t, 32> k;
    k.fill('a');
    return k;
  }();
  ASSERT_TRUE(directory->Find(4).has_value());
  EXPECT_EQ(directory->Find(4)->bytes(), key_a);
  EXPECT_EQ(directory->Find(2)->bytes()[0], 'b');
  EXPECT_FALSE(directory->Find(3).has_value());
}

TEST(SecAggParamsTest, RejectsAShortKeyAndAParticipantListedTwice) {
  google::protobuf::RepeatedPtrField<v1::SigningKeys> keys;
  v1::SigningKeys* a = keys.Add();
  a->set_public_key(std::string(32, 'a'));
  a->add_participant_ids(3);
  v1::SigningKeys* b = keys.Add();
  b->set_public_key(std::string(31, 'b'));
  b->add_participant_ids(5);
  absl::Status s = DirectoryFromProto(keys).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("signing_keys[1]"), absl::string_view::npos) << s;
  b->set_public_key(std::string(32, 'b'));
  b->add_participant_ids(3);
  s = DirectoryFromProto(keys).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("participant 3 is listed twice"), absl::string_view::npos) << s;
}

// A ShareKeysRequest goes out with the keys of the members it lists and no other (grouped by key,
// ids in the request's order); every other message, and a request without a directory, with none.
TEST(SecAggParamsTest, AShareKeysEnvelopeCarriesTheKeysOfTheListedMembersOnly) {
  google::protobuf::RepeatedPtrField<v1::SigningKeys> keys;
  for (char k : {'a', 'b', 'c'}) {
    v1::SigningKeys* entry = keys.Add();
    entry->set_public_key(std::string(32, k));
    entry->add_participant_ids(k - 'a' + 1);  // a: 1, b: 2, c: 3
    entry->add_participant_ids(k - 'a' + 4);  // a: 4, b: 5, c: 6
  }
  auto directory = DirectoryFromProto(keys).value();
  v1::secagg::ServerToClient request;
  for (uint32_t id : {2, 4, 5, 9}) request.mutable_share_keys()->add_clients()->set_client_id(id);
  const v1::ServerMessage out =
      ToParticipant({.round = 3, .phase = 1}, 4, request, directory.get());
  ASSERT_EQ(out.secagg().signing_keys_size(), 2);  // 9 has no key; 1, 3 and 6 are not listed
  EXPECT_EQ(out.secagg().signing_keys(0).public_key(), std::string(32, 'b'));
  EXPECT_EQ(std::vector<uint32_t>(out.secagg().signing_keys(0).participant_ids().begin(),
                                  out.secagg().signing_keys(0).participant_ids().end()),
            (std::vector<uint32_t>{2, 5}));
  EXPECT_EQ(out.secagg().signing_keys(1).public_key(), std::string(32, 'a'));
  EXPECT_EQ(std::vector<uint32_t>(out.secagg().signing_keys(1).participant_ids().begin(),
                                  out.secagg().signing_keys(1).participant_ids().end()),
            (std::vector<uint32_t>{4}));
  EXPECT_EQ(out.secagg().participant_id(), 4u);
  EXPECT_EQ(ToParticipant({}, 4, request).secagg().signing_keys_size(), 0);
  v1::secagg::ServerToClient masked_input;
  masked_input.mutable_masked_input()->add_shares();
  EXPECT_EQ(ToParticipant({}, 4, masked_input, directory.get()).secagg().signing_keys_size(), 0);
}

}  // namespace
}  // namespace fedmf::wire
