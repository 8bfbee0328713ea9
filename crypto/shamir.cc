#include "crypto/shamir.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_format.h"
#include "crypto/csprng.h"
#include "crypto/mersenne61.h"

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

  // Horner's rule at kPoints indices at a time: 5 * kPoints independent multiply chains keep
  // the multiplier busy (one chain is latency-bound).
  constexpr size_t kPoints = 4;
  const size_t n = static_cast<size_t>(params.num_shares);
  std::vector<ShamirShare> shares(n);
  for (size_t first = 0; first < n; first += kPoints) {
    const size_t points = std::min(kPoints, n - first);
    uint64_t y[kPoints][kShamirChunks];
    for (size_t j = 0; j < kPoints; ++j) {
      for (int c = 0; c < kShamirChunks; ++c) y[j][c] = coefficients[(t - 1) * kShamirChunks + c];
    }
    for (size_t k = t - 1; k-- > 0;) {
      const uint64_t* a = &coefficients[k * kShamirChunks];
      for (size_t j = 0; j < kPoints; ++j) {  // points past n are computed and discarded
        const uint64_t x = first + j + 1;
        for (int c = 0; c < kShamirChunks; ++c) {
          y[j][c] = AddModMersenne61(MulModMersenne61(y[j][c], x), a[c]);
        }
      }
    }
    for (size_t j = 0; j < points; ++j) {
      ShamirShare& share = shares[first + j];
      share.index = static_cast<uint32_t>(first + j + 1);
      share.value = SecretBytes(kShamirShareSize);
      for (int c = 0; c < kShamirChunks; ++c) StoreLe(y[j][c], share.value.data() + 8 * c, 8);
    }
    OPENSSL_cleanse(y, sizeof(y));
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

  SecretBytes secret(kShamirSecretSize);
  absl::Status status = absl::OkStatus();
  for (int c = 0; c < kShamirChunks; ++c) {
    if (sum[c] >> (8 * kChunkBytes[c]) != 0) {
      status = absl::DataLossError(absl::StrFormat(
          "Shamir shares are inconsistent: secret chunk %d does not fit in %d bytes", c,
          kChunkBytes[c]));
      break;
    }
    StoreLe(sum[c], secret.data() + kChunkOffset[c], kChunkBytes[c]);
  }
  OPENSSL_cleanse(sum, sizeof(sum));
  if (!status.ok()) return status;
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

}  // namespace fedmf::crypto
