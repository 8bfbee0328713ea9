#include "crypto/shamir.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_format.h"
#include "crypto/csprng.h"
#include "crypto/mersenne61.h"
#include "crypto/shamir_eval.h"

namespace fedmf::crypto {
namespace {

// Byte offset and width of each secret chunk (see the header).
constexpr size_t kChunkOffset[kShamirChunks] = {0, 7, 14, 21, 28};
constexpr size_t kChunkBytes[kShamirChunks] = {7, 7, 7, 7, 4};

uint64_t LoadLe(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

void StoreLe(uint64_t v, uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

absl::Status CheckParams(ShamirParams params) {
  if (params.num_shares < 1 || params.num_shares > kShamirMaxShares || params.threshold < 1 ||
      params.threshold > params.num_shares) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Shamir parameters t=%d, n=%d: need 1 <= t <= n <= %d", params.threshold,
                        params.num_shares, kShamirMaxShares));
  }
  return absl::OkStatus();
}

absl::Status CheckIndex(size_t position, uint64_t index, ShamirParams params) {
  if (index < 1 || index > static_cast<uint64_t>(params.num_shares)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Shamir share %d has index %d, outside [1, %d]", position, index, params.num_shares));
  }
  return absl::OkStatus();
}

// Validates every share (index range, size, field elements) and index uniqueness, and returns
// the positions of the shares sorted by index.
absl::StatusOr<std::vector<size_t>> ValidateShares(absl::Span<const ShamirShare> shares,
                                                   ShamirParams params) {
  if (shares.size() < static_cast<size_t>(params.threshold)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Shamir reconstruction needs at least t=%d shares, got %d",
                        params.threshold, shares.size()));
  }
  for (size_t i = 0; i < shares.size(); ++i) {
    if (absl::Status s = CheckIndex(i, shares[i].index, params); !s.ok()) return s;
    if (shares[i].value.size() != kShamirShareSize) {
      return absl::InvalidArgumentError(
          absl::StrFormat("Shamir share %d (index %d) is %d bytes, need %d", i, shares[i].index,
                          shares[i].value.size(), kShamirShareSize));
    }
    for (int c = 0; c < kShamirChunks; ++c) {
      if (LoadLe(shares[i].value.data() + 8 * c, 8) >= kMersenne61) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "Shamir share %d (index %d): element %d is not below 2^61 - 1", i, shares[i].index, c));
      }
    }
  }
  std::vector<size_t> order(shares.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return shares[a].index < shares[b].index; });
  for (size_t k = 1; k < order.size(); ++k) {
    if (shares[order[k]].index == shares[order[k - 1]].index) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "Shamir shares %d and %d have the same index %d", std::min(order[k - 1], order[k]),
          std::max(order[k - 1], order[k]), shares[order[k]].index));
    }
  }
  return order;
}

// Uniform field elements from the CSPRNG: 61 random bits, redrawn in the rare case (2^-61) that
// they equal p.
absl::Status RandomFieldElements(absl::Span<uint64_t> out) {
  if (absl::Status s = RandomBytes(
          absl::MakeSpan(reinterpret_cast<uint8_t*>(out.data()), out.size() * sizeof(uint64_t)));
      !s.ok()) {
    return s;
  }
  for (uint64_t& v : out) {
    v &= kMersenne61;
    while (v == kMersenne61) {
      if (absl::Status s = RandomBytes(absl::MakeSpan(reinterpret_cast<uint8_t*>(&v), sizeof(v)));
          !s.ok()) {
        return s;
      }
      v &= kMersenne61;
    }
  }
  return absl::OkStatus();
}

// The secret from its chunk values, or kDataLoss if a chunk is out of its width (the header's
// consistency check).
absl::StatusOr<SecretBytes> SecretFromChunks(const uint64_t (&chunks)[kShamirChunks]) {
  SecretBytes secret(kShamirSecretSize);
  for (int c = 0; c < kShamirChunks; ++c) {
    if (chunks[c] >> (8 * kChunkBytes[c]) != 0) {
      return absl::DataLossError(absl::StrFormat(
          "Shamir shares are inconsistent: secret chunk %d does not fit in %d bytes", c,
          kChunkBytes[c]));
    }
    StoreLe(chunks[c], secret.data() + kChunkOffset[c], kChunkBytes[c]);
  }
  return secret;
}

