// The messages of the committed SecAgg test vectors (docs/vectors/secagg_3_clients.json): each
// parses as secagg.proto says and carries the recorded values, and a client restored from the
// recorded secrets (ClientSession::Restore) accepts the recorded key list and answers the
// recorded MaskedInputRequest, ConsistencyCheckRequest and UnmaskingRequest with exactly the
// recorded bytes (those stages are deterministic given the client's state).
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "crypto/aead.h"
#include "crypto/ed25519.h"
#include "crypto/secagg/client_session.h"
#include "crypto/secagg/config.h"
#include "crypto/secagg/derivation.h"
#include "crypto/secagg/signing_directory.h"
#include "crypto/shamir.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/secagg_vectors_file.h"

namespace fedmf::secagg::vectors_test {
namespace {

using fedmf::v1::secagg::ClientSessionState;
using fedmf::v1::secagg::ClientToServer;
using fedmf::v1::secagg::ServerToClient;

// The session state every restored client of session `s` starts from: client `c`'s recorded
// keys, input and self-mask secret b (held from AWAITING_SHARE_KEYS on, state format 3) at
// `stage` (the caller adds what that stage holds).
ClientSessionState RecordedState(const json& s, const json& c, const SessionConfig& config,
                                 ClientSessionState::Stage stage) {
  ClientSessionState state;
  state.set_format_version(3);
  *state.mutable_config() = ConfigToProto(config);
  state.set_config_digest(Str(B(s.at("config_digest"))));
  state.set_client_id(c.at("id").get<uint32_t>());
  state.set_stage(stage);
  state.set_c_private_key(Str(B(c.at("c_private_key"))));
  state.set_s_private_key(Str(B(c.at("s_private_key"))));
  state.set_has_input(true);
  state.set_input(Str(B(c.at("input_packed"))));
  state.set_self_mask_secret(Str(B(c.at("self_mask_secret"))));
  return state;
}

// Session `s`'s signing key directory, from its recorded public keys.
std::shared_ptr<MapSigningKeyDirectory> Directory(const json& s) {
  auto directory = std::make_shared<MapSigningKeyDirectory>();
  for (const json& c : s.at("clients")) {
    directory->Add(c.at("id").get<uint32_t>(),
                   crypto::Ed25519PublicKey::FromBytes(B(c.at("signing_public_key"))).value());
  }
  return directory;
}

// Client `c`'s identity, signing with its recorded key.
ClientIdentity Identity(const json& c) {
  return {c.at("id").get<uint32_t>(),
          crypto::Ed25519PrivateKey::FromSeed(B(c.at("signing_key_seed"))).value()};
}

// Every recorded message parses, in stage order, and carries the recorded values.
TEST(SecAggVectorsTest, MessagesCarryTheRecordedValues) {
  for (const json& s : Sessions()) {
    SCOPED_TRACE(s.at("name").get<std::string>());
    std::vector<std::string> stages;
    for (const json& m : s.at("messages")) {
      const std::string stage = m.at("stage").get<std::string>();
      if (stages.empty() || stages.back() != stage) stages.push_back(stage);
      const bool from_server = m.at("direction") == "server_to_client";
      EXPECT_TRUE(from_server || m.at("direction") == "client_to_server");
      EXPECT_EQ(m.at("type"),
                from_server ? "fedmf.v1.secagg.ServerToClient" : "fedmf.v1.secagg.ClientToServer");
    }
    EXPECT_EQ(stages, (std::vector<std::string>{"AdvertiseKeys", "ShareKeys", "MaskedInput",
                                                "ConsistencyCheck", "Unmasking"}));
    const std::vector<uint32_t> advertised = Ids(s.at("advertised"));
    const std::vector<uint32_t> included = Ids(s.at("included"));
    std::vector<uint32_t> share_senders;
    for (const json& m : s.at("messages")) {
      if (m.at("stage") == "ShareKeys" && m.at("direction") == "client_to_server") {
        share_senders.push_back(m.at("client").get<uint32_t>());
      }
    }
    EXPECT_EQ(share_senders, Ids(s.at("shared_keys")));
    for (uint32_t id : advertised) {
      SCOPED_TRACE(id);
      const json& c = Client(s, id);
      const std::vector<Bytes> advertise = Messages(s, "AdvertiseKeys", false, id);
      ASSERT_EQ(advertise.size(), 1u);
      const auto keys = Parse<ClientToServer>(advertise[0]).advertise_keys();
      EXPECT_EQ(H(keys.c_public_key()), c.at("c_public_key"));
      EXPECT_EQ(H(keys.s_public_key()), c.at("s_public_key"));
      EXPECT_EQ(H(keys.signature()), c.at("advertise_signature"));
      EXPECT_EQ(H(keys.self_mask_commitment()), c.at("self_mask_commitment"));

      const std::vector<Bytes> request = Messages(s, "ShareKeys", true, id);
      ASSERT_EQ(request.size(), 1u);
      const auto share_keys = Parse<ServerToClient>(request[0]).share_keys();
      EXPECT_EQ(H(share_keys.session_id()), s.at("session_id"));
      EXPECT_EQ(share_keys.num_advertised(), advertised.size());
      ASSERT_EQ(static_cast<size_t>(share_keys.clients_size()), advertised.size());
      for (size_t i = 0; i < advertised.size(); ++i) {
        const auto& entry = share_keys.clients(static_cast<int>(i));
        EXPECT_EQ(entry.client_id(), advertised[i]);
        EXPECT_EQ(H(entry.keys().c_public_key()), Client(s, advertised[i]).at("c_public_key"));
        EXPECT_EQ(H(entry.keys().s_public_key()), Client(s, advertised[i]).at("s_public_key"));
        EXPECT_EQ(H(entry.keys().signature()), Client(s, advertised[i]).at("advertise_signature"));
        EXPECT_EQ(H(entry.keys().self_mask_commitment()),
                  Client(s, advertised[i]).at("self_mask_commitment"));
      }
      const std::vector<Bytes> response = Messages(s, "ShareKeys", false, id);
      ASSERT_EQ(response.size(), 1u);
      std::vector<std::pair<uint32_t, std::string>> sent;
      const ClientToServer sent_message = Parse<ClientToServer>(response[0]);
      for (const auto& e : sent_message.share_keys().shares()) {
        sent.emplace_back(e.peer_id(), H(e.ciphertext()));
      }
      std::vector<std::pair<uint32_t, std::string>> recorded;
      for (const json& e : s.at("share_ciphertexts")) {
        if (e.at("sender").get<uint32_t>() == id) {
          recorded.emplace_back(e.at("receiver").get<uint32_t>(),
                                e.at("ciphertext").get<std::string>());
        }
      }
      EXPECT_EQ(sent, recorded);
    }
    for (uint32_t id : included) {
      SCOPED_TRACE(id);
      const json& c = Client(s, id);
      const std::vector<Bytes> request = Messages(s, "MaskedInput", true, id);
      ASSERT_EQ(request.size(), 1u);
      std::vector<uint32_t> senders;
      const ServerToClient request_message = Parse<ServerToClient>(request[0]);
      for (const auto& e : request_message.masked_input().shares()) {
        senders.push_back(e.peer_id());
        bool found = false;
        for (const json& r : s.at("share_ciphertexts")) {
          if (r.at("sender").get<uint32_t>() == e.peer_id() &&
              r.at("receiver").get<uint32_t>() == id) {
            EXPECT_EQ(H(e.ciphertext()), r.at("ciphertext"));
            found = true;
          }
        }
        EXPECT_TRUE(found) << e.peer_id();
      }
      EXPECT_EQ(senders, Ids(c.at("masked_with")));
      const std::vector<Bytes> reply = Messages(s, "MaskedInput", false, id);
      ASSERT_EQ(reply.size(), 1u);
      const auto masked = Parse<ClientToServer>(reply[0]).masked_input();
      EXPECT_EQ(H(masked.packed()), c.at("masked_input_packed"));
      EXPECT_EQ(std::vector<uint32_t>(masked.unusable_shares_from().begin(),
                                      masked.unusable_shares_from().end()),
                Ids(c.at("unusable_shares_from")));
      // Nothing reported: the bytes are those of a MaskedInput with `packed` only.
      EXPECT_EQ(masked.unusable_shares_from_size(), 0);
      ClientToServer packed_only;
      packed_only.mutable_masked_input()->set_packed(masked.packed());
      EXPECT_EQ(H(packed_only.SerializeAsString()), H(reply[0]));
      const auto cc = Parse<ServerToClient>(Messages(s, "ConsistencyCheck", true, id).at(0));
      EXPECT_EQ(std::vector<uint32_t>(cc.consistency_check().survivor_ids().begin(),
                                      cc.consistency_check().survivor_ids().end()),
                included);
      std::map<uint32_t, std::string> signatures;
      for (const json& sig : s.at("consistency_check").at("signatures")) {
        signatures[sig.at("client_id").get<uint32_t>()] = sig.at("signature").get<std::string>();
      }
      const auto signed_list =
          Parse<ClientToServer>(Messages(s, "ConsistencyCheck", false, id).at(0));
      EXPECT_EQ(H(signed_list.consistency_check().signature()), signatures[id]);
      const auto unmasking = Parse<ServerToClient>(Messages(s, "Unmasking", true, id).at(0));
      const json* recorded_request = nullptr;
      const json* recorded_response = nullptr;
      for (const json& r : s.at("unmasking").at("requests")) {
        if (r.at("client").get<uint32_t>() == id) recorded_request = &r;
      }
      for (const json& r : s.at("unmasking").at("responses")) {
        if (r.at("client").get<uint32_t>() == id) recorded_response = &r;
      }
      ASSERT_NE(recorded_request, nullptr);
      ASSERT_NE(recorded_response, nullptr);
      EXPECT_EQ(std::vector<uint32_t>(unmasking.unmasking().dropped_ids().begin(),
                                      unmasking.unmasking().dropped_ids().end()),
                Ids((*recorded_request).at("dropped_ids")));
      std::vector<uint32_t> signers;
      for (const auto& sig : unmasking.unmasking().signatures()) {
        signers.push_back(sig.client_id());
        EXPECT_EQ(H(sig.signature()), signatures[sig.client_id()]);
      }
      EXPECT_EQ(signers, Ids((*recorded_request).at("signers")));
      const auto revealed = Parse<ClientToServer>(Messages(s, "Unmasking", false, id).at(0));
      auto same = [](const auto& shares, const json& recorded) {
        json got = json::array();
        for (const auto& r : shares) {
          got.push_back({{"owner_id", r.owner_id()}, {"share", H(r.share())}, {"salt", H(r.salt())}});
        }
        return got == recorded;
      };
      EXPECT_TRUE(same(revealed.unmasking().self_mask_shares(),
                       (*recorded_response).at("self_mask_shares")));
      EXPECT_TRUE(same(revealed.unmasking().key_shares(), (*recorded_response).at("key_shares")));
    }
  }
}

// A client restored from the recorded secrets (as ClientSession::Restore reads a saved state)
// answers the recorded MaskedInputRequest, ConsistencyCheckRequest and UnmaskingRequest with
// exactly the recorded replies: these stages are deterministic given the state.
TEST(SecAggVectorsTest, RestoredClientRepliesAsRecorded) {
  for (const json& s : Sessions()) {
    SCOPED_TRACE(s.at("name").get<std::string>());
    const SessionConfig config = Config(s);
    const std::shared_ptr<MapSigningKeyDirectory> directory = Directory(s);
    const std::vector<uint32_t> advertised = Ids(s.at("advertised"));
    for (uint32_t id : Ids(s.at("included"))) {
      SCOPED_TRACE(id);
      const json& c = Client(s, id);
      ClientSessionState state =
          RecordedState(s, c, config, ClientSessionState::STAGE_AWAITING_MASKED_INPUT_REQUEST);
      state.set_session_id(Str(B(s.at("session_id"))));
      for (size_t i = 0; i < advertised.size(); ++i) {
        const json& n = Client(s, advertised[i]);
        ClientSessionState::Neighbor* entry = state.add_neighbors();
        entry->set_id(advertised[i]);
        entry->set_c_public_key(Str(B(n.at("c_public_key"))));
        entry->set_s_public_key(Str(B(n.at("s_public_key"))));
        if (advertised[i] != id) continue;
        state.set_self_position(static_cast<uint32_t>(i));
        entry->set_shared(true);
        entry->set_key_share(Str(HeldShare(s, id, "s_private_key", id)));
        entry->set_self_mask_share(Str(HeldShare(s, id, "self_mask_secret", id)));
      }
      absl::StatusOr<std::unique_ptr<ClientSession>> client =
          ClientSession::Restore(state, Identity(c), directory);
      ASSERT_TRUE(client.ok()) << client.status();
      for (const char* stage : {"MaskedInput", "ConsistencyCheck", "Unmasking"}) {
        SCOPED_TRACE(stage);
        const std::vector<Bytes> request = Messages(s, stage, true, id);
        const std::vector<Bytes> reply = Messages(s, stage, false, id);
        ASSERT_EQ(request.size(), 1u);
        ASSERT_EQ(reply.size(), 1u);
        absl::StatusOr<std::optional<ClientToServer>> answer =
            (*client)->Handle(Parse<ServerToClient>(request[0]));
        ASSERT_TRUE(answer.ok()) << answer.status();
        ASSERT_TRUE(answer->has_value()) << (*client)->abort_reason();
        EXPECT_EQ(H((*answer)->SerializeAsString()), H(reply[0]));
      }
      EXPECT_EQ((*client)->stage(), ClientStage::kCompleted);
    }
  }
}

// A client restored just after advertising accepts the recorded ShareKeysRequest (it recomputes
// the session id and verifies every advertisement signature, commitments included) and shares
// with every neighbor: the b it shares is the recorded one it committed to, and its key shares
// rebuild its s private key.
TEST(SecAggVectorsTest, RestoredClientAcceptsTheRecordedKeyList) {
  for (const json& s : Sessions()) {
    SCOPED_TRACE(s.at("name").get<std::string>());
    const SessionConfig config = Config(s);
    const std::shared_ptr<MapSigningKeyDirectory> directory = Directory(s);
    for (const json& c : s.at("clients")) {
      const uint32_t id = c.at("id").get<uint32_t>();
      SCOPED_TRACE(id);
      ClientSessionState state =
          RecordedState(s, c, config, ClientSessionState::STAGE_AWAITING_SHARE_KEYS);
      absl::StatusOr<std::unique_ptr<ClientSession>> client =
          ClientSession::Restore(state, Identity(c), directory);
      ASSERT_TRUE(client.ok()) << client.status();
      const std::vector<Bytes> request = Messages(s, "ShareKeys", true, id);
      ASSERT_EQ(request.size(), 1u);
      absl::StatusOr<std::optional<ClientToServer>> answer =
          (*client)->Handle(Parse<ServerToClient>(request[0]));
      ASSERT_TRUE(answer.ok()) << answer.status();
      ASSERT_TRUE(answer->has_value() && (*answer)->has_share_keys()) << (*client)->abort_reason();
      const std::vector<uint32_t> advertised = Ids(s.at("advertised"));
      EXPECT_EQ(static_cast<size_t>((*answer)->share_keys().shares_size()), advertised.size() - 1);
      // Each receiver's shares, from the ciphertexts opened with the recorded share keys; the
      // new shares are random, so t of them are checked by what they rebuild.
      std::vector<crypto::ShamirShare> key_shares, b_shares;
      for (const auto& e : (*answer)->share_keys().shares()) {
        const crypto::Aes256Gcm aead =
            crypto::Aes256Gcm::Create(B(PairOf(s, id, e.peer_id()).at("share_key"))).value();
        absl::StatusOr<crypto::SecretBytes> payload =
            aead.Decrypt(Bytes(e.ciphertext().begin(), e.ciphertext().end()),
                         ShareAssociatedData(Sid(s), id, e.peer_id()));
        ASSERT_TRUE(payload.ok()) << payload.status();
        absl::StatusOr<SharePayload> shares = DecodeSharePayload(*payload, id, e.peer_id());
        ASSERT_TRUE(shares.ok()) << shares.status();
        const auto index = static_cast<uint32_t>(
            std::find(advertised.begin(), advertised.end(), e.peer_id()) - advertised.begin() + 1);
        key_shares.push_back({index, std::move(shares->key_share)});
        b_shares.push_back({index, std::move(shares->self_mask_share)});
      }
      const crypto::ShamirParams params{config.threshold, static_cast<int>(advertised.size())};
      ASSERT_GE(b_shares.size(), static_cast<size_t>(config.threshold));  // the first t are used
      EXPECT_EQ(H(crypto::ShamirReconstruct(b_shares, params).value().span()),
                c.at("self_mask_secret"));
      EXPECT_EQ(H(crypto::ShamirReconstruct(key_shares, params).value().span()),
                c.at("s_private_key"));
    }
  }
}

}  // namespace
}  // namespace fedmf::secagg::vectors_test
