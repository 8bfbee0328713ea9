// ClientSession::Export / Restore: clients exported and restored at every stage finish the round
// with the exact sum; malformed states (each field) are refused with a reason, random and
// truncated bytes never crash; a restored session keeps its ledger of revealed shares.
#include <cstdint>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crypto/secagg/client_session.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/secagg_driver.h"

namespace fedmf::secagg {
namespace {

using fedmf::v1::secagg::ClientSessionState;
using fedmf::v1::secagg::ServerToClient;
using test_util::SessionHarness;
using ::testing::HasSubstr;

constexpr int kClients = 5;

// n = 5, t = 3, d = 5, b = 16; client i inputs the constant vector i, so the sum is 15 each.
SessionConfig Config(bool signed_with_check) {
  SessionConfig c;
  c.context = "client-session-state-test";
  c.num_clients = kClients;
  c.threshold = 3;
  c.bits = 16;
  c.length = 5;
  c.signatures = signed_with_check;
  c.consistency_check = signed_with_check;
  return c;
}

struct StageCase {
  ServerStage server_stage;  // the server's stage when the clients are restored
  ClientStage client_stage;  // theirs
  bool signed_with_check;
};

void PrintTo(const StageCase& c, std::ostream* os) {
  *os << ServerStageName(c.server_stage) << "/" << ClientStageName(c.client_stage)
      << (c.signed_with_check ? "/signed" : "");
}

class RestoreAtStageTest : public ::testing::TestWithParam<StageCase> {};

// Every client is exported, destroyed and restored from the serialized bytes at the stage; the
// round then completes with everyone's input.
TEST_P(RestoreAtStageTest, RoundYieldsTheExactSum) {
  const StageCase& c = GetParam();
  SessionHarness harness(Config(c.signed_with_check));
  ASSERT_TRUE(harness.status().ok()) << harness.status();
  const std::map<uint32_t, ServerToClient> messages = harness.AdvanceTo(c.server_stage);
  ASSERT_TRUE(harness.status().ok()) << harness.status();
  for (uint32_t id = 1; id <= kClients; ++id) {
    ASSERT_EQ(harness.client(id).stage(), c.client_stage);
    const absl::Status restored = harness.RestoreClient(id);
    ASSERT_TRUE(restored.ok()) << restored;
    EXPECT_EQ(harness.client(id).stage(), c.client_stage);
  }
  harness.Deliver(messages);
  harness.AdvanceTo(ServerStage::kCompleted);
  ASSERT_TRUE(harness.status().ok()) << harness.status();
  ASSERT_EQ(harness.server().stage(), ServerStage::kCompleted);
  absl::StatusOr<std::vector<uint64_t>> sum = harness.server().result();
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(*sum, std::vector<uint64_t>(5, 15));
  EXPECT_EQ(harness.server().IncludedClients().size(), static_cast<size_t>(kClients));
  for (uint32_t id = 1; id <= kClients; ++id) {
    EXPECT_EQ(harness.client(id).stage(), ClientStage::kCompleted);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Stages, RestoreAtStageTest,
    ::testing::Values(
        StageCase{ServerStage::kShareKeys, ClientStage::kAwaitingShareKeys, false},
        StageCase{ServerStage::kMaskedInput, ClientStage::kAwaitingMaskedInputRequest, false},
        StageCase{ServerStage::kUnmasking, ClientStage::kAwaitingUnmasking, false},
        StageCase{ServerStage::kShareKeys, ClientStage::kAwaitingShareKeys, true},
        StageCase{ServerStage::kMaskedInput, ClientStage::kAwaitingMaskedInputRequest, true},
        StageCase{ServerStage::kConsistencyCheck, ClientStage::kAwaitingConsistencyCheck, true},
        StageCase{ServerStage::kUnmasking, ClientStage::kAwaitingUnmasking, true}));

// Restored again before every stage, including before Start().
TEST(ClientSessionStateTest, RestoredBeforeEveryMessage) {
  SessionHarness harness(Config(true));
  ASSERT_TRUE(harness.status().ok()) << harness.status();
  for (ServerStage stage : {ServerStage::kShareKeys, ServerStage::kMaskedInput,
                            ServerStage::kConsistencyCheck, ServerStage::kUnmasking}) {
    const std::map<uint32_t, ServerToClient> messages = harness.AdvanceTo(stage);
    ASSERT_TRUE(harness.status().ok()) << harness.status();
    for (uint32_t id = 1; id <= kClients; ++id) ASSERT_TRUE(harness.RestoreClient(id).ok());
    harness.Deliver(messages);
  }
  harness.AdvanceTo(ServerStage::kCompleted);
  absl::StatusOr<std::vector<uint64_t>> sum = harness.server().result();
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(*sum, std::vector<uint64_t>(5, 15));
}

TEST(ClientSessionStateTest, NotStartedSessionRestoresWithItsInput) {
  absl::StatusOr<std::unique_ptr<ClientSession>> client =
      ClientSession::Create(Config(false), {3, std::nullopt}, nullptr);
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->SetInput(std::vector<uint64_t>{1, 2, 3, 65535, 0}).ok());
  absl::StatusOr<ClientSessionState> state = (*client)->Export();
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->stage(), ClientSessionState::STAGE_NOT_STARTED);
  EXPECT_EQ(state->input().size(), PackedSize(5, 16));
  absl::StatusOr<std::unique_ptr<ClientSession>> restored =
      ClientSession::Restore(*state, {3, std::nullopt}, nullptr);
  ASSERT_TRUE(restored.ok()) << restored.status();
  absl::StatusOr<ClientSessionState> again = (*restored)->Export();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->SerializeAsString(), state->SerializeAsString());
  EXPECT_TRUE((*restored)->Start().ok());
}

