#include "common/dp/rng.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace fedmf::dp {
namespace {

// Seed 0 is the all-zero AES-256 key, whose first keystream block E(0^256, 0^128) is the GCM
// specification's test case 13 hash key H = dc95c078a2408989 ad48a21492842087.
TEST(RngTest, SeedZeroIsTheZeroKeyAesCtrKeystream) {
  Rng rng(0);
  EXPECT_EQ(rng(), 0x898940a278c095dcULL);  // bytes dc 95 c0 78 a2 40 89 89, little-endian
  EXPECT_EQ(rng(), 0x8720849214a248adULL);  // bytes ad 48 a2 14 92 84 20 87
}

TEST(RngTest, SequenceContinuesAcrossKeystreamRefills) {
  // Word 512 is the first of the second AES call; it must continue the stream, not restart it.
  Rng a(3), b(3);
  std::vector<uint64_t> first(1030);
  for (uint64_t& w : first) w = a();
  EXPECT_NE(first[512], first[0]);
  for (uint64_t w : first) EXPECT_EQ(w, b());
}

TEST(RngTest, SameSeedSameSequenceDifferentSeedDifferentSequence) {
  Rng a(7), b(7), c(8);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a();
    EXPECT_EQ(x, b());
    differs |= x != c();
  }
  EXPECT_TRUE(differs);
}

TEST(RngTest, MovedRngContinuesTheSequence) {
  Rng a(11), reference(11);
  a();
  reference();
  Rng moved = std::move(a);
  EXPECT_EQ(moved(), reference());
}

// Two 256-bit OS seeds collide with probability 2^-256.
TEST(RngTest, OsEntropySeedsDiffer) {
  absl::StatusOr<Rng> a = Rng::FromOsEntropy();
  absl::StatusOr<Rng> b = Rng::FromOsEntropy();
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_NE((*a)(), (*b)());
}

}  // namespace
}  // namespace fedmf::dp
