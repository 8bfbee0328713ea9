// Key derivations of the SecAgg protocol: known answers computed independently (Python hmac and
// hashlib, from the byte layouts of docs/protocol.md), symmetry of the pairwise derivations and
// binding of the AEAD to session, sender and receiver.
#include <vector>

#include "crypto/secagg/derivation.h"
#include "crypto/x25519.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/hex.h"

namespace fedmf::secagg {
namespace {

using crypto::test_util::ToHex;
using ::testing::HasSubstr;

SessionId Fill(uint8_t v) {
  SessionId s;
  s.fill(v);
  return s;
}

TEST(SecAggDerivationTest, SessionIdKnownAnswer) {
  // SHA-256("fedmf/secagg/v1/session-id" || 32 x 03 || u32 2 || u32 5 || 32 x 10 || 32 x 11 ||
  // u32 9 || 32 x 20 || 32 x 21), computed with Python's hashlib.
  SessionIdBuilder b(Fill(3), 2);
  b.Add(5, Fill(0x10), Fill(0x11));
  b.Add(9, Fill(0x20), Fill(0x21));
  const absl::StatusOr<SessionId> sid = b.Finish();
  ASSERT_TRUE(sid.ok());
  EXPECT_EQ(ToHex(*sid), "a2da514ac1310932940cd04522ac1f41b26b61473f40fb0a759468329dc9129b");
}

TEST(SecAggDerivationTest, SessionIdNeedsAscendingIdsAndTheAnnouncedCount) {
  SessionIdBuilder unordered(Fill(3), 2);
  unordered.Add(9, Fill(0x20), Fill(0x21));
  unordered.Add(5, Fill(0x10), Fill(0x11));
  EXPECT_EQ(unordered.Finish().status().code(), absl::StatusCode::kInvalidArgument);
  SessionIdBuilder short_list(Fill(3), 3);
  short_list.Add(5, Fill(0x10), Fill(0x11));
  EXPECT_EQ(short_list.Finish().status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SecAggDerivationTest, SelfMaskSeedKnownAnswer) {
  // HKDF-SHA256(ikm = 32 x 01, salt = 32 x 02, info = "fedmf/secagg/v1/self-mask" || u32 7).
  const std::vector<uint8_t> b(32, 1);
  const absl::StatusOr<crypto::SecretBytes> seed = SelfMaskSeed(b, 7, Fill(2));
  ASSERT_TRUE(seed.ok());
  EXPECT_EQ(ToHex(seed->span()),
            "c9e77913c11d8435f68b88098dcce23b1ea0cc566a38626bb8c005309cdc5dbc");
}

TEST(SecAggDerivationTest, HararySeedKnownAnswer) {
  // HKDF-SHA256(ikm = 32 x 02, empty salt, info = "fedmf/secagg/v1/harary-permutation").
  const absl::StatusOr<crypto::SecretBytes> seed = HararySeed(Fill(2));
  ASSERT_TRUE(seed.ok());
  EXPECT_EQ(ToHex(seed->span()),
            "1202e380806c51247c3fa2ea0196d7a10956bdf6e6a0f3c3c155420a8ca507e8");
}

TEST(SecAggDerivationTest, PairwiseSeedIsSymmetricAndBoundToSession) {
  const crypto::X25519PrivateKey a = crypto::X25519PrivateKey::Generate().value();
  const crypto::X25519PrivateKey b = crypto::X25519PrivateKey::Generate().value();
  const crypto::SecretBytes ab = PairwiseMaskSeed(a, 3, b.public_key(), 8, Fill(1)).value();
  const crypto::SecretBytes ba = PairwiseMaskSeed(b, 8, a.public_key(), 3, Fill(1)).value();
  EXPECT_EQ(ab, ba);
  EXPECT_NE(ab, PairwiseMaskSeed(b, 8, a.public_key(), 3, Fill(2)).value());  // other session
  EXPECT_NE(ab, PairwiseMaskSeed(b, 9, a.public_key(), 3, Fill(1)).value());  // other ids
  EXPECT_THAT(PairwiseMaskSeed(a, 3, a.public_key(), 3, Fill(1)).status().message(),
              HasSubstr("with itself"));
}

TEST(SecAggDerivationTest, ShareChannelBindsSessionSenderAndReceiver) {
  const crypto::X25519PrivateKey a = crypto::X25519PrivateKey::Generate().value();
  const crypto::X25519PrivateKey b = crypto::X25519PrivateKey::Generate().value();
  const crypto::Aes256Gcm from_a = ShareChannel(a, 3, b.public_key(), 8, Fill(1)).value();
  const crypto::Aes256Gcm at_b = ShareChannel(b, 8, a.public_key(), 3, Fill(1)).value();
  const std::vector<uint8_t> plaintext = {1, 2, 3};
  const std::vector<uint8_t> ct =
      from_a.Encrypt(plaintext, ShareAssociatedData(Fill(1), 3, 8)).value();
  EXPECT_EQ(at_b.Decrypt(ct, ShareAssociatedData(Fill(1), 3, 8)).value().span(),
            absl::MakeConstSpan(plaintext));
  EXPECT_FALSE(at_b.Decrypt(ct, ShareAssociatedData(Fill(1), 8, 3)).ok());  // direction
  EXPECT_FALSE(at_b.Decrypt(ct, ShareAssociatedData(Fill(2), 3, 8)).ok());  // session
  const crypto::Aes256Gcm other_session = ShareChannel(b, 8, a.public_key(), 3, Fill(2)).value();
  EXPECT_FALSE(other_session.Decrypt(ct, ShareAssociatedData(Fill(1), 3, 8)).ok());
}

TEST(SecAggDerivationTest, ShareAssociatedDataLayout) {
  EXPECT_EQ(ToHex(ShareAssociatedData(Fill(0xaa), 0x01020304, 5)),
            std::string(64, 'a') + "04030201" + "05000000");
}

TEST(SecAggDerivationTest, SharePayloadRoundTripAndIdCheck) {
  auto filled = [](size_t size, uint8_t value) {
    return crypto::SecretBytes(std::vector<uint8_t>(size, value));
  };
  const SharePayload shares{.key_share = filled(40, 7),
                            .self_mask_share = filled(40, 9),
                            .key_share_salt = filled(32, 0x11),
                            .self_mask_share_salt = filled(32, 0x22)};
  const crypto::SecretBytes payload = EncodeSharePayload(2, 6, shares);
  ASSERT_EQ(payload.size(), kSharePayloadSize);
  EXPECT_EQ(ToHex(payload.span().subspan(0, 8)), "0200000006000000");
  // The layout: ids, key share, b share, then the two salts in the same order.
  EXPECT_EQ(ToHex(payload.span().subspan(88, 64)), std::string(64, '1') + std::string(64, '2'));
  const absl::StatusOr<SharePayload> decoded = DecodeSharePayload(payload, 2, 6);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->key_share, shares.key_share);
  EXPECT_EQ(decoded->self_mask_share, shares.self_mask_share);
  EXPECT_EQ(decoded->key_share_salt, shares.key_share_salt);
  EXPECT_EQ(decoded->self_mask_share_salt, shares.self_mask_share_salt);
  EXPECT_THAT(DecodeSharePayload(payload, 2, 7).status().message(),
              HasSubstr("from client 2 to 7 names 2 -> 6"));
  EXPECT_THAT(DecodeSharePayload(crypto::SecretBytes(5), 2, 6).status().message(),
              HasSubstr("is 5 bytes, need 152"));
}

// The commitment's layout, written out here, and its binding: every input changes it.
TEST(SecAggDerivationTest, ShareCommitmentLayoutAndBinding) {
  const std::vector<uint8_t> share(40, 7), salt(32, 9);
  const absl::StatusOr<Commitment> c =
      ShareCommitment(Fill(0xaa), 3, 8, SharedSecret::kSelfMask, share, salt);
  ASSERT_TRUE(c.ok());
  std::vector<uint8_t> input;
  const std::string label = "fedmf/secagg/v1/share-commitment";
  input.insert(input.end(), label.begin(), label.end());
  input.insert(input.end(), 32, 0xaa);
  for (uint8_t b : {3, 0, 0, 0, 8, 0, 0, 0, 2}) input.push_back(b);
  input.insert(input.end(), share.begin(), share.end());
  input.insert(input.end(), salt.begin(), salt.end());
  Sha256 hash;
  hash.Update(input);
  EXPECT_EQ(*c, hash.Finish().value());
  std::vector<uint8_t> other_share = share, other_salt = salt;
  other_share[39] ^= 1;
  other_salt[0] ^= 1;
  for (const absl::StatusOr<Commitment>& other :
       {ShareCommitment(Fill(0xab), 3, 8, SharedSecret::kSelfMask, share, salt),
        ShareCommitment(Fill(0xaa), 8, 3, SharedSecret::kSelfMask, share, salt),
        ShareCommitment(Fill(0xaa), 3, 8, SharedSecret::kMaskingKey, share, salt),
        ShareCommitment(Fill(0xaa), 3, 8, SharedSecret::kSelfMask, other_share, salt),
        ShareCommitment(Fill(0xaa), 3, 8, SharedSecret::kSelfMask, share, other_salt)}) {
    ASSERT_TRUE(other.ok());
    EXPECT_NE(*other, *c);
  }
}

TEST(SecAggDerivationTest, SignedMessageLayouts) {
  const std::vector<uint32_t> survivors = {1, 258};
  EXPECT_EQ(ToHex(SurvivorListMessage(Fill(0xbb), survivors)),
            std::string("6665646d662f7365636167672f76312f7375727669766f7273") +
                std::string(64, 'b') + "02000000" + "01000000" + "02010000");
  const std::vector<uint8_t> ad = AdvertisementMessage(Fill(1), 7, Fill(2), Fill(3), Fill(4));
  auto repeat = [](const char* byte) {
    std::string out;
    for (int i = 0; i < 32; ++i) out += byte;
    return out;
  };
  EXPECT_EQ(ToHex(ad), std::string("6665646d662f7365636167672f76312f616476657274697365") +
                           repeat("01") + "07000000" + repeat("02") + repeat("03") + repeat("04"));
}

// SHA-256(label || config digest || u32 id || b), recomputed from the layout.
TEST(SecAggDerivationTest, SelfMaskCommitmentLayout) {
  const std::vector<uint8_t> b(32, 0x5a);
  Sha256 hash;
  hash.Update(absl::string_view("fedmf/secagg/v1/self-mask-commitment"));
  hash.Update(Fill(9));
  hash.Update(std::vector<uint8_t>{0x07, 0x01, 0x00, 0x00});  // 263
  hash.Update(b);
  const std::array<uint8_t, 32> expected = hash.Finish().value();
  EXPECT_EQ(SelfMaskCommitment(Fill(9), 263, b).value(), expected);
  EXPECT_NE(SelfMaskCommitment(Fill(9), 262, b).value(), expected);
}

}  // namespace
}  // namespace fedmf::secagg