// --- The ledger of revealed shares survives a restore. ---

class LedgerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    harness_ = std::make_unique<SessionHarness>(Config(false));
    ASSERT_TRUE(harness_->status().ok());
    messages_ = harness_->AdvanceTo(ServerStage::kUnmasking);
    ASSERT_TRUE(harness_->status().ok());
  }
  std::unique_ptr<ClientSession> Restore(const ClientSessionState& state) {
    absl::StatusOr<ClientIdentity> identity = harness_->Identity(1);
    EXPECT_TRUE(identity.ok());
    absl::StatusOr<std::unique_ptr<ClientSession>> session =
        ClientSession::Restore(state, std::move(*identity), harness_->directory());
    EXPECT_TRUE(session.ok()) << session.status();
    return session.ok() ? std::move(*session) : nullptr;
  }
  // The genuine unmasking request of client 1, now claiming that client 2 dropped.
  ServerToClient AskForKeyShareOf2() {
    ServerToClient m = messages_.at(1);
    m.mutable_unmasking()->add_dropped_ids(2);
    return m;
  }

  std::unique_ptr<SessionHarness> harness_;
  std::map<uint32_t, ServerToClient> messages_;
};

// A session restored after its unmasking response still knows it revealed everyone's self-mask
// share and answers a second request (asking for client 2's key share) with an abort.
TEST_F(LedgerTest, CompletedSessionRestoredRevealsNothingMore) {
  // Every client completes (client 3's completed state once failed to restore: it kept its
  // neighborhood position).
  harness_->Deliver(messages_);
  for (uint32_t id = 2; id <= kClients; ++id) {
    EXPECT_EQ(harness_->client(id).stage(), ClientStage::kCompleted);
    EXPECT_TRUE(harness_->RestoreClient(id).ok()) << id;
  }
  harness_ = std::make_unique<SessionHarness>(Config(false));
  messages_ = harness_->AdvanceTo(ServerStage::kUnmasking);
  ClientSession& client = harness_->client(1);
  absl::StatusOr<std::optional<fedmf::v1::secagg::ClientToServer>> first =
      client.Handle(messages_.at(1));
  ASSERT_TRUE(first.ok() && first->has_value() && (*first)->has_unmasking());
  absl::StatusOr<ClientSessionState> state = client.Export();
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->stage(), ClientSessionState::STAGE_COMPLETED);
  ASSERT_EQ(state->revealed_size(), kClients);
  EXPECT_EQ(state->revealed(1).owner_id(), 2u);
  EXPECT_EQ(state->revealed(1).kind(), ClientSessionState::REVEALED_SELF_MASK_SHARE);
  EXPECT_TRUE(state->c_private_key().empty() && state->neighbors().empty());
  std::unique_ptr<ClientSession> restored = Restore(*state);
  ASSERT_NE(restored, nullptr);
  absl::StatusOr<std::optional<fedmf::v1::secagg::ClientToServer>> second =
      restored->Handle(AskForKeyShareOf2());
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_TRUE((*second)->has_abort());
  EXPECT_EQ(restored->stage(), ClientStage::kAborted);
}

