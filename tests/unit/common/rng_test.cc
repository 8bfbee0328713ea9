#include "common/dp/rng.h"

#include <cstdint>
#include <utility>

#include "gtest/gtest.h"

namespace fedmf::dp {
namespace {

// The C++ standard ([rand.predef]) fixes the 10000th output of mt19937_64 seeded with 5489.
TEST(RngTest, MatchesStandardMt19937_64Sequence) {
  Rng rng(5489);
  for (int i = 0; i < 9999; ++i) rng();
  EXPECT_EQ(rng(), 9981545732273789042ULL);
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
