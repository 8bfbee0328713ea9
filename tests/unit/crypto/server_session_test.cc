// ServerSession: every malformed, duplicate or out-of-stage client message is rejected with a
// reason and drops that client (one test per case); caller errors are statuses; too few clients
// abort the session for everyone.
#include "crypto/secagg/server_session.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/secagg_driver.h"

namespace fedmf::secagg {
namespace {

using fedmf::v1::secagg::ClientToServer;
using test_util::SessionHarness;
using ::testing::HasSubstr;

SessionConfig ServerStageConfig(bool signatures = false, bool consistency_check = false) {
  SessionConfig c;
  c.context = "server-session-test";
  c.num_clients = 5;
  c.threshold = 3;
  c.bits = 12;
  c.length = 6;  // 72 bits: 9 bytes, no padding
  c.signatures = signatures || consistency_check;
  c.consistency_check = consistency_check;
  return c;
}

// A rejected message is answered by exactly one Abort, to its sender, naming the reason.
void ExpectAbortFor(const absl::StatusOr<std::vector<ServerMessage>>& answer, uint32_t id,
                    const std::string& reason) {
  ASSERT_TRUE(answer.ok()) << answer.status();
  ASSERT_EQ(answer->size(), 1u);
  EXPECT_EQ((*answer)[0].client_id, id);
  EXPECT_THAT((*answer)[0].message.abort().reason(), HasSubstr(reason));
}

class ServerStageTest : public ::testing::Test {
 protected:
  // Runs until the server is collecting the messages of `stage`, with every client but
  // `held_back` having answered; returns the reply `held_back` would send.
  ClientToServer Begin(ServerStage stage, uint32_t held_back,
                       SessionConfig config = ServerStageConfig()) {
    harness_ = std::make_unique<SessionHarness>(config);
    EXPECT_TRUE(harness_->status().ok()) << harness_->status();
    if (stage == ServerStage::kAdvertiseKeys) {
      // The harness already delivered every advertisement: replay client `held_back`'s.
      return harness_->last_reply(held_back);
    }
    auto messages = harness_->AdvanceTo(stage);
    EXPECT_TRUE(harness_->status().ok()) << harness_->status();
    auto held = messages.extract(held_back);
    harness_->Deliver(messages);
    absl::StatusOr<std::optional<ClientToServer>> reply =
        harness_->client(held_back).Handle(held.mapped());
    EXPECT_TRUE(reply.ok() && reply->has_value());
    return **reply;
  }
  ServerSession& server() { return harness_->server(); }
  void ExpectRejected(uint32_t id, const ClientToServer& m, const std::string& reason) {
    ExpectAbortFor(server().HandleMessage(id, m), id, reason);
    EXPECT_THAT(server().DropReason(id), HasSubstr(reason));
    // The client is out: even its genuine message is now refused.
    EXPECT_EQ(server().HandleMessage(id, m).status().code(), absl::StatusCode::kFailedPrecondition);
  }