// The ledger a restored session was given is enforced: with client 2's self-mask share on record,
// a request for client 2's key share is refused (nothing revealed).
TEST_F(LedgerTest, RestoredLedgerRefusesTheOtherShare) {
  absl::StatusOr<ClientSessionState> state = harness_->client(1).Export();
  ASSERT_TRUE(state.ok());
  ClientSessionState::Revealed* entry = state->add_revealed();
  entry->set_owner_id(2);
  entry->set_kind(ClientSessionState::REVEALED_SELF_MASK_SHARE);
  std::unique_ptr<ClientSession> restored = Restore(*state);
  ASSERT_NE(restored, nullptr);
  absl::StatusOr<std::optional<fedmf::v1::secagg::ClientToServer>> reply =
      restored->Handle(AskForKeyShareOf2());
  ASSERT_TRUE(reply.ok() && reply->has_value());
  ASSERT_TRUE((*reply)->has_abort()) << (*reply)->DebugString();
  EXPECT_THAT((*reply)->abort().reason(), HasSubstr("both the self-mask share and the key share"));
  // Control: without the entry the same request is answered with client 2's key share.
  state->mutable_revealed()->Clear();
  std::unique_ptr<ClientSession> clean = Restore(*state);
  ASSERT_NE(clean, nullptr);
  reply = clean->Handle(AskForKeyShareOf2());
  ASSERT_TRUE(reply.ok() && reply->has_value());
  ASSERT_TRUE((*reply)->has_unmasking());
  EXPECT_EQ((*reply)->unmasking().key_shares_size(), 1);
}

// --- Malformed states are refused with the field's name. ---

class CorruptStateTest : public ::testing::Test {
 protected:
  // The state of client `id` with the harness at `stage` (signatures and the check on).
  ClientSessionState Genuine(ServerStage stage, uint32_t id = 3) {
    harness_ = std::make_unique<SessionHarness>(Config(true));
    EXPECT_TRUE(harness_->status().ok());
    harness_->AdvanceTo(stage);
    EXPECT_TRUE(harness_->status().ok());
    absl::StatusOr<ClientSessionState> state = harness_->client(id).Export();
    EXPECT_TRUE(state.ok());
    id_ = id;
    return *state;
  }
  absl::Status Restore(const ClientSessionState& state, bool with_key = true) {
    absl::StatusOr<ClientIdentity> identity = harness_->Identity(id_);
    if (!identity.ok()) return identity.status();
    if (!with_key) identity->signing_key.reset();
    return ClientSession::Restore(state, std::move(*identity), harness_->directory()).status();
  }
  void ExpectRefused(const ClientSessionState& state, absl::string_view field) {
    const absl::Status s = Restore(state);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(s.message(), HasSubstr(field));
  }

  std::unique_ptr<SessionHarness> harness_;
  uint32_t id_ = 0;
};

TEST_F(CorruptStateTest, GenuineStatesRestore) {
  for (ServerStage stage : {ServerStage::kShareKeys, ServerStage::kMaskedInput,
                            ServerStage::kConsistencyCheck, ServerStage::kUnmasking}) {
    EXPECT_TRUE(Restore(Genuine(stage)).ok()) << ServerStageName(stage);
  }
}

TEST_F(CorruptStateTest, TruncatedPrivateKeys) {
  ClientSessionState state = Genuine(ServerStage::kUnmasking);
  state.mutable_c_private_key()->pop_back();
  ExpectRefused(state, "c_private_key");
  state = Genuine(ServerStage::kShareKeys);
  state.mutable_s_private_key()->clear();
  ExpectRefused(state, "s_private_key");
}

