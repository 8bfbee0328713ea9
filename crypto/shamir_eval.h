// The hot loop of Shamir splitting (shamir.h): the kShamirChunks polynomials of one split, over
// GF(2^61 - 1), evaluated by Horner's rule at x = 1..n. Uses AVX2 where the CPU has it (4 points
// per vector, with 32x32-bit lane products, which x <= 2^20 allows), else portable scalar code;
// both give identical results.
#ifndef FEDMF_CRYPTO_SHAMIR_EVAL_H_
#define FEDMF_CRYPTO_SHAMIR_EVAL_H_

#include <cstddef>
#include <cstdint>

#include "absl/types/span.h"

namespace fedmf::crypto::internal {

// coefficients[k * kShamirChunks + c] (each < 2^61 - 1) is the coefficient of x^k of polynomial
// c, k < coefficients.size() / kShamirChunks (at least 1). For x = 1..n, with n <= kShamirMaxShares
// and out.size() == n * kShamirChunks: out[(x - 1) * kShamirChunks + c] = polynomial c at x.
void EvaluateShamirPolynomials(absl::Span<const uint64_t> coefficients, size_t n,
                               absl::Span<uint64_t> out);

// The portable path alone (for the test that compares the two).
void EvaluateShamirPolynomialsScalar(absl::Span<const uint64_t> coefficients, size_t n,
                                     absl::Span<uint64_t> out);

}  // namespace fedmf::crypto::internal

#endif  // FEDMF_CRYPTO_SHAMIR_EVAL_H_
