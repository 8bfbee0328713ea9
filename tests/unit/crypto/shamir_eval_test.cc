#include "crypto/shamir_eval.h"

#include <cstdint>
#include <random>
#include <vector>

#include "crypto/mersenne61.h"
#include "crypto/shamir.h"
#include "gtest/gtest.h"

namespace fedmf::crypto::internal {
namespace {

// The definition: sum over k of coefficient_k x^k, with powers computed separately.
uint64_t EvalReference(const std::vector<uint64_t>& coefficients, size_t c, uint64_t x) {
  uint64_t sum = 0, power = 1;
  for (size_t k = 0; k * kShamirChunks < coefficients.size(); ++k) {
    sum = AddModMersenne61(sum, MulModMersenne61(coefficients[k * kShamirChunks + c], power));
    power = MulModMersenne61(power, x);
  }
  return sum;
}

std::vector<uint64_t> RandomCoefficients(size_t terms, uint64_t seed, bool extreme) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> out(terms * kShamirChunks);
  for (uint64_t& a : out) a = extreme ? kMersenne61 - 1 - rng() % 2 : rng() % kMersenne61;
  return out;
}

// Both paths against the definition at every point, for point counts that are and are not
// multiples of the SIMD block, random coefficients and ones next to p (the largest lane sums).
TEST(ShamirEvalTest, BothPathsMatchDefinition) {
  for (bool extreme : {false, true}) {
    for (size_t terms : {1, 2, 7, 40}) {
      for (size_t n : {1, 3, 8, 9, 17, 203}) {
        const std::vector<uint64_t> coefficients =
            RandomCoefficients(terms, 31 * terms + n, extreme);
        std::vector<uint64_t> fast(n * kShamirChunks), scalar(n * kShamirChunks);
        EvaluateShamirPolynomials(coefficients, n, absl::MakeSpan(fast));
        EvaluateShamirPolynomialsScalar(coefficients, n, absl::MakeSpan(scalar));
        for (size_t x = 1; x <= n; ++x) {
          for (size_t c = 0; c < kShamirChunks; ++c) {
            const uint64_t want = EvalReference(coefficients, c, x);
            ASSERT_EQ(fast[(x - 1) * kShamirChunks + c], want) << "n=" << n << " x=" << x;
            ASSERT_EQ(scalar[(x - 1) * kShamirChunks + c], want) << "n=" << n << " x=" << x;
          }
        }
      }
    }
  }
}

// The largest points the SIMD lane products must hold (x up to kShamirMaxShares).
TEST(ShamirEvalTest, LargestPointsMatchDefinition) {
  const size_t n = kShamirMaxShares;
  const std::vector<uint64_t> coefficients = RandomCoefficients(3, 5, true);
  std::vector<uint64_t> out(n * kShamirChunks);
  EvaluateShamirPolynomials(coefficients, n, absl::MakeSpan(out));
  for (size_t x = n - 20; x <= n; ++x) {
    for (size_t c = 0; c < kShamirChunks; ++c) {
      ASSERT_EQ(out[(x - 1) * kShamirChunks + c], EvalReference(coefficients, c, x)) << "x=" << x;
    }
  }
}

}  // namespace
}  // namespace fedmf::crypto::internal