TEST_F(CorruptStateTest, PrivateKeysAfterCompletion) {
  ClientSessionState state = Genuine(ServerStage::kUnmasking);
  state.set_stage(ClientSessionState::STAGE_COMPLETED);
  state.clear_neighbors();
  ExpectRefused(state, "private keys in stage Completed");
}

TEST_F(CorruptStateTest, UnknownStages) {
  ClientSessionState state = Genuine(ServerStage::kMaskedInput);
  state.set_stage(static_cast<ClientSessionState::Stage>(99));
  ExpectRefused(state, "stage 99");
  state.set_stage(ClientSessionState::STAGE_UNSPECIFIED);
  ExpectRefused(state, "stage 0");
}

TEST_F(CorruptStateTest, StageInconsistentWithFields) {
  // Claims to wait for ShareKeys but holds a neighborhood.
  ClientSessionState state = Genuine(ServerStage::kMaskedInput);
  state.set_stage(ClientSessionState::STAGE_AWAITING_SHARE_KEYS);
  ExpectRefused(state, "session_id");
}

TEST_F(CorruptStateTest, ShuffledNeighbors) {
  ClientSessionState state = Genuine(ServerStage::kMaskedInput);  // client 3: position 2
  state.mutable_neighbors()->SwapElements(0, 1);
  ExpectRefused(state, "neighbors not strictly ascending at 1");
}

TEST_F(CorruptStateTest, DuplicateNeighbor) {
  ClientSessionState state = Genuine(ServerStage::kMaskedInput);
  *state.mutable_neighbors(1) = state.neighbors(0);
  ExpectRefused(state, "neighbors not strictly ascending");
}

TEST_F(CorruptStateTest, SelfPositionWrong) {
  ClientSessionState state = Genuine(ServerStage::kMaskedInput);
  state.set_self_position(1);
  ExpectRefused(state, "self_position");
  state.set_self_position(kClients);
  ExpectRefused(state, "self_position");
}

TEST_F(CorruptStateTest, OwnKeysAlteredInNeighborhood) {
  ClientSessionState state = Genuine(ServerStage::kMaskedInput);
  std::string& key = *state.mutable_neighbors(2)->mutable_c_public_key();
  key[0] = static_cast<char>(key[0] ^ 1);
  ExpectRefused(state, "does not match its own keys");
}

TEST_F(CorruptStateTest, ShortNeighborPublicKey) {
  ClientSessionState state = Genuine(ServerStage::kMaskedInput);
  state.mutable_neighbors(0)->mutable_s_public_key()->pop_back();
  ExpectRefused(state, "neighbors[0] (client 1): public keys of 32 and 31 bytes");
}

TEST_F(CorruptStateTest, LowOrderNeighborKey) {
  ClientSessionState state = Genuine(ServerStage::kMaskedInput);
  state.mutable_neighbors(0)->set_c_public_key(std::string(32, '\0'));
  ExpectRefused(state, "neighbors[0] (client 1)");
}

TEST_F(CorruptStateTest, ShareLengths) {
  ClientSessionState state = Genuine(ServerStage::kConsistencyCheck);
  state.mutable_neighbors(0)->mutable_key_share()->pop_back();
  ExpectRefused(state, "neighbors[0] (client 1, shared=1, unusable=0): shares of 39 and 40 bytes");
  // A neighbor that has not shared yet cannot hold shares.
  state = Genuine(ServerStage::kMaskedInput);
  state.mutable_neighbors(0)->set_shared(true);
  ExpectRefused(state, "shared before the masked input request");
}

TEST_F(CorruptStateTest, SessionIdAndSelfMaskSecretLengths) {
  ClientSessionState state = Genuine(ServerStage::kUnmasking);
  state.mutable_session_id()->pop_back();
  ExpectRefused(state, "session_id is 31 bytes");
  state = Genuine(ServerStage::kUnmasking);
  state.mutable_self_mask_secret()->append("x");
  ExpectRefused(state, "self_mask_secret is 33 bytes");
}

