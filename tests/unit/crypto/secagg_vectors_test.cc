// The committed SecAgg test vectors (docs/vectors/secagg_3_clients.json, fields in
// docs/vectors/README.md) against fedmf's own derivations: every recorded value is recomputed
// from the recorded secrets with derivation.h, prg.h, shamir.h, vector_codec.h, aead.h and
// x25519.h. The messages and a client restored from the secrets: secagg_vectors_messages_test.cc.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "crypto/aead.h"
#include "crypto/bit_unpack.h"
#include "crypto/ed25519.h"
#include "crypto/hkdf.h"
#include "crypto/prg.h"
#include "crypto/secagg/config.h"
#include "crypto/secagg/derivation.h"
#include "crypto/secagg/vector_codec.h"
#include "crypto/shamir.h"
#include "crypto/x25519.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/secagg_vectors_file.h"

namespace fedmf::secagg::vectors_test {
namespace {

TEST(SecAggVectorsTest, FileHoldsBothSessions) {
  ASSERT_TRUE(Vectors().is_object());
  EXPECT_EQ(Vectors().at("format"), "fedmf-secagg-test-vectors/1");
  ASSERT_EQ(Sessions().size(), 2u);
  EXPECT_EQ(Sessions().at(0).at("name"), "no_dropout");
  EXPECT_EQ(Sessions().at(1).at("name"), "client_3_drops");
  EXPECT_EQ(Ids(Sessions().at(0).at("included")), (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(Ids(Sessions().at(1).at("included")), (std::vector<uint32_t>{1, 2}));
}

TEST(SecAggVectorsTest, ConfigDigest) {
  for (const json& s : Sessions()) {
    SCOPED_TRACE(s.at("name").get<std::string>());
    const SessionConfig config = Config(s);
    EXPECT_TRUE(ValidateConfig(config).ok());
    EXPECT_EQ(H(ConfigDigest(config).value()), s.at("config_digest"));
    Sha256 h;
    h.Update(B(s.at("config_digest_input")));
    EXPECT_EQ(H(h.Finish().value()), s.at("config_digest"));
  }
}

TEST(SecAggVectorsTest, KeysAndAdvertisements) {
  for (const json& s : Sessions()) {
    SCOPED_TRACE(s.at("name").get<std::string>());
    const std::array<uint8_t, 32> digest = Array32(B(s.at("config_digest")));
    for (const json& c : s.at("clients")) {
      const uint32_t id = c.at("id").get<uint32_t>();
      SCOPED_TRACE(id);
      const crypto::X25519PrivateKey c_key = Key(c, "c_private_key");
      const crypto::X25519PrivateKey s_key = Key(c, "s_private_key");
      EXPECT_EQ(H(c_key.public_key().bytes()), c.at("c_public_key"));
      EXPECT_EQ(H(s_key.public_key().bytes()), c.at("s_public_key"));
      const crypto::Ed25519PrivateKey signing =
          crypto::Ed25519PrivateKey::FromSeed(B(c.at("signing_key_seed"))).value();
      EXPECT_EQ(H(signing.public_key().bytes()), c.at("signing_public_key"));
      // The commitment to b, by the library and over the recorded hashed bytes.
      const Bytes b = B(c.at("self_mask_secret"));
      EXPECT_EQ(b.size(), crypto::kShamirSecretSize);
      const Commitment commitment = SelfMaskCommitment(digest, id, b).value();
      EXPECT_EQ(H(commitment), c.at("self_mask_commitment"));
      Bytes commitment_input(kLabelSelfMaskCommitment.begin(), kLabelSelfMaskCommitment.end());
      commitment_input.insert(commitment_input.end(), digest.begin(), digest.end());
      for (int i = 0; i < 4; ++i) commitment_input.push_back(static_cast<uint8_t>(id >> (8 * i)));
      commitment_input.insert(commitment_input.end(), b.begin(), b.end());
      EXPECT_EQ(H(commitment_input), c.at("self_mask_commitment_input"));
      Sha256 h;
      h.Update(commitment_input);
      EXPECT_EQ(h.Finish().value(), commitment);
      const Bytes message = AdvertisementMessage(digest, id, c_key.public_key().bytes(),
                                                 s_key.public_key().bytes(), commitment);
      EXPECT_EQ(H(message), c.at("advertise_message"));
      EXPECT_EQ(H(signing.Sign(message).value()), c.at("advertise_signature"));
      EXPECT_TRUE(signing.public_key().Verify(message, B(c.at("advertise_signature"))).ok());
    }
  }
}

TEST(SecAggVectorsTest, SessionId) {
  for (const json& s : Sessions()) {
    SCOPED_TRACE(s.at("name").get<std::string>());
    const std::vector<uint32_t> advertised = Ids(s.at("advertised"));
    SessionIdBuilder builder(Array32(B(s.at("config_digest"))),
                             static_cast<uint32_t>(advertised.size()));
    for (uint32_t id : advertised) {
      const json& c = Client(s, id);
      builder.Add(id, Array32(B(c.at("c_public_key"))), Array32(B(c.at("s_public_key"))));
    }
    EXPECT_EQ(H(builder.Finish().value()), s.at("session_id"));
    Sha256 h;
    h.Update(B(s.at("session_id_input")));
    EXPECT_EQ(H(h.Finish().value()), s.at("session_id"));
  }
}

Bytes PairInfo(absl::string_view label, uint32_t lo, uint32_t hi, const Bytes& key_lo,
               const Bytes& key_hi) {
  Bytes info(label.begin(), label.end());
  for (uint32_t id : {lo, hi}) {
    for (int i = 0; i < 4; ++i) info.push_back(static_cast<uint8_t>(id >> (8 * i)));
  }
  info.insert(info.end(), key_lo.begin(), key_lo.end());
  info.insert(info.end(), key_hi.begin(), key_hi.end());
  return info;
}

TEST(SecAggVectorsTest, ShareKeysPairwiseSeedsAndMasks) {
  for (const json& s : Sessions()) {
    SCOPED_TRACE(s.at("name").get<std::string>());
    const SessionConfig config = Config(s);
    const SessionId sid = Sid(s);
    const std::vector<uint32_t> advertised = Ids(s.at("advertised"));
    EXPECT_EQ(s.at("pairs").size(), advertised.size() * (advertised.size() - 1) / 2);
    for (const json& p : s.at("pairs")) {
      const uint32_t lo = p.at("lo").get<uint32_t>(), hi = p.at("hi").get<uint32_t>();
      SCOPED_TRACE(::testing::Message() << "pair " << lo << ", " << hi);
      ASSERT_LT(lo, hi);
      const json& a = Client(s, lo);
      const json& b = Client(s, hi);
      const crypto::SecretBytes c_shared =
          Key(a, "c_private_key").ComputeSharedSecret(PublicKey(b, "c_public_key")).value();
      EXPECT_EQ(H(c_shared.span()), p.at("c_shared_secret"));
      EXPECT_EQ(c_shared,
                Key(b, "c_private_key").ComputeSharedSecret(PublicKey(a, "c_public_key")).value());
      const Bytes share_info =
          PairInfo(kLabelShareKey, lo, hi, B(a.at("c_public_key")), B(b.at("c_public_key")));
      EXPECT_EQ(H(share_info), p.at("share_key_info"));
      EXPECT_EQ(H(crypto::HkdfSha256(c_shared.span(), sid, share_info, 32).value().span()),
                p.at("share_key"));
      const crypto::SecretBytes s_shared =
          Key(a, "s_private_key").ComputeSharedSecret(PublicKey(b, "s_public_key")).value();
      EXPECT_EQ(H(s_shared.span()), p.at("s_shared_secret"));
      const Bytes seed_info =
          PairInfo(kLabelPairwiseMask, lo, hi, B(a.at("s_public_key")), B(b.at("s_public_key")));
      EXPECT_EQ(H(seed_info), p.at("pairwise_seed_info"));
      EXPECT_EQ(H(crypto::HkdfSha256(s_shared.span(), sid, seed_info, 32).value().span()),
                p.at("pairwise_seed"));
      // The library's derivation, from either side.
      EXPECT_EQ(
          H(PairwiseMaskSeed(Key(a, "s_private_key"), lo, PublicKey(b, "s_public_key"), hi, sid)
                .value()
                .span()),
          p.at("pairwise_seed"));
      EXPECT_EQ(
          H(PairwiseMaskSeed(Key(b, "s_private_key"), hi, PublicKey(a, "s_public_key"), lo, sid)
                .value()
                .span()),
          p.at("pairwise_seed"));
      EXPECT_EQ(crypto::ExpandMask(B(p.at("pairwise_seed")), config.bits, config.length).value(),
                V(p.at("pairwise_mask")));
    }
  }
}

TEST(SecAggVectorsTest, ShareCiphertextsDecryptToThePayloads) {
  for (const json& s : Sessions()) {
    SCOPED_TRACE(s.at("name").get<std::string>());
    const SessionId sid = Sid(s);
    const std::vector<uint32_t> advertised = Ids(s.at("advertised"));
    const std::vector<uint32_t> shared = Ids(s.at("shared_keys"));
    EXPECT_EQ(s.at("share_ciphertexts").size(), shared.size() * (advertised.size() - 1));
    for (const json& e : s.at("share_ciphertexts")) {
      const uint32_t sender = e.at("sender").get<uint32_t>();
      const uint32_t receiver = e.at("receiver").get<uint32_t>();
      SCOPED_TRACE(::testing::Message() << sender << " -> " << receiver);
      const Bytes ad = ShareAssociatedData(sid, sender, receiver);
      EXPECT_EQ(H(ad), e.at("associated_data"));
      const Bytes ciphertext = B(e.at("ciphertext"));
      EXPECT_EQ(ciphertext.size(), kShareCiphertextSize);
      // With the recorded share key, and with the receiver's channel (the library's key).
      const crypto::Aes256Gcm recorded =
          crypto::Aes256Gcm::Create(B(PairOf(s, sender, receiver).at("share_key"))).value();
      absl::StatusOr<crypto::SecretBytes> payload = recorded.Decrypt(ciphertext, ad);
      ASSERT_TRUE(payload.ok()) << payload.status();
      EXPECT_EQ(H(payload->span()), e.at("payload"));
      const crypto::Aes256Gcm channel =
          ShareChannel(Key(Client(s, receiver), "c_private_key"), receiver,
                       PublicKey(Client(s, sender), "c_public_key"), sender, sid)
              .value();
      absl::StatusOr<crypto::SecretBytes> at_receiver = channel.Decrypt(ciphertext, ad);
      ASSERT_TRUE(at_receiver.ok()) << at_receiver.status();
      EXPECT_EQ(*at_receiver, *payload);
      // The payload carries the receiver's shares of the sender's two secrets, with the salts
      // of the sender's commitments to them.
      absl::StatusOr<SharePayload> decoded = DecodeSharePayload(*payload, sender, receiver);
      ASSERT_TRUE(decoded.ok()) << decoded.status();
      EXPECT_EQ(H(decoded->key_share.span()), H(HeldShare(s, sender, "s_private_key", receiver)));
      EXPECT_EQ(H(decoded->self_mask_share.span()),
                H(HeldShare(s, sender, "self_mask_secret", receiver)));
      EXPECT_EQ(EncodeSharePayload(sender, receiver, *decoded), *payload);
      for (const SharedSecret secret : {SharedSecret::kMaskingKey, SharedSecret::kSelfMask}) {
        const bool key = secret == SharedSecret::kMaskingKey;
        const std::string name = key ? "key_share_commitment" : "self_mask_share_commitment";
        const crypto::SecretBytes& share = key ? decoded->key_share : decoded->self_mask_share;
        const crypto::SecretBytes& salt =
            key ? decoded->key_share_salt : decoded->self_mask_share_salt;
        Bytes input(kLabelShareCommitment.begin(), kLabelShareCommitment.end());
        input.insert(input.end(), sid.begin(), sid.end());
        for (uint32_t id : {sender, receiver}) {
          for (int i = 0; i < 4; ++i) input.push_back(static_cast<uint8_t>(id >> (8 * i)));
        }
        input.push_back(static_cast<uint8_t>(secret));
        input.insert(input.end(), share.data(), share.data() + share.size());
        input.insert(input.end(), salt.data(), salt.data() + salt.size());
        EXPECT_EQ(H(input), e.at(name + "_input"));
        absl::StatusOr<Commitment> commitment =
            ShareCommitment(sid, sender, receiver, secret, share.span(), salt.span());
        ASSERT_TRUE(commitment.ok());
        EXPECT_EQ(H(*commitment), e.at(name));
      }
    }
  }
}

TEST(SecAggVectorsTest, ShamirSharesRebuildTheSecrets) {
  for (const json& s : Sessions()) {
    SCOPED_TRACE(s.at("name").get<std::string>());
    const int t = Config(s).threshold;
    const std::vector<uint32_t> advertised = Ids(s.at("advertised"));
    // One record per secret of each client of U2 (the clients that sent their shares).
    std::vector<std::pair<uint32_t, std::string>> records, expected;
    for (const json& r : s.at("shamir")) {
      records.emplace_back(r.at("owner").get<uint32_t>(), r.at("secret").get<std::string>());
    }
    for (uint32_t owner : Ids(s.at("shared_keys"))) {
      expected.emplace_back(owner, "s_private_key");
      expected.emplace_back(owner, "self_mask_secret");
    }
    EXPECT_EQ(records, expected);
    for (const json& r : s.at("shamir")) {
      const uint32_t owner = r.at("owner").get<uint32_t>();
      const std::string secret = r.at("secret").get<std::string>();
      SCOPED_TRACE(::testing::Message() << owner << "'s " << secret);
      ASSERT_TRUE(secret == "s_private_key" || secret == "self_mask_secret");
      EXPECT_EQ(r.at("value"), Client(s, owner)[secret]);
      EXPECT_EQ(r.at("threshold").get<int>(), t);
      // Complete graph: N[owner] = U1, holder at position i has index i + 1.
      ASSERT_EQ(r.at("shares").size(), advertised.size());
      EXPECT_EQ(r.at("num_shares").get<size_t>(), advertised.size());
      const crypto::ShamirParams params{t, static_cast<int>(advertised.size())};
      for (size_t i = 0; i < advertised.size(); ++i) {
        EXPECT_EQ(r.at("shares").at(i).at("holder").get<uint32_t>(), advertised[i]);
        EXPECT_EQ(r.at("shares").at(i).at("index").get<size_t>(), i + 1);
      }
      // Every pair of holders (t = 2).
      ASSERT_EQ(t, 2);
      for (size_t a = 0; a < advertised.size(); ++a) {
        for (size_t b = a + 1; b < advertised.size(); ++b) {
          std::vector<crypto::ShamirShare> two;
          two.push_back({static_cast<uint32_t>(a + 1),
                         crypto::SecretBytes(B(r.at("shares").at(a).at("share")))});
          two.push_back({static_cast<uint32_t>(b + 1),
                         crypto::SecretBytes(B(r.at("shares").at(b).at("share")))});
          absl::StatusOr<crypto::SecretBytes> rebuilt = crypto::ShamirReconstruct(two, params);
          ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
          EXPECT_EQ(H(rebuilt->span()), r.at("value")) << "holders " << a + 1 << ", " << b + 1;
        }
      }
    }
  }
}

// masked_input = input + self mask + pairwise masks, each mask from its recorded seed.
TEST(SecAggVectorsTest, MaskedInputs) {
  for (const json& s : Sessions()) {
    SCOPED_TRACE(s.at("name").get<std::string>());
    const SessionConfig config = Config(s);
    const SessionId sid = Sid(s);
    const std::vector<uint32_t> shared = Ids(s.at("shared_keys"));
    const std::vector<uint32_t> included = Ids(s.at("included"));
    const uint64_t mask = crypto::internal::LowBitsMask(config.bits);
    for (const json& c : s.at("clients")) {
      const uint32_t id = c.at("id").get<uint32_t>();
      SCOPED_TRACE(id);
      const std::vector<uint64_t> x = V(c.at("input"));
      EXPECT_EQ(H(PackVector<uint64_t>(x, config.bits).value()), c.at("input_packed"));
      if (std::find(shared.begin(), shared.end(), id) == shared.end()) continue;
      Bytes info(kLabelSelfMask.begin(), kLabelSelfMask.end());
      for (int i = 0; i < 4; ++i) info.push_back(static_cast<uint8_t>(id >> (8 * i)));
      EXPECT_EQ(H(info), c.at("self_mask_seed_info"));
      const crypto::SecretBytes seed = SelfMaskSeed(B(c.at("self_mask_secret")), id, sid).value();
      EXPECT_EQ(H(seed.span()), c.at("self_mask_seed"));
      EXPECT_EQ(crypto::ExpandMask(seed.span(), config.bits, config.length).value(),
                V(c.at("self_mask")));
      const bool in_u3 = std::find(included.begin(), included.end(), id) != included.end();
      EXPECT_EQ(c.contains("masked_input"), in_u3);
      EXPECT_EQ(c.contains("unusable_shares_from"), in_u3);
      if (!in_u3) continue;
      std::vector<uint64_t> y = x;
      ASSERT_TRUE(
          crypto::AddMask(seed.span(), config.bits, crypto::MaskOp::kAdd, absl::MakeSpan(y)).ok());
      for (uint32_t v : Ids(c.at("masked_with"))) {
        ASSERT_TRUE(crypto::AddMask(B(PairOf(s, id, v).at("pairwise_seed")), config.bits,
                                    id < v ? crypto::MaskOp::kAdd : crypto::MaskOp::kSubtract,
                                    absl::MakeSpan(y))
                        .ok());
      }
      for (uint64_t& v : y) v &= mask;
      EXPECT_EQ(y, V(c.at("masked_input")));
      EXPECT_EQ(H(PackVector<uint64_t>(y, config.bits).value()), c.at("masked_input_packed"));
      EXPECT_TRUE(ValidatePacked(B(c.at("masked_input_packed")), config.length, config.bits).ok());
      // Every ciphertext to it decrypted (ShareCiphertextsDecryptToThePayloads): nothing reported.
      EXPECT_EQ(Ids(c.at("unusable_shares_from")), std::vector<uint32_t>{});
    }
  }
}

TEST(SecAggVectorsTest, ConsistencyCheckSignatures) {
  for (const json& s : Sessions()) {
    SCOPED_TRACE(s.at("name").get<std::string>());
    const json& cc = s.at("consistency_check");
    const std::vector<uint32_t> survivors = Ids(cc.at("survivor_ids"));
    EXPECT_EQ(survivors, Ids(s.at("included")));
    const Bytes message = SurvivorListMessage(Sid(s), survivors);
    EXPECT_EQ(H(message), cc.at("survivors_message"));
    std::vector<uint32_t> signers;
    for (const json& sig : cc.at("signatures")) {
      const uint32_t id = sig.at("client_id").get<uint32_t>();
      signers.push_back(id);
      const crypto::Ed25519PrivateKey key =
          crypto::Ed25519PrivateKey::FromSeed(B(Client(s, id).at("signing_key_seed"))).value();
      EXPECT_EQ(H(key.Sign(message).value()), sig.at("signature")) << id;
    }
    EXPECT_EQ(signers, survivors);
  }
}

// The server's side: the revealed shares are the ones held, they rebuild the secrets, which pass
// the server's checks (b against the commitment, s_SK against s_pk), and removing the masks from
// the sum of the masked inputs leaves the sum of the inputs.
TEST(SecAggVectorsTest, UnmaskingGivesTheSumOfTheIncludedInputs) {
  for (const json& s : Sessions()) {
    SCOPED_TRACE(s.at("name").get<std::string>());
    const SessionConfig config = Config(s);
    const SessionId sid = Sid(s);
    const uint64_t mask = crypto::internal::LowBitsMask(config.bits);
    const std::vector<uint32_t> included = Ids(s.at("included"));
    const json& un = s.at("unmasking");
    std::vector<uint32_t> dropped;
    for (uint32_t w : Ids(s.at("shared_keys"))) {
      if (std::find(included.begin(), included.end(), w) == included.end()) dropped.push_back(w);
    }
    for (const json& rq : un.at("requests")) {
      EXPECT_EQ(Ids(rq.at("dropped_ids")), dropped);
      EXPECT_EQ(Ids(rq.at("signers")), included);
    }
    std::map<uint32_t, std::vector<crypto::ShamirShare>> first_t;
    std::map<uint32_t, std::vector<uint32_t>> holders;
    for (const json& rs : un.at("responses")) {
      const uint32_t holder = rs.at("client").get<uint32_t>();
      std::vector<uint32_t> self_owners, key_owners;
      for (const char* list : {"self_mask_shares", "key_shares"}) {
        const bool key = std::string(list) == "key_shares";
        for (const json& e : rs.at(list)) {
          const uint32_t owner = e.at("owner_id").get<uint32_t>();
          (key ? key_owners : self_owners).push_back(owner);
          EXPECT_EQ(B(e.at("share")),
                    HeldShare(s, owner, key ? "s_private_key" : "self_mask_secret", holder));
          // With the salt of the owner's commitment to that share (none for its own).
          std::string salt;
          for (const json& c : s.at("share_ciphertexts")) {
            if (c.at("sender").get<uint32_t>() == owner &&
                c.at("receiver").get<uint32_t>() == holder) {
              const Bytes payload = B(c.at("payload"));
              const size_t at = 8 + 2 * crypto::kShamirShareSize + (key ? 0 : kShareSaltSize);
              salt = H(absl::MakeConstSpan(payload).subspan(at, kShareSaltSize));
            }
          }
          EXPECT_EQ(e.at("salt"), salt);
          if (first_t[owner].size() < static_cast<size_t>(config.threshold)) {
            first_t[owner].push_back({holder, crypto::SecretBytes(B(e.at("share")))});
            holders[owner].push_back(holder);
          }
        }
      }
      // N[u] ∩ U3 and N(u) ∩ (U2 \ U3), minus the owners whose shares it reported unusable.
      const std::vector<uint32_t> reported = Ids(Client(s, holder).at("unusable_shares_from"));
      auto unreported = [&reported](std::vector<uint32_t> owners) {
        owners.erase(std::remove_if(owners.begin(), owners.end(),
                                    [&reported](uint32_t o) {
                                      return std::find(reported.begin(), reported.end(), o) !=
                                             reported.end();
                                    }),
                     owners.end());
        return owners;
      };
      EXPECT_EQ(self_owners, unreported(included)) << holder;
      EXPECT_EQ(key_owners, unreported(dropped)) << holder;
    }
    const crypto::ShamirParams params{config.threshold,
                                      static_cast<int>(Ids(s.at("advertised")).size())};
    std::vector<uint64_t> sum = V(un.at("sum_of_masked_inputs"));
    std::vector<uint64_t> masked(config.length, 0);
    for (uint32_t u : included) {
      const std::vector<uint64_t> y = V(Client(s, u).at("masked_input"));
      ASSERT_EQ(y.size(), config.length);
      for (size_t i = 0; i < y.size(); ++i) masked[i] = (masked[i] + y[i]) & mask;
    }
    EXPECT_EQ(masked, sum);
    ASSERT_EQ(un.at("rebuilt").size(), included.size() + dropped.size());
    json removed = json::array();
    for (const json& r : un.at("rebuilt")) {
      const uint32_t owner = r.at("owner").get<uint32_t>();
      SCOPED_TRACE(owner);
      const bool key = std::find(dropped.begin(), dropped.end(), owner) != dropped.end();
      EXPECT_EQ(r.at("secret"), key ? "s_private_key" : "self_mask_secret");
      EXPECT_EQ(Ids(r.at("holders")), holders[owner]);
      std::vector<uint32_t> indices;
      for (const crypto::ShamirShare& sh : first_t[owner]) indices.push_back(sh.index);
      EXPECT_EQ(Ids(r.at("indices")), indices);
      absl::StatusOr<crypto::SecretBytes> secret =
          crypto::ShamirReconstruct(first_t[owner], params);
      ASSERT_TRUE(secret.ok()) << secret.status();
      EXPECT_EQ(H(secret->span()), r.at("value"));
      EXPECT_EQ(r.at("value"), Client(s, owner)[key ? "s_private_key" : "self_mask_secret"]);
      if (!key) {
        EXPECT_EQ(
            H(SelfMaskCommitment(Array32(B(s.at("config_digest"))), owner, secret->span()).value()),
            Client(s, owner).at("self_mask_commitment"));
        const crypto::SecretBytes seed = SelfMaskSeed(secret->span(), owner, sid).value();
        ASSERT_TRUE(crypto::AddMask(seed.span(), config.bits, crypto::MaskOp::kSubtract,
                                    absl::MakeSpan(sum))
                        .ok());
        removed.push_back({{"mask", "self"}, {"owner", owner}, {"op", "subtract"}});
        continue;
      }
      const crypto::X25519PrivateKey rebuilt =
          crypto::X25519PrivateKey::FromBytes(secret->span()).value();
      EXPECT_EQ(H(rebuilt.public_key().bytes()), Client(s, owner).at("s_public_key"));
      for (uint32_t v : included) {
        const crypto::SecretBytes seed =
            PairwiseMaskSeed(rebuilt, owner, PublicKey(Client(s, v), "s_public_key"), v, sid)
                .value();
        const bool v_added = v < owner;
        ASSERT_TRUE(crypto::AddMask(seed.span(), config.bits,
                                    v_added ? crypto::MaskOp::kSubtract : crypto::MaskOp::kAdd,
                                    absl::MakeSpan(sum))
                        .ok());
        removed.push_back({{"mask", "pairwise"},
                           {"dropped", owner},
                           {"survivor", v},
                           {"op", v_added ? "subtract" : "add"}});
      }
    }
    EXPECT_EQ(removed, un.at("removed_masks"));
    EXPECT_EQ(sum, V(s.at("sum")));
    std::vector<uint64_t> inputs(config.length, 0);
    for (uint32_t u : included) {
      const std::vector<uint64_t> x = V(Client(s, u).at("input"));
      ASSERT_EQ(x.size(), config.length);
      for (size_t i = 0; i < x.size(); ++i) inputs[i] = (inputs[i] + x[i]) & mask;
    }
    EXPECT_EQ(inputs, V(s.at("sum")));
  }
}

}  // namespace
}  // namespace fedmf::secagg::vectors_test
