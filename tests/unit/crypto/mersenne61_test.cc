#include "crypto/mersenne61.h"

#include <cstdint>
#include <random>

#include "gtest/gtest.h"

namespace fedmf::crypto {
namespace {

constexpr uint64_t p = kMersenne61;

TEST(Mersenne61Test, ModulusIsTwoToThe61MinusOne) { EXPECT_EQ(p, 2305843009213693951u); }

TEST(Mersenne61Test, Reduce) {
  EXPECT_EQ(ReduceMersenne61(0), 0u);
  EXPECT_EQ(ReduceMersenne61(p), 0u);
  EXPECT_EQ(ReduceMersenne61(p + 5), 5u);
  // 2^64 - 1 = 8 * 2^61 - 1 = 8 - 1 (mod p).
  EXPECT_EQ(ReduceMersenne61(~uint64_t{0}), 7u);
}

TEST(Mersenne61Test, AddAndSubWrapAround) {
  EXPECT_EQ(AddModMersenne61(p - 1, 1), 0u);
  EXPECT_EQ(AddModMersenne61(p - 1, p - 1), p - 2);
  EXPECT_EQ(AddModMersenne61(2, 3), 5u);
  EXPECT_EQ(SubModMersenne61(0, 1), p - 1);
  EXPECT_EQ(SubModMersenne61(5, 3), 2u);
  EXPECT_EQ(SubModMersenne61(3, 3), 0u);
}

TEST(Mersenne61Test, Multiply) {
  EXPECT_EQ(MulModMersenne61(p - 1, p - 1), 1u);                           // (-1)^2
  EXPECT_EQ(MulModMersenne61(p - 1, 2), p - 2);                            // -2
  EXPECT_EQ(MulModMersenne61(uint64_t{1} << 60, 2), 1u);                   // 2^61 = 1
  EXPECT_EQ(MulModMersenne61(uint64_t{1} << 31, uint64_t{1} << 31), 2u);   // 2^62 = 2
  EXPECT_EQ(MulModMersenne61(123456789, 987654321), 121932631112635269u);  // below p
  EXPECT_EQ(MulModMersenne61(0, p - 1), 0u);
}

TEST(Mersenne61Test, PowerAndInverse) {
  EXPECT_EQ(PowModMersenne61(3, 0), 1u);
  EXPECT_EQ(PowModMersenne61(2, 61), 1u);
  EXPECT_EQ(PowModMersenne61(3, p - 1), 1u);  // Fermat
  EXPECT_EQ(InvModMersenne61(1), 1u);
  EXPECT_EQ(InvModMersenne61(2), uint64_t{1} << 60);
  EXPECT_EQ(InvModMersenne61(3), 1537228672809129301u);  // (2^62 - 1) / 3 = (2p + 1) / 3
  EXPECT_EQ(InvModMersenne61(p - 1), p - 1);
  EXPECT_EQ(InvModMersenne61(0), 0u);
}

TEST(Mersenne61Test, RandomInversesAndDistributivity) {
  std::mt19937_64 rng(61);
  std::uniform_int_distribution<uint64_t> element(0, p - 1);
  for (int i = 0; i < 2000; ++i) {
    const uint64_t a = element(rng), b = element(rng), c = element(rng);
    if (a != 0) {
      EXPECT_EQ(MulModMersenne61(a, InvModMersenne61(a)), 1u) << a;
    }
    EXPECT_EQ(MulModMersenne61(a, AddModMersenne61(b, c)),
              AddModMersenne61(MulModMersenne61(a, b), MulModMersenne61(a, c)));
    EXPECT_EQ(AddModMersenne61(SubModMersenne61(a, b), b), a);
  }
}

}  // namespace
}  // namespace fedmf::crypto