TEST_F(CorruptStateTest, ConfigDigestAndIds) {
  ClientSessionState state = Genuine(ServerStage::kShareKeys);
  state.mutable_config()->set_threshold(4);  // valid, but not the digested config
  ExpectRefused(state, "config_digest");
  state = Genuine(ServerStage::kShareKeys);
  state.mutable_config()->set_threshold(9);
  ExpectRefused(state, "config:");
  state = Genuine(ServerStage::kShareKeys);
  state.set_client_id(4);
  ExpectRefused(state, "client_id 4");
  state = Genuine(ServerStage::kShareKeys);
  state.set_format_version(4);
  ExpectRefused(state, "format_version 4, expected 1 to 3");
}

// A neighbor whose ciphertext did not decrypt: reported, holding no shares.
TEST_F(CorruptStateTest, UnusableNeighbor) {
  ClientSessionState state = Genuine(ServerStage::kConsistencyCheck);
  state.mutable_neighbors(0)->set_unusable(true);
  ExpectRefused(state,
                "neighbors[0] (client 1, shared=1, unusable=1): shares of 40 and 40 bytes, "
                "need 0");
  state.mutable_neighbors(0)->clear_key_share();
  state.mutable_neighbors(0)->clear_self_mask_share();
  ExpectRefused(state, "neighbors[0] (client 1): share salts of 32 and 32 bytes, need 0");
  state.mutable_neighbors(0)->clear_key_share_salt();
  state.mutable_neighbors(0)->clear_self_mask_share_salt();
  EXPECT_TRUE(Restore(state).ok()) << Restore(state);
  state.mutable_neighbors(2)->set_unusable(true);  // client 3 itself
  state.mutable_neighbors(2)->clear_key_share();
  state.mutable_neighbors(2)->clear_self_mask_share();
  ExpectRefused(state, "neighbors[2] (client 3) unusable but itself");
  state = Genuine(ServerStage::kMaskedInput);
  state.mutable_neighbors(0)->set_unusable(true);
  ExpectRefused(state, "neighbors[0] (client 1) unusable but not shared");
}

// b is fixed (and committed) at advertisement, so a session awaiting ShareKeys holds it.
TEST_F(CorruptStateTest, SelfMaskSecretFromAdvertisement) {
  ClientSessionState state = Genuine(ServerStage::kShareKeys);
  ASSERT_EQ(state.self_mask_secret().size(), 32u);
  state.clear_self_mask_secret();
  ExpectRefused(state, "self_mask_secret is 0 bytes, need 32 in stage AwaitingShareKeys");
}

// A state of format 1 (the protocol before the self-mask commitment) or 2 (before the share
// commitments) saved mid-session restores as an aborted session, keeping the participant; its
// secrets are gone.
TEST_F(CorruptStateTest, OlderFormatSessionInProgressRestoresAborted) {
  for (uint32_t format : {1, 2}) {
    ClientSessionState state = Genuine(ServerStage::kUnmasking);
    state.set_format_version(format);
    absl::StatusOr<ClientIdentity> identity = harness_->Identity(id_);
    ASSERT_TRUE(identity.ok());
    absl::StatusOr<std::unique_ptr<ClientSession>> session =
        ClientSession::Restore(state, std::move(*identity), harness_->directory());
    ASSERT_TRUE(session.ok()) << session.status();
    EXPECT_EQ((*session)->stage(), ClientStage::kAborted);
    EXPECT_THAT((*session)->abort_reason(), HasSubstr(absl::StrCat("state format ", format)));
    absl::StatusOr<ClientSessionState> exported = (*session)->Export();
    ASSERT_TRUE(exported.ok());
    EXPECT_EQ(exported->format_version(), 3u);
    EXPECT_TRUE(exported->s_private_key().empty());
    EXPECT_TRUE(exported->self_mask_secret().empty());
  }
}

