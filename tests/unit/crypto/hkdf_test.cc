#include "crypto/hkdf.h"

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

std::vector<uint8_t> Range(int first, int last) {  // first..last inclusive
  std::vector<uint8_t> v;
  for (int i = first; i <= last; ++i) v.push_back(static_cast<uint8_t>(i));
  return v;
}

struct RfcCase {
  std::vector<uint8_t> ikm, salt, info;
  const char* prk;
  const char* okm;
};

// RFC 5869 appendix A.1-A.3 (the SHA-256 cases).
std::vector<RfcCase> Rfc5869Cases() {
  return {
      {std::vector<uint8_t>(22, 0x0b), Range(0x00, 0x0c), Range(0xf0, 0xf9),
       "077709362c2e32df0ddc3f0dc47bba63 90b6c73bb50f9c3122ec844ad7c2b3e5",
       "3cb25f25faacd57a90434f64d0362f2a 2d2d0a90cf1a5a4c5db02d56ecc4c5bf 34007208d5b887185865"},
      {Range(0x00, 0x4f), Range(0x60, 0xaf), Range(0xb0, 0xff),
       "06a6b88c5853361a06104c9ceb35b45c ef760014904671014a193f40c15fc244",
       "b11e398dc80327a1c8e7f78c596a4934 4f012eda2d4efad8a050cc4c19afa97c"
       "59045a99cac7827271cb41c65e590e09 da3275600c2f09b8367793a9aca3db71"
       "cc30c58179ec3e87c14c01d5c1f3434f 1d87"},
      {std::vector<uint8_t>(22, 0x0b),
       {},
       {},
       "19ef24a32c717b167f33a91d6f648bdf 96596776afdb6377ac434c1c293ccb04",
       "8da4e775a563c18f715f802a063c5a31 b8a11f5c5ee1879ec3454e5f3c738d2d 9d201395faa4b61a96c8"},
  };
}

TEST(HkdfTest, Rfc5869ExtractAndExpand) {
  int n = 0;
  for (const RfcCase& c : Rfc5869Cases()) {
    SCOPED_TRACE(++n);
    const std::vector<uint8_t> okm = Hex(c.okm);
    absl::StatusOr<SecretBytes> out = HkdfSha256(c.ikm, c.salt, c.info, okm.size());
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(ToHex(*out), ToHex(okm));
  }
}

TEST(HkdfTest, Rfc5869SeparateSteps) {
  int n = 0;
  for (const RfcCase& c : Rfc5869Cases()) {
    SCOPED_TRACE(++n);
    absl::StatusOr<SecretBytes> prk = HkdfSha256Extract(c.ikm, c.salt);
    ASSERT_TRUE(prk.ok()) << prk.status();
    EXPECT_EQ(ToHex(*prk), ToHex(Hex(c.prk)));
    const std::vector<uint8_t> okm = Hex(c.okm);
    absl::StatusOr<SecretBytes> out = HkdfSha256Expand(*prk, c.info, okm.size());
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(ToHex(*out), ToHex(okm));
  }
}

TEST(HkdfTest, EmptySaltEqualsHashLenZeros) {
  // RFC 5869 section 2.2: "if not provided, [salt] is set to a string of HashLen zeros".
  const std::vector<uint8_t> ikm(22, 0x0b);
  absl::StatusOr<SecretBytes> a = HkdfSha256(ikm, {}, {}, 42);
  absl::StatusOr<SecretBytes> b = HkdfSha256(ikm, std::vector<uint8_t>(32, 0), {}, 42);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(*a == *b);
}

TEST(HkdfTest, InfoSeparatesOutputs) {
  const std::vector<uint8_t> ikm(32, 7), salt = {1, 2, 3};
  const std::vector<uint8_t> info_a = {'a'}, info_b = {'b'};
  absl::StatusOr<SecretBytes> a = HkdfSha256(ikm, salt, info_a, 32);
  absl::StatusOr<SecretBytes> b = HkdfSha256(ikm, salt, info_b, 32);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(*a == *b);
}

TEST(HkdfTest, MaximumOutputSizeWorks) {
  absl::StatusOr<SecretBytes> out = HkdfSha256(std::vector<uint8_t>(32, 1), {}, {}, 255 * 32);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->size(), 8160u);
}

TEST(HkdfTest, RejectsBadSizes) {
  const std::vector<uint8_t> ikm(32, 1);
  EXPECT_EQ(HkdfSha256(ikm, {}, {}, 0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HkdfSha256(ikm, {}, {}, 8161).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HkdfSha256({}, {}, {}, 32).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HkdfSha256Extract({}, {}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HkdfSha256Expand(std::vector<uint8_t>(31, 1), {}, 32).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HkdfSha256Expand(ikm, {}, 8161).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::crypto