  std::unique_ptr<SessionHarness> harness_;
};

TEST_F(ServerStageTest, UnknownClientIsNotFound) {
  const ClientToServer m = Begin(ServerStage::kAdvertiseKeys, 1);
  EXPECT_EQ(server().HandleMessage(42, m).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(server().MarkDropped(42).code(), absl::StatusCode::kNotFound);
}

TEST_F(ServerStageTest, RepeatedAdvertisementDropsClient) {
  ExpectRejected(1, Begin(ServerStage::kAdvertiseKeys, 1), "late or repeated");
}

TEST_F(ServerStageTest, MessageOfAnotherStageDropsClient) {
  ClientToServer m;
  m.mutable_masked_input()->set_packed(std::string(9, '\0'));
  harness_ = std::make_unique<SessionHarness>(ServerStageConfig());
  harness_->AdvanceTo(ServerStage::kShareKeys);
  ExpectRejected(2, m, "unexpected message (case 3) in stage ShareKeys");
}

TEST_F(ServerStageTest, ClientAbortDropsClientWithItsReason) {
  Begin(ServerStage::kShareKeys, 3);
  ClientToServer m;
  m.mutable_abort()->set_reason("bad server");
  EXPECT_TRUE(server().HandleMessage(3, m).ok());
  EXPECT_EQ(server().DropReason(3), "client aborted: bad server");
}

class FreshServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::make_shared<MapSigningKeyDirectory>();
    server_ = ServerSession::Create(ServerStageConfig(), {1, 2, 3, 4, 5}, directory_).value();
  }
  ClientToServer Advertise(std::string c, std::string s, std::string signature = "") {
    ClientToServer m;
    m.mutable_advertise_keys()->set_c_public_key(std::move(c));
    m.mutable_advertise_keys()->set_s_public_key(std::move(s));
    m.mutable_advertise_keys()->set_signature(std::move(signature));
    m.mutable_advertise_keys()->set_self_mask_commitment(std::string(32, 'm'));
    return m;
  }
  void ExpectRejected(uint32_t id, const ClientToServer& m, const std::string& reason) {
    ExpectAbortFor(server_->HandleMessage(id, m), id, reason);
  }
  std::shared_ptr<MapSigningKeyDirectory> directory_;
  std::unique_ptr<ServerSession> server_;
};

TEST_F(FreshServerTest, ShortKeyRejected) {
  ExpectRejected(1, Advertise("abc", std::string(32, 'b')), "public keys of 3 and 32 bytes");
}

TEST_F(FreshServerTest, MissingSelfMaskCommitmentRejected) {
  ClientToServer m = Advertise(std::string(32, 'a'), std::string(32, 'b'));
  m.mutable_advertise_keys()->clear_self_mask_commitment();
  ExpectRejected(1, m, "self-mask commitment of 0 bytes, need 32");
}

TEST_F(FreshServerTest, EqualKeysRejected) {
  ExpectRejected(1, Advertise(std::string(32, 'a'), std::string(32, 'a')), "keys are equal");
}

TEST_F(FreshServerTest, KeyOfAnotherClientRejected) {
  ASSERT_TRUE(
      server_->HandleMessage(1, Advertise(std::string(32, 'a'), std::string(32, 'b'))).ok());
  ExpectRejected(2, Advertise(std::string(32, 'c'), std::string(32, 'a')),
                 "already advertised by another client");
}

TEST_F(FreshServerTest, SignatureWhenSignaturesAreOffRejected) {
  ExpectRejected(1, Advertise(std::string(32, 'a'), std::string(32, 'b'), std::string(64, 's')),
                 "a signature although signatures are off");
}

TEST(ServerSessionTest, MissingOrWrongAdvertisementSignatureRejected) {
  auto directory = std::make_shared<MapSigningKeyDirectory>();
  const crypto::Ed25519PrivateKey key = crypto::Ed25519PrivateKey::Generate().value();
  directory->Add(1, key.public_key());
  std::unique_ptr<ServerSession> server =
      ServerSession::Create(ServerStageConfig(true), {1, 2, 3, 4, 5}, directory).value();
  ClientToServer m;
  m.mutable_advertise_keys()->set_c_public_key(std::string(32, 'a'));
  m.mutable_advertise_keys()->set_s_public_key(std::string(32, 'b'));
  m.mutable_advertise_keys()->set_self_mask_commitment(std::string(32, 'm'));
  ExpectAbortFor(server->HandleMessage(1, m), 1, "advertisement signature does not verify");
  ExpectAbortFor(server->HandleMessage(2, m), 2, "not in the signing key directory");
}

TEST_F(ServerStageTest, ShareKeysWrongCountRejected) {
  ClientToServer m = Begin(ServerStage::kShareKeys, 2);
  m.mutable_share_keys()->mutable_shares()->RemoveLast();
  ExpectRejected(2, m, "wrong share count: 3 ciphertexts, need one for each of 4 neighbors");
}

TEST_F(ServerStageTest, ShareKeysWrongReceiverOrderRejected) {
  ClientToServer m = Begin(ServerStage::kShareKeys, 2);
  m.mutable_share_keys()->mutable_shares()->SwapElements(0, 1);
  ExpectRejected(2, m, "ciphertext 0 is addressed to 3, expected neighbor 1");
}

TEST_F(ServerStageTest, ShareKeysWrongCiphertextSizeRejected) {
  ClientToServer m = Begin(ServerStage::kShareKeys, 2);
  m.mutable_share_keys()->mutable_shares(1)->set_ciphertext("short");
  ExpectRejected(2, m, "ciphertext for 3 is 5 bytes, need 180");
}

TEST_F(ServerStageTest, ShareKeysWrongCommitmentSizeRejected) {
  ClientToServer m = Begin(ServerStage::kShareKeys, 2);
  m.mutable_share_keys()->mutable_shares(1)->clear_self_mask_share_commitment();
  ExpectRejected(2, m, "share commitments for 3 are 32 and 0 bytes, need 32");
}

TEST_F(ServerStageTest, MaskedInputWrongSizeRejected) {
  ClientToServer m = Begin(ServerStage::kMaskedInput, 4);
  m.mutable_masked_input()->set_packed(std::string(10, '\0'));
  ExpectRejected(4, m, "packed vector is 10 bytes, need ceil(6 * 12 / 8) = 9");
}

TEST_F(ServerStageTest, MaskedInputNonzeroPaddingRejected) {
  SessionConfig config = ServerStageConfig();
  config.length = 5;  // 60 bits: 8 bytes, 4 padding bits
  ClientToServer m = Begin(ServerStage::kMaskedInput, 4, config);
  std::string packed = m.masked_input().packed();
  packed[7] |= static_cast<char>(0x80);
  m.mutable_masked_input()->set_packed(packed);
  ExpectRejected(4, m, "padding bits of the last byte are not zero");
}

TEST_F(ServerStageTest, ConsistencyCheckBadSignatureRejected) {
  ClientToServer m = Begin(ServerStage::kConsistencyCheck, 5, ServerStageConfig(true, true));
  std::string sig = m.consistency_check().signature();
  sig[3] ^= 1;
  m.mutable_consistency_check()->set_signature(sig);
  ExpectRejected(5, m, "survivor list signature does not verify");
}

TEST_F(ServerStageTest, UnmaskingWrongShareCountRejected) {
  ClientToServer m = Begin(ServerStage::kUnmasking, 1);
  m.mutable_unmasking()->mutable_self_mask_shares()->RemoveLast();
  ExpectRejected(1, m, "4 self-mask shares, need 5");
}

TEST_F(ServerStageTest, UnmaskingKeyShareOfSurvivorRejected) {
  ClientToServer m = Begin(ServerStage::kUnmasking, 1);
  *m.mutable_unmasking()->add_key_shares() = m.unmasking().self_mask_shares(2);
  ExpectRejected(1, m, "1 key shares, need 0");
}

TEST_F(ServerStageTest, UnmaskingWrongOwnerRejected) {
  ClientToServer m = Begin(ServerStage::kUnmasking, 1);
  m.mutable_unmasking()->mutable_self_mask_shares(2)->set_owner_id(9);
  ExpectRejected(1, m, "self-mask share 2 is of client 9, expected 3");
}

TEST_F(ServerStageTest, UnmaskingShortShareRejected) {
  ClientToServer m = Begin(ServerStage::kUnmasking, 1);
  m.mutable_unmasking()->mutable_self_mask_shares(0)->set_share("tiny");
  ExpectRejected(1, m, "share of client 1 is 4 bytes, need 40");
}

TEST_F(ServerStageTest, UnmaskingShareOutsideFieldRejected) {
  ClientToServer m = Begin(ServerStage::kUnmasking, 1);
  std::string share = m.unmasking().self_mask_shares(0).share();
  for (int b = 8; b < 16; ++b) share[b] = static_cast<char>(0xff);  // element 1 = 2^64 - 1
  m.mutable_unmasking()->mutable_self_mask_shares(0)->set_share(share);
  ExpectRejected(1, m, "element 1 is not below 2^61 - 1");
}

TEST_F(ServerStageTest, UnmaskingShareWithoutSaltRejected) {
  ClientToServer m = Begin(ServerStage::kUnmasking, 1);
  m.mutable_unmasking()->mutable_self_mask_shares(2)->clear_salt();
  ExpectRejected(1, m, "self-mask share of client 3 with a salt of 0 bytes, need 32");
}

TEST_F(ServerStageTest, UnmaskingOwnShareWithSaltRejected) {
  ClientToServer m = Begin(ServerStage::kUnmasking, 1);
  m.mutable_unmasking()->mutable_self_mask_shares(0)->set_salt(std::string(32, 's'));
  ExpectRejected(1, m, "self-mask share of client 1 with a salt of 32 bytes, need 0");
}

TEST_F(ServerStageTest, ForgedKeySharesAbortInsteadOfWrongSum) {
  // Client 5 drops before its masked input; the others reveal key shares of it, all shifted in
  // the last chunk: none matches 5's commitments, so each revealer is convicted and no key is
  // rebuilt from them.
  harness_ = std::make_unique<SessionHarness>(ServerStageConfig());
  auto messages = harness_->AdvanceTo(ServerStage::kMaskedInput);
  messages.erase(5);
  harness_->Deliver(messages);
  ASSERT_TRUE(server().MarkDropped(5).ok());
  messages = harness_->AdvanceTo(ServerStage::kUnmasking);
  for (auto& [id, m] : messages) {
    absl::StatusOr<std::optional<ClientToServer>> reply = harness_->client(id).Handle(m);
    ASSERT_TRUE(reply.ok() && reply->has_value());
    ClientToServer r = **reply;
    ASSERT_EQ(r.unmasking().key_shares_size(), 1);
    std::string share = r.unmasking().key_shares(0).share();
    share[32] = static_cast<char>(share[32] ^ 1);  // element 4 (the secret's last 4 bytes)
    r.mutable_unmasking()->mutable_key_shares(0)->set_share(share);
    ASSERT_TRUE(server().HandleMessage(id, r).ok());
  }
  ASSERT_TRUE(server().CloseStage().ok());
  EXPECT_EQ(server().stage(), ServerStage::kAborted);
  EXPECT_EQ(server().status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(server().status().message(), HasSubstr("too few shares to unmask client 5"));
  EXPECT_FALSE(server().result().ok());
  std::vector<uint32_t> culprits;
  for (const ServerSession::Misbehaviour& m : server().misbehaviour()) {
    EXPECT_TRUE(m.culprit);
    EXPECT_THAT(m.evidence, HasSubstr("client 5's masking key is not the one client 5 committed"));
    culprits.push_back(m.client_id);
  }
  EXPECT_THAT(culprits, ::testing::ElementsAre(1, 2, 3, 4));
}

TEST_F(ServerStageTest, ReadyToCloseWhenEveryoneAnsweredOrDropped) {
  harness_ = std::make_unique<SessionHarness>(ServerStageConfig());
  auto messages = harness_->AdvanceTo(ServerStage::kShareKeys);
  auto held = messages.extract(2);
  harness_->Deliver(messages);
  EXPECT_FALSE(server().ReadyToClose());
  ASSERT_TRUE(server().MarkDropped(2).ok());
  EXPECT_TRUE(server().ReadyToClose());
}

TEST_F(ServerStageTest, TooFewClientsAbortsForEveryRemainingClient) {
  harness_ = std::make_unique<SessionHarness>(ServerStageConfig());
  auto messages = harness_->AdvanceTo(ServerStage::kShareKeys);
  for (uint32_t id : {1, 2, 3}) {
    messages.erase(id);
    ASSERT_TRUE(server().MarkDropped(id).ok());
  }
  harness_->Deliver(messages);
  absl::StatusOr<std::vector<ServerMessage>> aborts = server().CloseStage();
  ASSERT_TRUE(aborts.ok());
  ASSERT_EQ(aborts->size(), 2u);  // clients 4 and 5
  for (const ServerMessage& m : *aborts) {
    EXPECT_THAT(m.message.abort().reason(),
                HasSubstr("too few clients left after ShareKeys: 2, threshold 3"));
  }
  EXPECT_EQ(server().CloseStage().status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(server().HandleMessage(4, harness_->last_reply(4)).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(ServerStageTest, FewerMaskedInputsThanMinInputsAbortsBeforeUnmasking) {
  harness_ = std::make_unique<SessionHarness>(ServerStageConfig());
  server().set_min_inputs(5);  // every client; the threshold (3) alone would allow 4
  auto messages = harness_->AdvanceTo(ServerStage::kMaskedInput);
  messages.erase(5);
  ASSERT_TRUE(server().MarkDropped(5).ok());
  harness_->Deliver(messages);
  absl::StatusOr<std::vector<ServerMessage>> aborts = server().CloseStage();
  ASSERT_TRUE(aborts.ok()) << aborts.status();
  EXPECT_EQ(server().stage(), ServerStage::kAborted);
  ASSERT_EQ(aborts->size(), 4u);
  for (const ServerMessage& m : *aborts) {
    EXPECT_FALSE(m.message.has_unmasking());
    EXPECT_THAT(m.message.abort().reason(), HasSubstr("4 masked inputs, fewer than n_min 5"));
  }
}

TEST_F(ServerStageTest, MinInputsMetUnmasks) {
  harness_ = std::make_unique<SessionHarness>(ServerStageConfig());
  server().set_min_inputs(4);
  auto messages = harness_->AdvanceTo(ServerStage::kMaskedInput);
  messages.erase(5);
  ASSERT_TRUE(server().MarkDropped(5).ok());
  harness_->Deliver(messages);
  ASSERT_TRUE(server().CloseStage().ok());
  EXPECT_EQ(server().stage(), ServerStage::kUnmasking);
}

TEST_F(ServerStageTest, CallerAbortEndsTheSessionForEveryRemainingClient) {
  harness_ = std::make_unique<SessionHarness>(ServerStageConfig());
  harness_->AdvanceTo(ServerStage::kShareKeys);
  ASSERT_TRUE(server().MarkDropped(1).ok());
  const std::vector<ServerMessage> aborts = server().Abort("coordinator stopping");
  EXPECT_EQ(aborts.size(), 4u);
  for (const ServerMessage& m : aborts) {
    EXPECT_NE(m.client_id, 1u);
    EXPECT_THAT(m.message.abort().reason(), HasSubstr("coordinator stopping"));
  }
  EXPECT_EQ(server().stage(), ServerStage::kAborted);
  EXPECT_THAT(server().status().message(), HasSubstr("coordinator stopping"));
  EXPECT_TRUE(server().Abort("again").empty());
}

TEST_F(ServerStageTest, ResultOnlyAfterCompletion) {
  harness_ = std::make_unique<SessionHarness>(ServerStageConfig());
  EXPECT_EQ(server().result().status().code(), absl::StatusCode::kFailedPrecondition);
  harness_->Deliver(harness_->AdvanceTo(ServerStage::kUnmasking));
  ASSERT_TRUE(server().CloseStage().ok());
  ASSERT_EQ(server().stage(), ServerStage::kCompleted);
  // Client i's input is the constant i: the sum is 1 + 2 + 3 + 4 + 5 = 15 everywhere.
  EXPECT_EQ(server().result().value(), std::vector<uint64_t>(6, 15));
}

TEST(ServerSessionTest, CreateValidatesCohortAndDirectory) {
  EXPECT_EQ(ServerSession::Create(ServerStageConfig(), {1, 2, 3, 4}, nullptr).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      ServerSession::Create(ServerStageConfig(), {1, 2, 3, 4, 4}, nullptr).status().message(),
      HasSubstr("client 4 appears twice"));
  EXPECT_THAT(
      ServerSession::Create(ServerStageConfig(true), {1, 2, 3, 4, 5}, nullptr).status().message(),
      HasSubstr("no directory"));
}

}  // namespace
}  // namespace fedmf::secagg
