#include "crypto/csprng.h"

#include <bit>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace fedmf::crypto {
namespace {

TEST(CsprngTest, EmptyRequestSucceeds) { EXPECT_TRUE(RandomBytes({}).ok()); }

TEST(CsprngTest, TwoDrawsDiffer) {
  // Equal 32-byte draws have probability 2^-256.
  absl::StatusOr<SecretBytes> a = RandomSecretBytes(32);
  absl::StatusOr<SecretBytes> b = RandomSecretBytes(32);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), 32u);
  EXPECT_FALSE(*a == *b);
}

TEST(CsprngTest, BitsAreBalanced) {
  // 2^23 bits: the count of ones is Binomial(N, 1/2) with sd = sqrt(N)/2 = 1448.2. Bound at
  // 6 sd (two-sided tail probability 2e-9).
  std::vector<uint8_t> buf(1 << 20);
  ASSERT_TRUE(RandomBytes(absl::MakeSpan(buf)).ok());
  int64_t ones = 0;
  for (uint8_t b : buf) ones += std::popcount(b);
  const double n = 8.0 * buf.size();
  EXPECT_NEAR(static_cast<double>(ones), n / 2, 6 * 1448.2);
}

TEST(CsprngTest, FillsEveryPosition) {
  // Every byte of a 4096-byte buffer pre-filled with 0 is overwritten: each stays 0 with
  // probability 1/256, so the number of zeros is Binomial(4096, 1/256), mean 16, sd ~4; 60 is
  // > 10 sd above the mean, and a buffer left untouched would have 4096.
  std::vector<uint8_t> buf(4096, 0);
  ASSERT_TRUE(RandomBytes(absl::MakeSpan(buf)).ok());
  int zeros = 0;
  for (uint8_t b : buf) zeros += (b == 0);
  EXPECT_LT(zeros, 60);
}

}  // namespace
}  // namespace fedmf::crypto
