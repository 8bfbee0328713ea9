#include "crypto/prg.h"

#include <openssl/evp.h>

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::crypto {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

const std::vector<uint8_t> kZeroSeed(32, 0);

std::vector<uint8_t> CountingSeed(uint8_t first) {
  std::vector<uint8_t> seed(32);
  for (int i = 0; i < 32; ++i) seed[i] = static_cast<uint8_t>(first + i);
  return seed;
}

std::vector<uint64_t> Expand(const std::vector<uint8_t>& seed, int bits, size_t d) {
  absl::StatusOr<std::vector<uint64_t>> v = ExpandMask(seed, bits, d);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<uint64_t>();
}

// With the all-zero seed the keystream is AES-256_0(0) || AES-256_0(1) || AES-256_0(2) =
//   dc95c078a2408989ad48a21492842087  (H of GCM spec test case 13)
//   530f8afbc74536b9a963b4f1c4cb738b  (E(K, Y0): the tag of test case 13)
//   cea7403d4d606b6e074ec5d3baf39d18  (E(K, Y1): the ciphertext of test case 14)
// Values below are slices of that keystream read as a little-endian integer (by hand for 1, 8,
// 12, 32 and 64 bits; with Python integers for 20 and 62).
TEST(PrgTest, KnownAnswersFromZeroSeed) {
  EXPECT_THAT(Expand(kZeroSeed, 1, 16),
              ElementsAre(0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 0, 1));
  EXPECT_THAT(Expand(kZeroSeed, 8, 4), ElementsAre(0xdc, 0x95, 0xc0, 0x78));
  EXPECT_THAT(Expand(kZeroSeed, 12, 4), ElementsAre(0x5dc, 0xc09, 0x278, 0x40a));
  EXPECT_THAT(Expand(kZeroSeed, 20, 8),
              ElementsAre(0x95dc, 0xa278c, 0x98940, 0x48ad8, 0x214a2, 0x20849, 0xf5387, 0xfb8a0));
  EXPECT_THAT(Expand(kZeroSeed, 32, 4),
              ElementsAre(0x78c095dc, 0x898940a2, 0x14a248ad, 0x87208492));
  EXPECT_THAT(Expand(kZeroSeed, 62, 6),
              ElementsAre(0x098940a278c095dc, 0x1c821248528922b6, 0x13645c7fb8a0f538,
                          0x1cf2f13c6d18ea6e, 0x2b604d3d40a7ce8b, 0x37ceeb4f15381db9));
  EXPECT_THAT(Expand(kZeroSeed, 64, 5),
              ElementsAre(0x898940a278c095dc, 0x8720849214a248ad, 0xb93645c7fb8a0f53,
                          0x8b73cbc4f1b463a9, 0x6e6b604d3d40a7ce));
}

TEST(PrgTest, UniformModKnownAnswersFromZeroSeed) {
  // q = 10: 4-bit candidates, low nibble first: c d 5 9 0 c 8 7 2 a 0 4 9 8 9 8 -> keep those < 10.
  absl::StatusOr<std::vector<uint64_t>> mod10 = ExpandUniformMod(kZeroSeed, 10, 12);
  ASSERT_TRUE(mod10.ok());
  EXPECT_THAT(*mod10, ElementsAre(5, 9, 0, 8, 7, 2, 0, 4, 9, 8, 9, 8));
  // q = 3: 2-bit candidates of dc 95 c0 78: 0 3 1 3 | 1 1 1 2 | 0 0 0 3 | 0 2 3 1 -> drop the 3s.
  absl::StatusOr<std::vector<uint64_t>> mod3 = ExpandUniformMod(kZeroSeed, 3, 12);
  ASSERT_TRUE(mod3.ok());
  EXPECT_THAT(*mod3, ElementsAre(0, 1, 1, 1, 1, 2, 0, 0, 0, 0, 2, 1));
}

// The keystream straight from OpenSSL AES-256-CTR (counter block 0) and the bit-slicing rule
// applied one bit at a time: an independent reference for long outputs that cross the PRG's
// internal keystream chunks, for every width.
std::vector<uint64_t> Reference(const std::vector<uint8_t>& seed, int bits, size_t d) {
  const size_t bytes = (d * bits + 7) / 8;
  std::vector<uint8_t> zeros(bytes, 0), ks(bytes);
  const uint8_t iv[16] = {};
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  int len = 0;
  EXPECT_EQ(EVP_EncryptInit_ex(ctx, EVP_aes_256_ctr(), nullptr, seed.data(), iv), 1);
  EXPECT_EQ(EVP_EncryptUpdate(ctx, ks.data(), &len, zeros.data(), static_cast<int>(bytes)), 1);
  EVP_CIPHER_CTX_free(ctx);
  std::vector<uint64_t> out(d);
  for (size_t i = 0; i < d; ++i) {
    for (int k = 0; k < bits; ++k) {
      const size_t bit = i * bits + k;
      out[i] |= static_cast<uint64_t>((ks[bit / 8] >> (bit % 8)) & 1) << k;
    }
  }
  return out;
}

TEST(PrgTest, LongOutputsMatchReferenceForEveryWidth) {
  const std::vector<uint8_t> seed = CountingSeed(0x40);
  for (int bits = 1; bits <= 64; ++bits) {
    // 16384 keystream bytes per internal chunk: this d spans more than one chunk, and is not a
    // multiple of the 8-value group.
    const size_t d = 16384 * 8 / bits + 13;
    ASSERT_EQ(Expand(seed, bits, d), Reference(seed, bits, d)) << "bits=" << bits;
  }
}

TEST(PrgTest, DeterministicAndPrefixConsistent) {
  const std::vector<uint8_t> seed = CountingSeed(1);
  const std::vector<uint64_t> a = Expand(seed, 20, 1000);
  EXPECT_EQ(a, Expand(seed, 20, 1000));
  const std::vector<uint64_t> prefix = Expand(seed, 20, 333);
  EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), a.begin()));
}

