// ClientSession: every inconsistent or out-of-stage server message is an abort with a reason (one
// test per case), caller errors are statuses, and no message makes a client reveal both shares
// of one client.
#include "crypto/secagg/client_session.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "crypto/x25519.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/secagg_driver.h"

namespace fedmf::secagg {
namespace {

using fedmf::v1::secagg::ServerToClient;
using test_util::SessionHarness;
using ::testing::HasSubstr;

// n = 5, t = 3: every client's neighborhood is everyone.
SessionConfig ClientStageConfig(bool signatures = false, bool consistency_check = false) {
  SessionConfig c;
  c.context = "client-session-test";
  c.num_clients = 5;
  c.threshold = 3;
  c.bits = 16;
  c.length = 5;
  c.signatures = signatures || consistency_check;
  c.consistency_check = consistency_check;
  return c;
}

void ExpectAbort(ClientSession& client, const ServerToClient& message, absl::string_view reason) {
  absl::StatusOr<std::optional<fedmf::v1::secagg::ClientToServer>> reply = client.Handle(message);
  ASSERT_TRUE(reply.ok()) << reply.status();
  ASSERT_TRUE(reply->has_value());
  ASSERT_TRUE((*reply)->has_abort()) << (*reply)->DebugString();
  EXPECT_THAT((*reply)->abort().reason(), HasSubstr(reason));
  EXPECT_EQ(client.stage(), ClientStage::kAborted);
  EXPECT_THAT(client.abort_reason(), HasSubstr(reason));
}

// Holds the genuine message of `stage` for every client; tests corrupt one and deliver it.
class ClientStageTest : public ::testing::Test {
 protected:
  void Begin(ServerStage stage, SessionConfig config = ClientStageConfig()) {
    harness_ = std::make_unique<SessionHarness>(config);
    ASSERT_TRUE(harness_->status().ok()) << harness_->status();
    messages_ = harness_->AdvanceTo(stage);
    ASSERT_TRUE(harness_->status().ok()) << harness_->status();
    ASSERT_EQ(harness_->server().stage(), stage);
  }
  ClientSession& client(uint32_t id) { return harness_->client(id); }
  ServerToClient& message(uint32_t id) { return messages_.at(id); }

