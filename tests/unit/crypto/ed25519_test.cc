#include "crypto/ed25519.h"

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/hex.h"

namespace fedmf::crypto {
namespace {

using test_util::Hex;
using test_util::ToHex;
using ::testing::HasSubstr;

struct RfcVector {
  const char* name;
  const char* secret_key;
  const char* public_key;
  const char* message;
  const char* signature;
};

// RFC 8032 section 7.1, Ed25519 TEST 1, TEST 2 and TEST 3.
const RfcVector kRfc8032Vectors[] = {
    {"TEST 1", "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
     "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
    {"TEST 2", "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
     "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
    {"TEST 3", "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
     "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"},
};

TEST(Ed25519Test, Rfc8032KeysAndSignatures) {
  for (const RfcVector& v : kRfc8032Vectors) {
    SCOPED_TRACE(v.name);
    absl::StatusOr<Ed25519PrivateKey> key = Ed25519PrivateKey::FromSeed(Hex(v.secret_key));
    ASSERT_TRUE(key.ok()) << key.status();
    EXPECT_EQ(ToHex(key->public_key().bytes()), v.public_key);
    absl::StatusOr<Ed25519Signature> sig = key->Sign(Hex(v.message));
    ASSERT_TRUE(sig.ok()) << sig.status();
    EXPECT_EQ(ToHex(*sig), v.signature);
  }
}

TEST(Ed25519Test, Rfc8032SignaturesVerify) {
  for (const RfcVector& v : kRfc8032Vectors) {
    SCOPED_TRACE(v.name);
    absl::StatusOr<Ed25519PublicKey> pub = Ed25519PublicKey::FromBytes(Hex(v.public_key));
    ASSERT_TRUE(pub.ok());
    EXPECT_TRUE(pub->Verify(Hex(v.message), Hex(v.signature)).ok());
  }
}

TEST(Ed25519Test, RejectsModifiedMessageOrSignature) {
  const RfcVector& v = kRfc8032Vectors[2];
  absl::StatusOr<Ed25519PublicKey> pub = Ed25519PublicKey::FromBytes(Hex(v.public_key));
  ASSERT_TRUE(pub.ok());
  std::vector<uint8_t> msg = Hex(v.message);
  msg[0] ^= 1;
  absl::Status s = pub->Verify(msg, Hex(v.signature));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("does not verify"));
  const std::vector<uint8_t> good = Hex(v.signature);
  for (size_t i = 0; i < good.size(); ++i) {
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0x10;
    EXPECT_EQ(pub->Verify(Hex(v.message), bad).code(), absl::StatusCode::kInvalidArgument) << i;
  }
}

TEST(Ed25519Test, RejectsSignatureUnderAnotherKey) {
  absl::StatusOr<Ed25519PublicKey> other =
      Ed25519PublicKey::FromBytes(Hex(kRfc8032Vectors[1].public_key));
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(
      other->Verify(Hex(kRfc8032Vectors[2].message), Hex(kRfc8032Vectors[2].signature)).ok());
}

TEST(Ed25519Test, RejectsBadSignatureLength) {
  absl::StatusOr<Ed25519PublicKey> pub =
      Ed25519PublicKey::FromBytes(Hex(kRfc8032Vectors[0].public_key));
  ASSERT_TRUE(pub.ok());
  const std::vector<uint8_t> sig = Hex(kRfc8032Vectors[0].signature);
  for (size_t size : {0, 32, 63, 65, 128}) {
    std::vector<uint8_t> bad(size, 0);
    std::copy_n(sig.begin(), std::min(size, sig.size()), bad.begin());
    absl::Status s = pub->Verify({}, bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << size;
    EXPECT_THAT(s.message(), HasSubstr("bytes, need 64")) << size;
  }
}

TEST(Ed25519Test, RejectsBadKeys) {
  for (size_t size : {0, 31, 33}) {
    EXPECT_EQ(Ed25519PublicKey::FromBytes(std::vector<uint8_t>(size, 1)).status().code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(Ed25519PrivateKey::FromSeed(std::vector<uint8_t>(size, 1)).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
  // y = 2 is not the y-coordinate of any point: x^2 = (y^2 - 1) / (d y^2 + 1) = 3 / (4d + 1) is
  // not a square mod 2^255 - 19 (checked with RFC 8032's recover_x), so no signature verifies.
  absl::StatusOr<Ed25519PublicKey> off_curve = Ed25519PublicKey::FromBytes(
      Hex("0200000000000000000000000000000000000000000000000000000000000000"));
  ASSERT_TRUE(off_curve.ok());
  EXPECT_EQ(off_curve->Verify({}, Hex(kRfc8032Vectors[0].signature)).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(Ed25519Test, GeneratedKeySignsAndVerifies) {
  absl::StatusOr<Ed25519PrivateKey> key = Ed25519PrivateKey::Generate();
  ASSERT_TRUE(key.ok());
  const std::vector<uint8_t> msg = {'s', 'e', 's', 's', 'i', 'o', 'n'};
  absl::StatusOr<Ed25519Signature> sig = key->Sign(msg);
  ASSERT_TRUE(sig.ok());
  EXPECT_TRUE(key->public_key().Verify(msg, *sig).ok());
  absl::StatusOr<Ed25519PrivateKey> again = Ed25519PrivateKey::FromSeed(key->seed());
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->public_key() == key->public_key());
}

}  // namespace
}  // namespace fedmf::crypto