// Solves the linear system over GF(p) whose augmented matrix `a` is rows x (cols + 1), row-major
// with the right-hand side last, by Gauss-Jordan elimination in place. Writes a solution to `z`
// (cols entries; free variables are 0) and returns true, or returns false if there is none.
bool SolveMersenne61(absl::Span<uint64_t> a, size_t rows, size_t cols, absl::Span<uint64_t> z) {
  const size_t stride = cols + 1;
  std::vector<size_t> pivot_cols;  // pivot_cols[k]: the column of row k's leading 1
  for (size_t col = 0; col < cols && pivot_cols.size() < rows; ++col) {
    const size_t rank = pivot_cols.size();
    size_t pivot = rank;
    while (pivot < rows && a[pivot * stride + col] == 0) ++pivot;
    if (pivot == rows) continue;  // a free variable
    uint64_t* r = &a[rank * stride];
    if (pivot != rank) std::swap_ranges(r, r + stride, &a[pivot * stride]);
    // Entries left of `col` are 0 in rows >= rank, so the row operations start at `col`.
    const uint64_t inverse = InvModMersenne61(r[col]);
    for (size_t j = col; j < stride; ++j) r[j] = MulModMersenne61(r[j], inverse);
    for (size_t i = 0; i < rows; ++i) {
      uint64_t* s = &a[i * stride];
      const uint64_t f = s[col];
      if (i == rank || f == 0) continue;
      for (size_t j = col; j < stride; ++j) {
        s[j] = SubModMersenne61(s[j], MulModMersenne61(f, r[j]));
      }
    }
    pivot_cols.push_back(col);
  }
  for (size_t i = pivot_cols.size(); i < rows; ++i) {
    if (a[i * stride + cols] != 0) return false;  // the row reads 0 = nonzero
  }
  std::fill(z.begin(), z.end(), 0);
  for (size_t k = 0; k < pivot_cols.size(); ++k) z[pivot_cols[k]] = a[k * stride + cols];
  return true;
}

}  // namespace

absl::StatusOr<std::vector<ShamirShare>> ShamirSplit(absl::Span<const uint8_t> secret,
                                                     ShamirParams params) {
  if (secret.size() != kShamirSecretSize) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Shamir secret is %d bytes, need %d", secret.size(), kShamirSecretSize));
  }
  if (absl::Status s = CheckParams(params); !s.ok()) return s;
  const size_t t = static_cast<size_t>(params.threshold);

  // coefficients[k * kShamirChunks + c] = coefficient of x^k for chunk c; k = 0 is the secret.
  std::vector<uint64_t> coefficients(t * kShamirChunks);
  absl::Cleanup wipe = [&coefficients] {
    OPENSSL_cleanse(coefficients.data(), coefficients.size() * sizeof(uint64_t));
  };
  for (int c = 0; c < kShamirChunks; ++c) {
    coefficients[c] = LoadLe(secret.data() + kChunkOffset[c], kChunkBytes[c]);
  }
  if (absl::Status s = RandomFieldElements(absl::MakeSpan(coefficients).subspan(kShamirChunks));
      !s.ok()) {
    return s;
  }

  const size_t n = static_cast<size_t>(params.num_shares);
  std::vector<uint64_t> values(n * kShamirChunks);
  absl::Cleanup wipe_values = [&values] {
    OPENSSL_cleanse(values.data(), values.size() * sizeof(uint64_t));
  };
  internal::EvaluateShamirPolynomials(coefficients, n, absl::MakeSpan(values));
  std::vector<ShamirShare> shares(n);
  for (size_t j = 0; j < n; ++j) {
    ShamirShare& share = shares[j];
    share.index = static_cast<uint32_t>(j + 1);
    share.value = SecretBytes(kShamirShareSize);
    for (int c = 0; c < kShamirChunks; ++c) {
      StoreLe(values[j * kShamirChunks + c], share.value.data() + 8 * c, 8);
    }
  }
  return shares;
}