  std::unique_ptr<SessionHarness> harness_;
  std::map<uint32_t, ServerToClient> messages_;
};

// --- Control: the genuine messages are accepted at every stage. ---

TEST_F(ClientStageTest, GenuineMessagesAreAcceptedThroughCompletion) {
  Begin(ServerStage::kUnmasking, ClientStageConfig(true, true));
  harness_->Deliver(messages_);
  for (uint32_t id = 1; id <= 5; ++id) EXPECT_EQ(client(id).stage(), ClientStage::kCompleted);
}

// --- ShareKeysRequest ---

TEST_F(ClientStageTest, ShareKeysWrongKeyCountAborts) {
  Begin(ServerStage::kShareKeys);
  message(1).mutable_share_keys()->mutable_clients()->RemoveLast();
  ExpectAbort(client(1), message(1), "wrong key count: 4 clients listed, need 5");
}

TEST_F(ClientStageTest, ShareKeysOwnKeyMissingAborts) {
  Begin(ServerStage::kShareKeys);
  message(5).mutable_share_keys()->mutable_clients(4)->set_client_id(99);
  ExpectAbort(client(5), message(5), "own key missing");
}

TEST_F(ClientStageTest, ShareKeysOwnKeysAlteredAborts) {
  Begin(ServerStage::kShareKeys);
  auto* clients = message(1).mutable_share_keys()->mutable_clients();
  // Client 1's c key replaced by a fresh valid key.
  const crypto::X25519PrivateKey other = crypto::X25519PrivateKey::Generate().value();
  clients->Mutable(0)->mutable_keys()->set_c_public_key(other.public_key().bytes().data(), 32);
  ExpectAbort(client(1), message(1), "own keys altered");
}

TEST_F(ClientStageTest, ShareKeysDuplicateIdAborts) {
  Begin(ServerStage::kShareKeys);
  message(1).mutable_share_keys()->mutable_clients(2)->set_client_id(2);
  ExpectAbort(client(1), message(1), "client 2 listed twice");
}

TEST_F(ClientStageTest, ShareKeysIdsNotAscendingAborts) {
  Begin(ServerStage::kShareKeys);
  message(1).mutable_share_keys()->mutable_clients()->SwapElements(2, 3);
  ExpectAbort(client(1), message(1), "not ascending");
}

TEST_F(ClientStageTest, ShareKeysDuplicatePublicKeyAborts) {
  Begin(ServerStage::kShareKeys);
  auto* clients = message(1).mutable_share_keys()->mutable_clients();
  clients->Mutable(3)->mutable_keys()->set_s_public_key(clients->Get(2).keys().s_public_key());
  ExpectAbort(client(1), message(1), "client 4 reuses a public key");
}

TEST_F(ClientStageTest, ShareKeysShortPublicKeyAborts) {
  Begin(ServerStage::kShareKeys);
  message(1).mutable_share_keys()->mutable_clients(1)->mutable_keys()->set_c_public_key("short");
  ExpectAbort(client(1), message(1), "client 2: public keys of 5 and 32 bytes");
}

TEST_F(ClientStageTest, ShareKeysLowOrderPublicKeyAborts) {
  // A Harary graph (the client cannot recompute the session id, so the key reaches the key
  // agreement). u = 0 is a point of small order (RFC 7748 section 6.1).
  SessionConfig config = ClientStageConfig();
  config.graph = GraphKind::kHarary;
  config.degree = 2;
  Begin(ServerStage::kShareKeys, config);
  auto* clients = message(1).mutable_share_keys()->mutable_clients();
  ASSERT_EQ(clients->size(), 3);
  auto* victim = clients->Mutable(clients->Get(0).client_id() == 1 ? 1 : 0);
  victim->mutable_keys()->set_c_public_key(std::string(32, '\0'));
  ExpectAbort(client(1), message(1), "key agreement of clients 1 and");
}

TEST_F(ClientStageTest, ShareKeysSessionIdWrongSizeAborts) {
  Begin(ServerStage::kShareKeys);
  message(1).mutable_share_keys()->set_session_id("abc");
  ExpectAbort(client(1), message(1), "session id is 3 bytes");
}

TEST_F(ClientStageTest, ShareKeysSessionIdMismatchAborts) {
  Begin(ServerStage::kShareKeys);
  std::string sid = message(1).share_keys().session_id();
  sid[0] ^= 1;
  message(1).mutable_share_keys()->set_session_id(sid);
  ExpectAbort(client(1), message(1), "session id does not match the advertised keys");
}

TEST_F(ClientStageTest, ShareKeysNumAdvertisedAboveCohortAborts) {
  Begin(ServerStage::kShareKeys);
  message(1).mutable_share_keys()->set_num_advertised(6);
  ExpectAbort(client(1), message(1), "num_advertised=6 outside [threshold=3, num_clients=5]");
}

TEST_F(ClientStageTest, ShareKeysFewerThanThresholdAborts) {
  Begin(ServerStage::kShareKeys);
  auto* r = message(1).mutable_share_keys();
  r->set_num_advertised(2);
  ExpectAbort(client(1), message(1), "num_advertised=2 outside [threshold=3");
}

TEST_F(ClientStageTest, ShareKeysBadAdvertisementSignatureAborts) {
  Begin(ServerStage::kShareKeys, ClientStageConfig(/*signatures=*/true));
  auto* keys = message(1).mutable_share_keys()->mutable_clients(2)->mutable_keys();
  std::string signature = keys->signature();
  signature[10] ^= 4;
  keys->set_signature(signature);
  ExpectAbort(client(1), message(1), "advertisement of client 3: bad signature");
}

TEST_F(ClientStageTest, ShareKeysSubstitutedKeyFailsSignatureAborts) {
  // A server that swaps in its own key for client 3 cannot sign for it.
  Begin(ServerStage::kShareKeys, ClientStageConfig(/*signatures=*/true));
  const crypto::X25519PrivateKey mitm = crypto::X25519PrivateKey::Generate().value();
  message(1).mutable_share_keys()->mutable_clients(2)->mutable_keys()->set_s_public_key(
      mitm.public_key().bytes().data(), 32);
  ExpectAbort(client(1), message(1), "advertisement of client 3: bad signature");
}

// --- MaskedInputRequest ---

TEST_F(ClientStageTest, MaskedInputTooFewSharesAborts) {
  Begin(ServerStage::kMaskedInput);
  auto* shares = message(1).mutable_masked_input()->mutable_shares();
  while (shares->size() > 1) shares->RemoveLast();
  ExpectAbort(client(1), message(1), "too few clients left: shares from 1 neighbors");
}

TEST_F(ClientStageTest, MaskedInputSenderNotNeighborAborts) {
  Begin(ServerStage::kMaskedInput);
  message(1).mutable_masked_input()->mutable_shares(3)->set_peer_id(77);
  ExpectAbort(client(1), message(1), "shares from client 77, which is not a neighbor");
}

TEST_F(ClientStageTest, MaskedInputSharesFromItselfAborts) {
  Begin(ServerStage::kMaskedInput);
  message(3).mutable_masked_input()->mutable_shares(1)->set_peer_id(3);
  ExpectAbort(client(3), message(3), "shares from itself");
}

TEST_F(ClientStageTest, MaskedInputDuplicateSenderAborts) {
  Begin(ServerStage::kMaskedInput);
  message(1).mutable_masked_input()->mutable_shares(1)->set_peer_id(2);
  ExpectAbort(client(1), message(1), "shares of client 2 listed twice");
}

TEST_F(ClientStageTest, MaskedInputSendersNotAscendingAborts) {
  Begin(ServerStage::kMaskedInput);
  message(1).mutable_masked_input()->mutable_shares()->SwapElements(0, 1);
  ExpectAbort(client(1), message(1), "share senders not ascending");
}

// A ciphertext that does not decrypt is its sender's doing (or the server's), never a reason to
// abort: the client reports the sender with its masked input and holds none of its shares.
TEST_F(ClientStageTest, MaskedInputTamperedCiphertextIsReported) {
  Begin(ServerStage::kMaskedInput);
  auto* entry = message(1).mutable_masked_input()->mutable_shares(0);
  std::string ct = entry->ciphertext();
  ct[20] ^= 1;
  entry->set_ciphertext(ct);
  absl::StatusOr<std::optional<fedmf::v1::secagg::ClientToServer>> reply =
      client(1).Handle(message(1));
  ASSERT_TRUE(reply.ok() && reply->has_value()) << reply.status();
  ASSERT_TRUE((*reply)->has_masked_input());
  EXPECT_THAT((*reply)->masked_input().unusable_shares_from(), ::testing::ElementsAre(2u));
  EXPECT_EQ(client(1).stage(), ClientStage::kAwaitingUnmasking);
}

TEST_F(ClientStageTest, MaskedInputCiphertextForAnotherReceiverIsReported) {
  Begin(ServerStage::kMaskedInput);
  // Client 2's ciphertext for client 3, delivered to client 1 as if it were for 1.
  const std::string for_3 = message(3).masked_input().shares(1).ciphertext();
  ASSERT_EQ(message(3).masked_input().shares(1).peer_id(), 2u);
  message(1).mutable_masked_input()->mutable_shares(0)->set_ciphertext(for_3);
  absl::StatusOr<std::optional<fedmf::v1::secagg::ClientToServer>> reply =
      client(1).Handle(message(1));
  ASSERT_TRUE(reply.ok() && reply->has_value()) << reply.status();
  EXPECT_THAT((*reply)->masked_input().unusable_shares_from(), ::testing::ElementsAre(2u));
}

// ... and at unmasking it reveals no share of that sender (it has none), and the round completes.
TEST_F(ClientStageTest, UnusableSharesAreNotRevealed) {
  Begin(ServerStage::kMaskedInput);
  auto* entry = message(1).mutable_masked_input()->mutable_shares(0);
  entry->set_ciphertext(std::string(entry->ciphertext().size(), 'x'));
  harness_->Deliver(messages_);
  std::map<uint32_t, ServerToClient> unmasking = harness_->AdvanceTo(ServerStage::kUnmasking);
  ASSERT_TRUE(harness_->status().ok()) << harness_->status();
  harness_->Deliver(unmasking);
  for (const auto& r : harness_->last_reply(1).unmasking().self_mask_shares()) {
    EXPECT_NE(r.owner_id(), 2u);
  }
  EXPECT_EQ(harness_->last_reply(1).unmasking().self_mask_shares_size(), 4);
  harness_->AdvanceTo(ServerStage::kCompleted);
  ASSERT_EQ(harness_->server().stage(), ServerStage::kCompleted) << harness_->server().status();
}

TEST(ClientSessionTest, MaskedInputRequestBeforeSetInputIsRetryable) {
  SessionHarness h(ClientStageConfig(), /*without_input=*/{1});
  ASSERT_TRUE(h.status().ok());
  std::map<uint32_t, ServerToClient> messages = h.AdvanceTo(ServerStage::kMaskedInput);
  ASSERT_TRUE(h.status().ok());
  ClientSession& c = h.client(1);
  EXPECT_EQ(c.Handle(messages.at(1)).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(c.stage(), ClientStage::kAwaitingMaskedInputRequest);
  ASSERT_TRUE(c.SetInput({1, 2, 3, 4, 5}).ok());
  absl::StatusOr<std::optional<fedmf::v1::secagg::ClientToServer>> reply = c.Handle(messages.at(1));
  ASSERT_TRUE(reply.ok() && reply->has_value());
  EXPECT_TRUE((*reply)->has_masked_input());
  EXPECT_EQ(c.SetInput({1, 2, 3, 4, 5}).code(), absl::StatusCode::kFailedPrecondition);
}

// --- ConsistencyCheckRequest ---

TEST_F(ClientStageTest, ConsistencyCheckOwnIdMissingAborts) {
  Begin(ServerStage::kConsistencyCheck, ClientStageConfig(true, true));
  auto* ids = message(1).mutable_consistency_check()->mutable_survivor_ids();
  ids->erase(ids->begin());
  ExpectAbort(client(1), message(1), "own id missing from the survivor list");
}

TEST_F(ClientStageTest, ConsistencyCheckDuplicateSurvivorAborts) {
  Begin(ServerStage::kConsistencyCheck, ClientStageConfig(true, true));
  message(1).mutable_consistency_check()->set_survivor_ids(2, 2);
  ExpectAbort(client(1), message(1), "survivor 2 listed twice");
}

TEST_F(ClientStageTest, ConsistencyCheckUnknownSurvivorAborts) {
  Begin(ServerStage::kConsistencyCheck, ClientStageConfig(true, true));
  message(1).mutable_consistency_check()->add_survivor_ids(40);
  ExpectAbort(client(1), message(1), "survivor 40 is not a neighbor that shared keys");
}

TEST_F(ClientStageTest, ConsistencyCheckTooFewSurvivorsAborts) {
  Begin(ServerStage::kConsistencyCheck, ClientStageConfig(true, true));
  auto* ids = message(1).mutable_consistency_check()->mutable_survivor_ids();
  ids->Truncate(2);
  ExpectAbort(client(1), message(1), "too few survivors: 2, threshold 3");
}

// --- UnmaskingRequest ---

TEST_F(ClientStageTest, UnmaskingOwnIdListedAsDroppedAborts) {
  Begin(ServerStage::kUnmasking);
  message(2).mutable_unmasking()->add_dropped_ids(2);
  ExpectAbort(client(2), message(2), "own id listed as dropped");
}

TEST_F(ClientStageTest, UnmaskingDroppedListedTwiceAborts) {
  Begin(ServerStage::kUnmasking);
  message(1).mutable_unmasking()->add_dropped_ids(4);
  message(1).mutable_unmasking()->add_dropped_ids(4);
  ExpectAbort(client(1), message(1), "dropped client 4 listed twice");
}

TEST_F(ClientStageTest, UnmaskingDroppedNotANeighborAborts) {
  Begin(ServerStage::kUnmasking);
  message(1).mutable_unmasking()->add_dropped_ids(12);
  ExpectAbort(client(1), message(1), "dropped client 12 is not a neighbor that shared keys");
}

TEST_F(ClientStageTest, UnmaskingSignedSurvivorListedAsDroppedAborts) {
  Begin(ServerStage::kUnmasking, ClientStageConfig(true, true));
  message(1).mutable_unmasking()->add_dropped_ids(3);
  ExpectAbort(client(1), message(1), "survivor 3 listed as dropped");
}

TEST_F(ClientStageTest, UnmaskingTooFewSurvivorsAborts) {
  Begin(ServerStage::kUnmasking);
  for (uint32_t id : {2, 3, 4}) message(1).mutable_unmasking()->add_dropped_ids(id);
  ExpectAbort(client(1), message(1), "too few survivors: 2, threshold 3");
}

TEST_F(ClientStageTest, UnmaskingBadSurvivorSignatureAborts) {
  Begin(ServerStage::kUnmasking, ClientStageConfig(true, true));
  auto* entry = message(1).mutable_unmasking()->mutable_signatures(2);
  std::string sig = entry->signature();
  sig[0] ^= 1;
  entry->set_signature(sig);
  ExpectAbort(client(1), message(1), "survivor list signature of client 3 does not verify");
}

TEST_F(ClientStageTest, UnmaskingTooFewSignaturesAborts) {
  Begin(ServerStage::kUnmasking, ClientStageConfig(true, true));
  message(1).mutable_unmasking()->mutable_signatures()->DeleteSubrange(0, 3);
  ExpectAbort(client(1), message(1), "survivor list signed by 2 clients, threshold 3");
}

TEST_F(ClientStageTest, UnmaskingSignatureFromNonSurvivorAborts) {
  Begin(ServerStage::kUnmasking, ClientStageConfig(true, true));
  message(1).mutable_unmasking()->mutable_signatures(4)->set_client_id(9);
  ExpectAbort(client(1), message(1), "signature from 9, not a survivor");
}

TEST_F(ClientStageTest, UnmaskingDuplicateSignerAborts) {
  Begin(ServerStage::kUnmasking, ClientStageConfig(true, true));
  message(1).mutable_unmasking()->mutable_signatures(1)->set_client_id(1);
  ExpectAbort(client(1), message(1), "signers not strictly ascending");
}

TEST_F(ClientStageTest, UnmaskingSignaturesWithoutConsistencyCheckAbort) {
  Begin(ServerStage::kUnmasking);
  message(1).mutable_unmasking()->add_signatures()->set_client_id(2);
  ExpectAbort(client(1), message(1), "survivor signatures sent without a consistency check");
}

// A malicious server that got client 1's self-mask shares asks again, now claiming that the
// others dropped: the client has nothing more to say and reveals no key share.
TEST_F(ClientStageTest, SecondUnmaskingRequestRevealsNothing) {
  Begin(ServerStage::kUnmasking);
  absl::StatusOr<std::optional<fedmf::v1::secagg::ClientToServer>> first =
      client(1).Handle(message(1));
  ASSERT_TRUE(first.ok() && first->has_value() && (*first)->has_unmasking());
  EXPECT_EQ((*first)->unmasking().self_mask_shares_size(), 5);
  EXPECT_EQ((*first)->unmasking().key_shares_size(), 0);
  ServerToClient again = message(1);
  for (uint32_t id : {2, 3}) again.mutable_unmasking()->add_dropped_ids(id);
  ExpectAbort(client(1), again, "after the session completed");
}

// --- Any stage ---

TEST_F(ClientStageTest, MessageOfAnotherStageAborts) {
  Begin(ServerStage::kShareKeys);
  ServerToClient unmasking;
  unmasking.mutable_unmasking();
  ExpectAbort(client(1), unmasking, "unexpected message (case 4) in stage AwaitingShareKeys");
}

TEST_F(ClientStageTest, EmptyMessageAborts) {
  Begin(ServerStage::kShareKeys);
  ExpectAbort(client(1), ServerToClient(), "unexpected message (case 0)");
}

TEST_F(ClientStageTest, ServerAbortEndsSessionWithoutReply) {
  Begin(ServerStage::kMaskedInput);
  ServerToClient abort;
  abort.mutable_abort()->set_reason("deadline");
  absl::StatusOr<std::optional<fedmf::v1::secagg::ClientToServer>> reply = client(1).Handle(abort);
  ASSERT_TRUE(reply.ok());
  EXPECT_FALSE(reply->has_value());
  EXPECT_EQ(client(1).stage(), ClientStage::kAborted);
  EXPECT_EQ(client(1).abort_reason(), "server aborted: deadline");
  // Later messages are ignored.
  reply = client(1).Handle(message(1));
  ASSERT_TRUE(reply.ok());
  EXPECT_FALSE(reply->has_value());
}

TEST(ClientSessionTest, HandleBeforeStartIsCallerError) {
  std::unique_ptr<ClientSession> c =
      ClientSession::Create(ClientStageConfig(), ClientIdentity{1, std::nullopt}, nullptr).value();
  EXPECT_EQ(c->Handle(ServerToClient()).status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(c->Start().ok());
  EXPECT_EQ(c->Start().status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(ClientSessionTest, SetInputValidatesLengthAndRange) {
  std::unique_ptr<ClientSession> c =
      ClientSession::Create(ClientStageConfig(), ClientIdentity{1, std::nullopt}, nullptr).value();
  EXPECT_EQ(c->SetInput(std::vector<uint64_t>(4, 0)).code(), absl::StatusCode::kInvalidArgument);
  const absl::Status too_big = c->SetInput({0, 0, 65536, 0, 0});
  EXPECT_EQ(too_big.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_big.message(), HasSubstr("value 2 = 65536 does not fit in 16 bits"));
  EXPECT_TRUE(c->SetInput({0, 1, 65535, 3, 4}).ok());
}

TEST(ClientSessionTest, CreateNeedsSigningKeyWhenSignaturesAreOn) {
  EXPECT_EQ(ClientSession::Create(ClientStageConfig(true), ClientIdentity{1, std::nullopt},
                                  std::make_shared<MapSigningKeyDirectory>())
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::secagg