TEST(PrgTest, DifferentSeedsDiffer) {
  std::vector<uint8_t> other = CountingSeed(1);
  other[31] ^= 1;
  // Equal outputs would mean 64 equal 32-bit values: probability 2^-2048 for independent seeds.
  EXPECT_NE(Expand(CountingSeed(1), 32, 64), Expand(other, 32, 64));
}

TEST(PrgTest, ReusedExpanderMatchesFreshOnes) {
  absl::StatusOr<AesCtrPrg> prg = AesCtrPrg::Create();
  ASSERT_TRUE(prg.ok());
  for (uint8_t s = 0; s < 4; ++s) {
    std::vector<uint64_t> out(500);
    ASSERT_TRUE(prg->Expand(CountingSeed(s), 17 + s, absl::MakeSpan(out)).ok());
    EXPECT_EQ(out, Expand(CountingSeed(s), 17 + s, 500));
  }
}

TEST(PrgTest, AddMaskAddsAndSubtractCancels) {
  const std::vector<uint8_t> seed = CountingSeed(9);
  for (int bits : {1, 13, 32, 56, 61, 64}) {
    const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    const std::vector<uint64_t> m = Expand(seed, bits, 1003);
    std::vector<uint64_t> acc(1003), original(1003);
    for (size_t i = 0; i < acc.size(); ++i) acc[i] = original[i] = i * 0x9e3779b97f4a7c15u;
    ASSERT_TRUE(AddMask(seed, bits, MaskOp::kAdd, absl::MakeSpan(acc)).ok());
    for (size_t i = 0; i < acc.size(); ++i) {
      ASSERT_EQ(acc[i], (original[i] + m[i]) & mask) << bits << " " << i;
    }
    ASSERT_TRUE(AddMask(seed, bits, MaskOp::kSubtract, absl::MakeSpan(acc)).ok());
    for (size_t i = 0; i < acc.size(); ++i) ASSERT_EQ(acc[i], original[i] & mask);
  }
}

TEST(PrgTest, ThirtyTwoBitWordsGiveTheSameValues) {
  const std::vector<uint8_t> seed = CountingSeed(11);
  absl::StatusOr<AesCtrPrg> prg = AesCtrPrg::Create();
  ASSERT_TRUE(prg.ok());
  for (int bits : {1, 20, 31, 32}) {
    const uint32_t mask = static_cast<uint32_t>((uint64_t{1} << bits) - 1);
    const std::vector<uint64_t> m = Expand(seed, bits, 20011);  // crosses keystream chunks
    std::vector<uint32_t> out(m.size());
    ASSERT_TRUE(prg->Expand(seed, bits, absl::MakeSpan(out)).ok());
    std::vector<uint32_t> acc(m.size());
    for (size_t i = 0; i < acc.size(); ++i) acc[i] = static_cast<uint32_t>(i * 2654435761u);
    const std::vector<uint32_t> original = acc;
    ASSERT_TRUE(AddMask(seed, bits, MaskOp::kAdd, absl::MakeSpan(acc)).ok());
    for (size_t i = 0; i < m.size(); ++i) {
      ASSERT_EQ(out[i], m[i]) << bits << " " << i;
      ASSERT_EQ(acc[i], (original[i] + static_cast<uint32_t>(m[i])) & mask) << bits << " " << i;
    }
    ASSERT_TRUE(prg->AddMask(seed, bits, MaskOp::kSubtract, absl::MakeSpan(acc)).ok());
    for (size_t i = 0; i < m.size(); ++i) ASSERT_EQ(acc[i], original[i] & mask);
  }
}