absl::StatusOr<ShamirReconstructor> ShamirReconstructor::Create(
    absl::Span<const uint32_t> holder_indices, ShamirParams params) {
  if (absl::Status s = CheckParams(params); !s.ok()) return s;
  const size_t t = static_cast<size_t>(params.threshold);
  if (holder_indices.size() < t) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Shamir reconstruction needs at least t=%d holders, got %d", t, holder_indices.size()));
  }
  std::vector<uint32_t> indices(holder_indices.begin(), holder_indices.begin() + t);
  for (size_t i = 0; i < t; ++i) {
    if (absl::Status s = CheckIndex(i, indices[i], params); !s.ok()) return s;
  }
  std::sort(indices.begin(), indices.end());
  for (size_t i = 1; i < t; ++i) {
    if (indices[i] == indices[i - 1]) {
      return absl::InvalidArgumentError(
          absl::StrFormat("Shamir holder index %d appears twice", indices[i]));
    }
  }

  // lambda_i = prod_{j != i} x_j / (x_j - x_i) = (prod_j x_j) / (x_i * prod_{j != i} (x_j - x_i)).
  // All denominators are nonzero (distinct indices in [1, n], n < p); they are inverted together
  // with one exponentiation (Montgomery's batch inversion).
  uint64_t numerator = 1;
  for (uint32_t x : indices) numerator = MulModMersenne61(numerator, x);
  std::vector<uint64_t> denominators(t);
  for (size_t i = 0; i < t; ++i) {
    uint64_t d = indices[i];
    for (size_t j = 0; j < t; ++j) {
      if (j != i) d = MulModMersenne61(d, SubModMersenne61(indices[j], indices[i]));
    }
    denominators[i] = d;
  }
  std::vector<uint64_t> prefix(t + 1);
  prefix[0] = 1;
  for (size_t i = 0; i < t; ++i) prefix[i + 1] = MulModMersenne61(prefix[i], denominators[i]);
  uint64_t inverse = InvModMersenne61(prefix[t]);  // 1 / (d_0 * ... * d_{t-1})
  std::vector<uint64_t> coefficients(t);
  for (size_t i = t; i-- > 0;) {
    // inverse = 1 / (d_0 * ... * d_i) here.
    coefficients[i] = MulModMersenne61(numerator, MulModMersenne61(inverse, prefix[i]));
    inverse = MulModMersenne61(inverse, denominators[i]);
  }
  return ShamirReconstructor(params, std::move(indices), std::move(coefficients));
}

absl::StatusOr<SecretBytes> ShamirReconstructor::Reconstruct(
    absl::Span<const ShamirShare> shares) const {
  absl::StatusOr<std::vector<size_t>> order = ValidateShares(shares, params_);
  if (!order.ok()) return order.status();

  uint64_t sum[kShamirChunks] = {};
  size_t k = 0;  // walks the sorted shares alongside the sorted holder indices
  for (size_t i = 0; i < indices_.size(); ++i) {
    while (k < order->size() && shares[(*order)[k]].index < indices_[i]) ++k;
    if (k == order->size() || shares[(*order)[k]].index != indices_[i]) {
      OPENSSL_cleanse(sum, sizeof(sum));
      return absl::InvalidArgumentError(
          absl::StrFormat("no Shamir share from holder index %d", indices_[i]));
    }
    const uint8_t* value = shares[(*order)[k]].value.data();
    for (int c = 0; c < kShamirChunks; ++c) {
      sum[c] =
          AddModMersenne61(sum[c], MulModMersenne61(coefficients_[i], LoadLe(value + 8 * c, 8)));
    }
  }

  absl::StatusOr<SecretBytes> secret = SecretFromChunks(sum);
  OPENSSL_cleanse(sum, sizeof(sum));
  return secret;
}

absl::StatusOr<SecretBytes> ShamirReconstruct(absl::Span<const ShamirShare> shares,
                                              ShamirParams params) {
  if (absl::Status s = CheckParams(params); !s.ok()) return s;
  absl::StatusOr<std::vector<size_t>> order = ValidateShares(shares, params);
  if (!order.ok()) return order.status();
  std::vector<uint32_t> holders(static_cast<size_t>(params.threshold));
  for (size_t i = 0; i < holders.size(); ++i) holders[i] = shares[i].index;
  absl::StatusOr<ShamirReconstructor> reconstructor = ShamirReconstructor::Create(holders, params);
  if (!reconstructor.ok()) return reconstructor.status();
  return reconstructor->Reconstruct(shares);
}

