#include "crypto/aead.h"

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

struct GcmVector {
  const char* name;
  const char* key;
  const char* nonce;
  const char* plaintext;
  const char* ad;
  const char* ciphertext;
  const char* tag;
};

// McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", appendix B, AES-256 test cases
// 13-16 (the ones with a 96-bit IV), and one AES-256 vector with associated data from NIST CAVP
// gcmEncryptExtIV256.rsp.
const GcmVector kGcmVectors[] = {
    {"gcm-spec-13", "0000000000000000000000000000000000000000000000000000000000000000",
     "000000000000000000000000", "", "", "", "530f8afbc74536b9a963b4f1c4cb738b"},
    {"gcm-spec-14", "0000000000000000000000000000000000000000000000000000000000000000",
     "000000000000000000000000", "00000000000000000000000000000000", "",
     "cea7403d4d606b6e074ec5d3baf39d18", "d0d1c8a799996bf0265b98b5d48ab919"},
    {"gcm-spec-15", "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
     "cafebabefacedbaddecaf888",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
     "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
     "",
     "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
     "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
     "b094dac5d93471bdec1a502270e3cc6c"},
    {"gcm-spec-16", "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
     "cafebabefacedbaddecaf888",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
     "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
     "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
     "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
     "76fc6ece0f4e1768cddf8853bb2d551b"},
    {"cavp-256-ad", "83688deb4af8007f9b713b47cfa6c73e35ea7a3aa4ecdb414dded03bf7a0fd3a",
     "0b459724904e010a46901cf3", "33d893a2114ce06fc15d55e454cf90c3",
     "794a14ccd178c8ebfd1379dc704c5e208f9d8424", "cc66bee423e3fcd4c0865715e9586696",
     "0fb291bd3dba94a1dfd8b286cfb97ac5"},
};

// Our wire format for a vector: nonce || ciphertext || tag.
std::vector<uint8_t> Wire(const GcmVector& v) {
  return Hex(std::string(v.nonce) + v.ciphertext + v.tag);
}

Aes256Gcm MakeAead(absl::string_view key_hex) {
  absl::StatusOr<Aes256Gcm> aead = Aes256Gcm::Create(Hex(key_hex));
  EXPECT_TRUE(aead.ok()) << aead.status();
  return *std::move(aead);
}

// Decrypting the published nonce || C || T pins down the cipher, the nonce placement and the AD
// handling. Encrypt picks its own nonce, so it is pinned by the round trip below: Decrypt is
// known to be GCM, and only a correct GCM encryption of (P, AD) under K authenticates.
TEST(Aes256GcmTest, DecryptsPublishedVectors) {
  for (const GcmVector& v : kGcmVectors) {
    SCOPED_TRACE(v.name);
    absl::StatusOr<SecretBytes> pt = MakeAead(v.key).Decrypt(Wire(v), Hex(v.ad));
    ASSERT_TRUE(pt.ok()) << pt.status();
    EXPECT_EQ(ToHex(*pt), v.plaintext);
  }
}

TEST(Aes256GcmTest, EncryptRoundTripsWithFreshNonce) {
  for (const GcmVector& v : kGcmVectors) {
    SCOPED_TRACE(v.name);
    const Aes256Gcm aead = MakeAead(v.key);
    const std::vector<uint8_t> pt = Hex(v.plaintext), ad = Hex(v.ad);
    absl::StatusOr<std::vector<uint8_t>> a = aead.Encrypt(pt, ad);
    absl::StatusOr<std::vector<uint8_t>> b = aead.Encrypt(pt, ad);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->size(), pt.size() + Aes256Gcm::kOverhead);
    // Nonces are random: two encryptions differ (probability 2^-96 of a collision).
    EXPECT_NE(std::vector<uint8_t>(a->begin(), a->begin() + 12),
              std::vector<uint8_t>(b->begin(), b->begin() + 12));
    absl::StatusOr<SecretBytes> back = aead.Decrypt(*a, ad);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(ToHex(*back), v.plaintext);
  }
}

TEST(Aes256GcmTest, RejectsWrongKeySize) {
  for (size_t size : {0, 16, 31, 33, 64}) {
    absl::StatusOr<Aes256Gcm> aead = Aes256Gcm::Create(std::vector<uint8_t>(size, 1));
    EXPECT_EQ(aead.status().code(), absl::StatusCode::kInvalidArgument) << size;
  }
}

TEST(Aes256GcmTest, RejectsShortCiphertexts) {
  const Aes256Gcm aead = MakeAead(kGcmVectors[0].key);
  for (size_t size = 0; size < Aes256Gcm::kOverhead; ++size) {
    absl::StatusOr<SecretBytes> pt = aead.Decrypt(std::vector<uint8_t>(size, 0), {});
    EXPECT_EQ(pt.status().code(), absl::StatusCode::kInvalidArgument) << size;
    EXPECT_THAT(pt.status().message(), HasSubstr("shorter than"));
  }
}

TEST(Aes256GcmTest, RejectsEveryTamperedByte) {
  const GcmVector& v = kGcmVectors[4];
  const Aes256Gcm aead = MakeAead(v.key);
  const std::vector<uint8_t> good = Wire(v);
  for (size_t i = 0; i < good.size(); ++i) {  // nonce, ciphertext and tag bytes alike
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0x80;
    absl::StatusOr<SecretBytes> pt = aead.Decrypt(bad, Hex(v.ad));
    EXPECT_EQ(pt.status().code(), absl::StatusCode::kInvalidArgument) << i;
    EXPECT_THAT(pt.status().message(), HasSubstr("does not authenticate")) << i;
  }
}

TEST(Aes256GcmTest, RejectsWrongOrMissingAssociatedData) {
  const GcmVector& v = kGcmVectors[4];
  const Aes256Gcm aead = MakeAead(v.key);
  std::vector<uint8_t> ad = Hex(v.ad);
  EXPECT_FALSE(aead.Decrypt(Wire(v), {}).ok());
  ad.back() ^= 1;
  EXPECT_FALSE(aead.Decrypt(Wire(v), ad).ok());
  ad.back() ^= 1;
  ad.push_back(0);
  EXPECT_FALSE(aead.Decrypt(Wire(v), ad).ok());
}

TEST(Aes256GcmTest, RejectsWrongKey) {
  const GcmVector& v = kGcmVectors[3];
  std::vector<uint8_t> key = Hex(v.key);
  key[0] ^= 1;
  absl::StatusOr<Aes256Gcm> aead = Aes256Gcm::Create(key);
  ASSERT_TRUE(aead.ok());
  EXPECT_EQ(aead->Decrypt(Wire(v), Hex(v.ad)).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Aes256GcmTest, TruncatedCiphertextFails) {
  const GcmVector& v = kGcmVectors[3];
  std::vector<uint8_t> wire = Wire(v);
  wire.pop_back();
  EXPECT_FALSE(MakeAead(v.key).Decrypt(wire, Hex(v.ad)).ok());
}

}  // namespace
}  // namespace fedmf::crypto