// The salts of the commitments come with every held share of another client, never with its own.
TEST_F(CorruptStateTest, ShareSalts) {
  ClientSessionState state = Genuine(ServerStage::kConsistencyCheck);
  ASSERT_EQ(state.neighbors(0).key_share_salt().size(), 32u);
  state.mutable_neighbors(0)->clear_self_mask_share_salt();
  ExpectRefused(state, "neighbors[0] (client 1): share salts of 32 and 0 bytes, need 32");
  state = Genuine(ServerStage::kConsistencyCheck);
  state.mutable_neighbors(2)->set_key_share_salt(std::string(32, 's'));  // client 3 itself
  ExpectRefused(state, "neighbors[2] (client 3, itself): share salts of 32 and 0 bytes, need 0");
}

TEST_F(CorruptStateTest, InputWrongSizeOrPresentTooLate) {
  ClientSessionState state = Genuine(ServerStage::kMaskedInput);
  ASSERT_FALSE(state.input().empty());
  state.mutable_input()->pop_back();
  ExpectRefused(state, "input");
  state = Genuine(ServerStage::kUnmasking);
  state.set_input(std::string(PackedSize(5, 16), '\0'));
  ExpectRefused(state, "input present");
}

TEST_F(CorruptStateTest, SignedSurvivors) {
  ClientSessionState state = Genuine(ServerStage::kUnmasking);
  ASSERT_EQ(state.signed_survivors_size(), kClients);
  state.mutable_signed_survivors()->SwapElements(0, 1);
  ExpectRefused(state, "signed_survivors not ascending");
  state = Genuine(ServerStage::kUnmasking);
  state.mutable_signed_survivors()->RemoveLast();  // loses client 5: fine; now drop itself
  state.mutable_signed_survivors()->erase(state.mutable_signed_survivors()->begin() + 2);
  ExpectRefused(state, "lack itself");
  state = Genuine(ServerStage::kConsistencyCheck);
  state.add_signed_survivors(1);
  ExpectRefused(state, "signed_survivors in stage AwaitingConsistencyCheck");
}

TEST_F(CorruptStateTest, Ledger) {
  ClientSessionState state = Genuine(ServerStage::kUnmasking);
  state.add_revealed()->set_owner_id(2);
  ExpectRefused(state, "revealed[0] (client 2) has unknown kind 0");
  state.mutable_revealed(0)->set_kind(ClientSessionState::REVEALED_KEY_SHARE);
  ClientSessionState::Revealed* again = state.add_revealed();
  again->set_owner_id(2);
  again->set_kind(ClientSessionState::REVEALED_KEY_SHARE);
  ExpectRefused(state, "revealed not strictly ascending at 1");
}

TEST_F(CorruptStateTest, AbortReasonOnlyWhenAborted) {
  ClientSessionState state = Genuine(ServerStage::kShareKeys);
  state.set_abort_reason("x");
  ExpectRefused(state, "abort_reason");
}

TEST_F(CorruptStateTest, SignedSessionNeedsTheSigningKey) {
  const ClientSessionState state = Genuine(ServerStage::kShareKeys);
  const absl::Status s = Restore(state, /*with_key=*/false);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("signing key"));
}

// Random bytes, truncations and single-byte corruptions of a genuine state never crash; random
// bytes are never a session.
TEST_F(CorruptStateTest, RandomAndDamagedBytesNeverCrash) {
  const std::string genuine = Genuine(ServerStage::kUnmasking).SerializeAsString();
  std::mt19937_64 rng(20261125);
  int parsed = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string bytes(rng() % 400, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    ClientSessionState state;
    if (!state.ParseFromString(bytes)) continue;
    ++parsed;
    EXPECT_FALSE(Restore(state).ok());
  }
  EXPECT_GT(parsed, 0);  // some random bytes do parse, so Restore's checks were reached
  int restored = 0;
  for (size_t cut = 0; cut < genuine.size(); ++cut) {
    ClientSessionState state;
    if (state.ParseFromString(genuine.substr(0, cut)) && Restore(state).ok()) ++restored;
  }
  EXPECT_LE(restored, 1);  // at most the cut that only drops the (empty) trailing fields
  for (size_t at = 0; at < genuine.size(); ++at) {
    std::string damaged = genuine;
    damaged[at] = static_cast<char>(damaged[at] ^ (1 + rng() % 255));
    ClientSessionState state;
    if (state.ParseFromString(damaged)) (void)Restore(state);
  }
}

}  // namespace
}  // namespace fedmf::secagg