// Berlekamp-Welch, per chunk. Unknowns: Q of degree < t + e and E monic of degree e, with
// Q(x_k) = y_k E(x_k) for every share k. If a polynomial P of degree < t is off at most e shares B,
// then E = prod_{k in B} (x - x_k) * x^(e - |B|), Q = P E is a solution; and for any solution,
// Q - P E has degree < t + e and vanishes at the >= m - e >= t + e shares on P, so Q = P E. Hence
// one solve with the largest e decodes whenever decoding is possible, whichever solution the
// elimination picks when the system is rank deficient (fewer than e errors); retrying with a
// smaller e cannot succeed where it failed, as a P off at most e' < e shares is found with e.
absl::StatusOr<ShamirDecoding> ShamirDecode(absl::Span<const ShamirShare> shares,
                                            ShamirParams params) {
  if (absl::Status s = CheckParams(params); !s.ok()) return s;
  absl::StatusOr<std::vector<size_t>> order = ValidateShares(shares, params);
  if (!order.ok()) return order.status();
  const size_t m = shares.size();
  const size_t t = static_cast<size_t>(params.threshold);
  const size_t e = (m - t) / 2;
  const size_t cols = t + 2 * e;  // Q's t + e coefficients, then E's e coefficients below x^e
  const size_t stride = cols + 1;

  // All of these hold share values or polynomial coefficients.
  std::vector<uint64_t> y(m), matrix(m * stride), solution(cols), division(t + e);
  uint64_t constants[kShamirChunks] = {};
  absl::Cleanup wipe = [&] {
    for (std::vector<uint64_t>* v : {&y, &matrix, &solution, &division}) {
      OPENSSL_cleanse(v->data(), v->size() * sizeof(uint64_t));
    }
    OPENSSL_cleanse(constants, sizeof(constants));
  };
  std::vector<bool> off(m, false);  // by position in index order
  for (int c = 0; c < kShamirChunks; ++c) {
    for (size_t k = 0; k < m; ++k) {
      const uint64_t x = shares[(*order)[k]].index;
      y[k] = LoadLe(shares[(*order)[k]].value.data() + 8 * c, 8);
      // Row k: sum_j q_j x^j - y_k sum_{j<e} e_j x^j = y_k x^e.
      uint64_t* row = &matrix[k * stride];
      uint64_t power = 1;
      for (size_t j = 0; j < t + e; ++j, power = MulModMersenne61(power, x)) row[j] = power;
      for (size_t j = 0; j < e; ++j) {
        row[t + e + j] = SubModMersenne61(0, MulModMersenne61(y[k], row[j]));
      }
      row[cols] = MulModMersenne61(y[k], row[e]);
    }
    const auto undecodable = [&] {
      return absl::DataLossError(absl::StrFormat(
          "Shamir shares cannot be decoded: in chunk %d, more than %d of the %d shares are off "
          "every polynomial of degree < %d",
          c, e, m, t));
    };
    if (!SolveMersenne61(absl::MakeSpan(matrix), m, cols, absl::MakeSpan(solution))) {
      return undecodable();
    }

    // Q / E by long division in place: afterwards division[e + j] is P's coefficient of x^j and
    // division[0, e) the remainder.
    std::copy(solution.begin(), solution.begin() + t + e, division.begin());
    const uint64_t* e_low = solution.data() + t + e;  // E's coefficients of x^0 .. x^(e-1)
    for (size_t k = t + e; k-- > e;) {
      for (size_t j = 0; j < e; ++j) {
        division[k - e + j] =
            SubModMersenne61(division[k - e + j], MulModMersenne61(division[k], e_low[j]));
      }
    }
    for (size_t j = 0; j < e; ++j) {
      if (division[j] != 0) return undecodable();
    }

    // The acceptance test: P is the answer iff it is off at most e shares (the exits above only
    // save work; after a solution and an exact division the off shares are roots of E, so <= e).
    size_t disagreements = 0;
    for (size_t k = 0; k < m; ++k) {
      const uint64_t x = shares[(*order)[k]].index;
      uint64_t value = 0;
      for (size_t j = t; j-- > 0;) {
        value = AddModMersenne61(MulModMersenne61(value, x), division[e + j]);
      }
      if (value != y[k]) {
        off[k] = true;
        ++disagreements;
      }
    }
    if (disagreements > e) return undecodable();
    constants[c] = division[e];
  }

  absl::StatusOr<SecretBytes> secret = SecretFromChunks(constants);
  if (!secret.ok()) return secret.status();
  ShamirDecoding decoding{*std::move(secret), {}};
  for (size_t k = 0; k < m; ++k) {
    if (off[k]) decoding.off_polynomial.push_back(shares[(*order)[k]].index);
  }
  return decoding;
}

}  // namespace fedmf::crypto