// Pearson chi-square of counts against equal expected counts.
double ChiSquare(const std::vector<uint64_t>& values, uint64_t bins) {
  std::vector<double> counts(bins, 0);
  for (uint64_t v : values) counts[v] += 1;
  const double expected = static_cast<double>(values.size()) / bins;
  double chi2 = 0;
  for (double c : counts) chi2 += (c - expected) * (c - expected) / expected;
  return chi2;
}

// At a fixed seed; critical values of the chi-square distribution at significance 1e-3:
// 10.83 (1 degree of freedom), 37.70 (15), 330.52 (255).
TEST(PrgTest, SmallWidthsAreUniform) {
  EXPECT_LT(ChiSquare(Expand(CountingSeed(3), 1, 100000), 2), 10.83);
  EXPECT_LT(ChiSquare(Expand(CountingSeed(3), 4, 160000), 16), 37.70);
  EXPECT_LT(ChiSquare(Expand(CountingSeed(3), 8, 256000), 256), 330.52);
}

// Critical values at significance 1e-3: 13.82 (2 degrees of freedom), 27.88 (9).
TEST(PrgTest, UniformModIsUniformAndInRange) {
  for (uint64_t q : {3, 10}) {
    absl::StatusOr<std::vector<uint64_t>> v = ExpandUniformMod(CountingSeed(5), q, 100000);
    ASSERT_TRUE(v.ok());
    for (uint64_t x : *v) ASSERT_LT(x, q);
    EXPECT_LT(ChiSquare(*v, q), q == 3 ? 13.82 : 27.88) << q;
  }
  for (uint64_t q : {uint64_t{2}, uint64_t{1000003}, (uint64_t{1} << 61) - 1, ~uint64_t{0}}) {
    absl::StatusOr<std::vector<uint64_t>> v = ExpandUniformMod(CountingSeed(6), q, 50000);
    ASSERT_TRUE(v.ok());
    for (uint64_t x : *v) ASSERT_LT(x, q) << q;
  }
}

TEST(PrgTest, UniformModPowerOfTwoEqualsMask) {
  for (int bits : {1, 7, 32, 63}) {
    absl::StatusOr<std::vector<uint64_t>> v =
        ExpandUniformMod(CountingSeed(2), uint64_t{1} << bits, 20000);
    ASSERT_TRUE(v.ok());
    EXPECT_THAT(*v, ElementsAreArray(Expand(CountingSeed(2), bits, 20000))) << bits;
  }
}

TEST(PrgTest, EmptyOutputIsFine) {
  EXPECT_TRUE(Expand(kZeroSeed, 32, 0).empty());
  EXPECT_TRUE(AddMask(kZeroSeed, 32, MaskOp::kAdd, absl::Span<uint64_t>()).ok());
}

TEST(PrgTest, RejectsBadArguments) {
  std::vector<uint64_t> out(4);
  for (size_t size : {0, 16, 31, 33}) {
    const std::vector<uint8_t> seed(size, 1);
    EXPECT_EQ(ExpandMask(seed, 32, 4).status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(AddMask(seed, 32, MaskOp::kAdd, absl::MakeSpan(out)).code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(ExpandUniformMod(seed, 10, 4).status().code(), absl::StatusCode::kInvalidArgument);
  }
  for (int bits : {-1, 0, 65}) {
    EXPECT_EQ(ExpandMask(kZeroSeed, bits, 4).status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(AddMask(kZeroSeed, bits, MaskOp::kSubtract, absl::MakeSpan(out)).code(),
              absl::StatusCode::kInvalidArgument);
  }
  std::vector<uint32_t> out32(4);
  EXPECT_EQ(AddMask(kZeroSeed, 33, MaskOp::kAdd, absl::MakeSpan(out32)).code(),
            absl::StatusCode::kInvalidArgument);
  for (uint64_t q : {0, 1}) {
    EXPECT_EQ(ExpandUniformMod(kZeroSeed, q, 4).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace fedmf::crypto
