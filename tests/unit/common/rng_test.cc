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

// Stream 1 of seed 0 is the key 00^8 01 00^23; its first keystream block, from
// `openssl enc -aes-256-ctr -K 0000000000000000010000000000000000000000000000000000000000000000
// -iv 0 -nopad` on 16 zero bytes, is 74dbea15e2e9285b ad163d7d534251b6.
TEST(RngTest, StreamIsTheSecondEightKeyBytes) {
  Rng rng(0, 1);
  EXPECT_EQ(rng(), 0x5b28e9e215eadb74ULL);  // bytes 74 db ea 15 e2 e9 28 5b, little-endian
  EXPECT_EQ(rng(), 0xb65142537d3d16adULL);  // bytes ad 16 3d 7d 53 42 51 b6
}

TEST(RngTest, StreamZeroIsTheSeedAloneAndStreamsDiffer) {
  Rng plain(9), stream0(9, 0), stream1(9, 1), swapped(1, 9);
  bool differs1 = false, differs_swapped = false;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = plain();
    EXPECT_EQ(x, stream0());
    const uint64_t y = stream1();
    differs1 |= x != y;
    differs_swapped |= y != swapped();  // (9, 1) and (1, 9) are different keys
  }
  EXPECT_TRUE(differs1);
  EXPECT_TRUE(differs_swapped);
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
