#include "crypto/shamir.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/crypto/hex.h"

namespace fedmf::crypto {
namespace {

using test_util::ToHex;
using ::testing::HasSubstr;

// p, the prime of Shamir's field (an independent spelling of kMersenne61).
constexpr uint64_t kFieldPrime = (uint64_t{1} << 61) - 1;

std::vector<uint8_t> SecretFromSeed(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> s(kShamirSecretSize);
  for (uint8_t& b : s) b = static_cast<uint8_t>(rng());
  return s;
}

std::vector<ShamirShare> Split(const std::vector<uint8_t>& secret, ShamirParams params) {
  absl::StatusOr<std::vector<ShamirShare>> shares = ShamirSplit(secret, params);
  EXPECT_TRUE(shares.ok()) << shares.status();
  return shares.ok() ? *std::move(shares) : std::vector<ShamirShare>();
}

std::vector<ShamirShare> Pick(const std::vector<ShamirShare>& all,
                              const std::vector<size_t>& positions) {
  std::vector<ShamirShare> out;
  for (size_t i : positions) out.push_back({all[i].index, all[i].value.Clone()});
  return out;
}

// A share made by hand from five little-endian field elements.
ShamirShare MakeShare(uint32_t index, const std::vector<uint64_t>& elements) {
  ShamirShare s{index, SecretBytes(kShamirShareSize)};
  for (size_t c = 0; c < elements.size(); ++c) {
    for (int b = 0; b < 8; ++b)
      s.value.data()[8 * c + b] = static_cast<uint8_t>(elements[c] >> (8 * b));
  }
  return s;
}

// Secret = bytes 00 01 .. 1b followed by four zero bytes, so its chunks (7, 7, 7, 7, 4 bytes,
// little-endian) are c0 = 0x06050403020100, c1 = 0x0d0c0b0a090807, c2 = 0x14131211100f0e,
// c3 = 0x1b1a1918171615, c4 = 0.
std::vector<uint8_t> HandSecret() {
  std::vector<uint8_t> s(32, 0);
  for (int i = 0; i < 28; ++i) s[i] = static_cast<uint8_t>(i);
  return s;
}
const std::vector<uint64_t> kHandChunks = {0x06050403020100, 0x0d0c0b0a090807, 0x14131211100f0e,
                                           0x1b1a1918171615, 0};

TEST(ShamirTest, ReconstructsHandMadeDegreeTwoShares) {
  // f_c(x) = c + 2x + x^2 for every chunk: f(2) = c + 8, f(4) = c + 24, f(5) = c + 35.
  std::vector<ShamirShare> shares;
  for (uint32_t x : {5u, 2u, 4u}) {
    std::vector<uint64_t> y;
    for (uint64_t c : kHandChunks) y.push_back(c + 2 * x + x * x);
    shares.push_back(MakeShare(x, y));
  }
  absl::StatusOr<SecretBytes> secret = ShamirReconstruct(shares, {3, 5});
  ASSERT_TRUE(secret.ok()) << secret.status();
  EXPECT_EQ(ToHex(*secret), ToHex(HandSecret()));
}

TEST(ShamirTest, ReconstructsHandMadeSharesThatWrapModP) {
  // f_c(x) = c + (p - 1) x = c - x (mod p): f(1) = c - 1, f(3) = c - 3; for c4 = 0 these are
  // p - 1 and p - 3.
  std::vector<ShamirShare> shares;
  for (uint32_t x : {1u, 3u}) {
    std::vector<uint64_t> y;
    for (uint64_t c : kHandChunks) y.push_back(c >= x ? c - x : c + kFieldPrime - x);
    shares.push_back(MakeShare(x, y));
  }
  absl::StatusOr<SecretBytes> secret = ShamirReconstruct(shares, {2, 3});
  ASSERT_TRUE(secret.ok()) << secret.status();
  EXPECT_EQ(ToHex(*secret), ToHex(HandSecret()));
}

TEST(ShamirTest, SplitMakesWellFormedShares) {
  const std::vector<ShamirShare> shares = Split(SecretFromSeed(1), {3, 7});
  ASSERT_EQ(shares.size(), 7u);
  for (size_t i = 0; i < shares.size(); ++i) {
    EXPECT_EQ(shares[i].index, i + 1);
    ASSERT_EQ(shares[i].value.size(), kShamirShareSize);
    for (int c = 0; c < kShamirChunks; ++c) {
      uint64_t v = 0;
      for (int b = 0; b < 8; ++b) v |= uint64_t{shares[i].value.data()[8 * c + b]} << (8 * b);
      EXPECT_LT(v, kFieldPrime);
    }
  }
}

TEST(ShamirTest, RoundTripsForSeveralThresholds) {
  const ShamirParams kParams[] = {{1, 1},  {1, 4}, {2, 2},    {2, 3},    {3, 5},
                                  {5, 10}, {7, 7}, {51, 100}, {200, 300}};
  std::mt19937_64 rng(42);
  for (const ShamirParams& params : kParams) {
    SCOPED_TRACE(::testing::Message() << "t=" << params.threshold << " n=" << params.num_shares);
    const std::vector<uint8_t> secret = SecretFromSeed(rng());
    const std::vector<ShamirShare> shares = Split(secret, params);
    std::vector<size_t> positions(shares.size());
    std::iota(positions.begin(), positions.end(), 0);
    for (int trial = 0; trial < 5; ++trial) {  // random t-subsets in random order
      std::shuffle(positions.begin(), positions.end(), rng);
      const std::vector<size_t> subset(positions.begin(), positions.begin() + params.threshold);
      absl::StatusOr<SecretBytes> back = ShamirReconstruct(Pick(shares, subset), params);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(ToHex(*back), ToHex(secret));
    }
    // All n shares: only the first t are used, the rest are validated.
    absl::StatusOr<SecretBytes> all = ShamirReconstruct(shares, params);
    ASSERT_TRUE(all.ok()) << all.status();
    EXPECT_EQ(ToHex(*all), ToHex(secret));
  }
}

TEST(ShamirTest, EveryThreeOfFiveSubsetWorks) {
  const std::vector<uint8_t> secret = SecretFromSeed(5);
  const std::vector<ShamirShare> shares = Split(secret, {3, 5});
  int subsets = 0;
  for (size_t a = 0; a < 5; ++a) {
    for (size_t b = a + 1; b < 5; ++b) {
      for (size_t c = b + 1; c < 5; ++c) {
        absl::StatusOr<SecretBytes> back = ShamirReconstruct(Pick(shares, {a, b, c}), {3, 5});
        ASSERT_TRUE(back.ok()) << back.status();
        EXPECT_EQ(ToHex(*back), ToHex(secret));
        ++subsets;
      }
    }
  }
  EXPECT_EQ(subsets, 10);
}

TEST(ShamirTest, SplitsOfTheSameSecretDiffer) {
  const std::vector<uint8_t> secret = SecretFromSeed(6);
  const std::vector<ShamirShare> a = Split(secret, {2, 3});
  const std::vector<ShamirShare> b = Split(secret, {2, 3});
  EXPECT_FALSE(a[0].value == b[0].value);  // fresh random coefficients each time
}

TEST(ShamirTest, FewerThanThresholdSharesFail) {
  const std::vector<ShamirShare> shares = Split(SecretFromSeed(7), {4, 6});
  absl::StatusOr<SecretBytes> back = ShamirReconstruct(Pick(shares, {0, 2, 5}), {4, 6});
  EXPECT_EQ(back.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(back.status().message(), HasSubstr("at least t=4 shares, got 3"));
}

TEST(ShamirTest, RejectsDuplicateIndices) {
  const std::vector<ShamirShare> shares = Split(SecretFromSeed(8), {3, 5});
  absl::StatusOr<SecretBytes> back = ShamirReconstruct(Pick(shares, {1, 3, 1}), {3, 5});
  EXPECT_EQ(back.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(back.status().message(), HasSubstr("same index 2"));
}

TEST(ShamirTest, RejectsOutOfRangeIndices) {
  const std::vector<ShamirShare> shares = Split(SecretFromSeed(9), {2, 3});
  for (uint32_t bad : {0u, 4u, 0xffffffffu}) {
    std::vector<ShamirShare> s = Pick(shares, {0, 1});
    s[1].index = bad;
    absl::StatusOr<SecretBytes> back = ShamirReconstruct(s, {2, 3});
    EXPECT_EQ(back.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(back.status().message(), HasSubstr("outside [1, 3]")) << bad;
  }
}

TEST(ShamirTest, RejectsWrongShareSizes) {
  const std::vector<ShamirShare> shares = Split(SecretFromSeed(10), {2, 3});
  for (size_t size : {0, 8, 39, 41}) {
    std::vector<ShamirShare> s = Pick(shares, {0, 1});
    s[0].value = SecretBytes(size);
    absl::StatusOr<SecretBytes> back = ShamirReconstruct(s, {2, 3});
    EXPECT_EQ(back.status().code(), absl::StatusCode::kInvalidArgument) << size;
    EXPECT_THAT(back.status().message(), HasSubstr("need 40")) << size;
  }
}

TEST(ShamirTest, RejectsElementsOutsideTheField) {
  std::vector<ShamirShare> s = Pick(Split(SecretFromSeed(11), {2, 3}), {0, 1});
  for (int b = 0; b < 8; ++b) s[1].value.data()[16 + b] = 0xff;  // element 2 = 2^64 - 1
  absl::StatusOr<SecretBytes> back = ShamirReconstruct(s, {2, 3});
  EXPECT_EQ(back.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(back.status().message(), HasSubstr("element 2"));
}

TEST(ShamirTest, MixedSharesAreDetectedAsInconsistent) {
  // Shares of two different secrets: the result is secret_a + lambda * (random field element)
  // per chunk, which fits the chunk widths with probability 2^-49.
  const std::vector<ShamirShare> a = Split(SecretFromSeed(12), {3, 4});
  const std::vector<ShamirShare> b = Split(SecretFromSeed(13), {3, 4});
  std::vector<ShamirShare> mixed = Pick(a, {0, 1});
  mixed.push_back({b[2].index, b[2].value.Clone()});
  absl::StatusOr<SecretBytes> back = ShamirReconstruct(mixed, {3, 4});
  EXPECT_EQ(back.status().code(), absl::StatusCode::kDataLoss);
}

TEST(ShamirTest, RejectsBadParametersAndSecretSize) {
  const std::vector<uint8_t> secret = SecretFromSeed(14);
  for (ShamirParams bad : {ShamirParams{0, 3}, ShamirParams{4, 3}, ShamirParams{1, 0},
                           ShamirParams{-1, 3}, ShamirParams{1, kShamirMaxShares + 1}}) {
    EXPECT_EQ(ShamirSplit(secret, bad).status().code(), absl::StatusCode::kInvalidArgument)
        << bad.threshold << " " << bad.num_shares;
    EXPECT_EQ(ShamirReconstruct({}, bad).status().code(), absl::StatusCode::kInvalidArgument);
  }
  for (size_t size : {0, 31, 33}) {
    EXPECT_EQ(ShamirSplit(std::vector<uint8_t>(size, 1), {2, 3}).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

TEST(ShamirTest, ReconstructorMatchesOneShotForManySecrets) {
  // The server's case: one secret per dropped client, all from the same surviving holders.
  const ShamirParams params{4, 9};
  const std::vector<uint32_t> survivors = {9, 2, 7, 5, 3};
  absl::StatusOr<ShamirReconstructor> r = ShamirReconstructor::Create(survivors, params);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->indices(), ::testing::ElementsAre(2, 5, 7, 9));  // first t, sorted
  for (uint64_t seed = 100; seed < 110; ++seed) {
    const std::vector<uint8_t> secret = SecretFromSeed(seed);
    const std::vector<ShamirShare> all = Split(secret, params);
    // Shares from every survivor, in survivor order (share of index i is at position i - 1).
    std::vector<size_t> positions;
    for (uint32_t s : survivors) positions.push_back(s - 1);
    const std::vector<ShamirShare> from_survivors = Pick(all, positions);
    absl::StatusOr<SecretBytes> fast = r->Reconstruct(from_survivors);
    absl::StatusOr<SecretBytes> slow = ShamirReconstruct(from_survivors, params);
    ASSERT_TRUE(fast.ok() && slow.ok());
    EXPECT_EQ(ToHex(*fast), ToHex(secret));
    EXPECT_EQ(ToHex(*slow), ToHex(secret));
  }
}

TEST(ShamirTest, ReconstructorNeedsEveryHolderShare) {
  const ShamirParams params{2, 4};
  absl::StatusOr<ShamirReconstructor> r = ShamirReconstructor::Create({1, 4}, params);
  ASSERT_TRUE(r.ok());
  const std::vector<ShamirShare> shares = Split(SecretFromSeed(15), params);
  absl::StatusOr<SecretBytes> back = r->Reconstruct(Pick(shares, {0, 1, 2}));  // no index 4
  EXPECT_EQ(back.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(back.status().message(), HasSubstr("no Shamir share from holder index 4"));
}

TEST(ShamirTest, ReconstructorRejectsBadHolders) {
  const ShamirParams params{3, 5};
  EXPECT_EQ(ShamirReconstructor::Create({1, 2}, params).status().code(),
            absl::StatusCode::kInvalidArgument);  // fewer than t
  EXPECT_EQ(ShamirReconstructor::Create({1, 2, 2}, params).status().code(),
            absl::StatusCode::kInvalidArgument);  // duplicate
  EXPECT_EQ(ShamirReconstructor::Create({1, 2, 6}, params).status().code(),
            absl::StatusCode::kInvalidArgument);  // out of range
  EXPECT_EQ(ShamirReconstructor::Create({0, 1, 2}, params).status().code(),
            absl::StatusCode::kInvalidArgument);  // x = 0 is the secret
}

// --- ShamirDecode (error-correcting reconstruction) ---

uint64_t Element(const ShamirShare& share, int chunk) {
  uint64_t v = 0;
  for (int b = 0; b < 8; ++b) v |= uint64_t{share.value.data()[8 * chunk + b]} << (8 * b);
  return v;
}

// Adds delta (in [1, p)) to one field element of `share`, mod p: the share moves off the
// polynomial of that chunk and stays a well-formed share.
void Corrupt(ShamirShare& share, int chunk, uint64_t delta) {
  const uint64_t v = Element(share, chunk);
  const uint64_t w = v >= kFieldPrime - delta ? v - (kFieldPrime - delta) : v + delta;
  for (int b = 0; b < 8; ++b)
    share.value.data()[8 * chunk + b] = static_cast<uint8_t>(w >> (8 * b));
}

uint64_t RandomDelta(std::mt19937_64& rng) { return 1 + rng() % (kFieldPrime - 1); }

// `count` distinct positions in [0, size), in random order.
std::vector<size_t> RandomPositions(size_t size, size_t count, std::mt19937_64& rng) {
  std::vector<size_t> positions(size);
  std::iota(positions.begin(), positions.end(), 0);
  std::shuffle(positions.begin(), positions.end(), rng);
  positions.resize(count);
  return positions;
}

// Shares at `positions` of all `shares`, sorted ascending.
std::vector<uint32_t> IndicesAt(const std::vector<ShamirShare>& shares,
                                const std::vector<size_t>& positions) {
  std::vector<uint32_t> indices;
  for (size_t i : positions) indices.push_back(shares[i].index);
  std::sort(indices.begin(), indices.end());
  return indices;
}

TEST(ShamirDecodeTest, WithoutErrorsMatchesReconstruct) {
  // m - t even and odd, m = t, and m - t >= 2 with no errors: the Berlekamp-Welch system is then
  // rank deficient (E may have any extra root), which must not matter.
  const ShamirParams kParams[] = {{1, 1}, {1, 4}, {2, 3}, {3, 5}, {5, 10}, {7, 7}, {51, 100}};
  std::mt19937_64 rng(1001);
  for (const ShamirParams& params : kParams) {
    const std::vector<uint8_t> secret = SecretFromSeed(rng());
    const std::vector<ShamirShare> shares = Split(secret, params);
    for (int m = params.threshold; m <= params.num_shares;
         m += std::max(1, (params.num_shares - params.threshold) / 4)) {
      SCOPED_TRACE(::testing::Message()
                   << "t=" << params.threshold << " n=" << params.num_shares << " m=" << m);
      const std::vector<ShamirShare> subset =
          Pick(shares, RandomPositions(shares.size(), static_cast<size_t>(m), rng));
      absl::StatusOr<ShamirDecoding> decoded = ShamirDecode(subset, params);
      ASSERT_TRUE(decoded.ok()) << decoded.status();
      EXPECT_EQ(ToHex(decoded->secret), ToHex(secret));
      EXPECT_THAT(decoded->off_polynomial, ::testing::IsEmpty());
      absl::StatusOr<SecretBytes> reconstructed = ShamirReconstruct(subset, params);
      ASSERT_TRUE(reconstructed.ok()) << reconstructed.status();
      EXPECT_EQ(ToHex(decoded->secret), ToHex(*reconstructed));
    }
  }
}

TEST(ShamirDecodeTest, CorrectsAHandMadeWrongShare) {
  // f_c(x) = c + 2x + x^2 for every chunk, t = 3, all five shares (e = 1); share 4 is off by one
  // in chunk 1. The fast path from the first three shares (5, 2, 4) gets a wrong secret.
  std::vector<ShamirShare> shares;
  for (uint32_t x : {5u, 2u, 4u, 1u, 3u}) {
    std::vector<uint64_t> y;
    for (uint64_t c : kHandChunks) y.push_back(c + 2 * x + x * x);
    if (x == 4) y[1] += 1;
    shares.push_back(MakeShare(x, y));
  }
  absl::StatusOr<SecretBytes> fast = ShamirReconstruct(shares, {3, 5});
  EXPECT_FALSE(fast.ok() && ToHex(*fast) == ToHex(HandSecret()));
  absl::StatusOr<ShamirDecoding> decoded = ShamirDecode(shares, {3, 5});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(ToHex(decoded->secret), ToHex(HandSecret()));
  EXPECT_THAT(decoded->off_polynomial, ::testing::ElementsAre(4));
}

TEST(ShamirDecodeTest, CorrectsUpToEWrongShares) {
  const ShamirParams kParams[] = {{1, 5}, {2, 9}, {3, 8}, {4, 10}, {5, 12}, {10, 30}};
  std::mt19937_64 rng(1002);
  for (const ShamirParams& params : kParams) {
    for (int trial = 0; trial < 10; ++trial) {
      const size_t t = static_cast<size_t>(params.threshold);
      const size_t n = static_cast<size_t>(params.num_shares);
      const size_t m = t + rng() % (n - t + 1);
      const size_t e = (m - t) / 2;
      SCOPED_TRACE(::testing::Message() << "t=" << t << " m=" << m << " e=" << e);
      const std::vector<uint8_t> secret = SecretFromSeed(rng());
      // The m shares in random order, e of them at random positions wrong in every chunk.
      std::vector<ShamirShare> subset = Pick(Split(secret, params), RandomPositions(n, m, rng));
      const std::vector<size_t> liars = RandomPositions(m, e, rng);
      for (size_t i : liars) {
        for (int c = 0; c < kShamirChunks; ++c) Corrupt(subset[i], c, RandomDelta(rng));
      }
      absl::StatusOr<ShamirDecoding> decoded = ShamirDecode(subset, params);
      ASSERT_TRUE(decoded.ok()) << decoded.status();
      EXPECT_EQ(ToHex(decoded->secret), ToHex(secret));
      EXPECT_EQ(decoded->off_polynomial, IndicesAt(subset, liars));
    }
  }
}

TEST(ShamirDecodeTest, ReportsAShareWrongInOneChunkOnly) {
  const ShamirParams params{4, 9};
  const std::vector<uint8_t> secret = SecretFromSeed(1003);
  const std::vector<ShamirShare> shares = Split(secret, params);
  std::mt19937_64 rng(1003);
  for (int c = 0; c < kShamirChunks; ++c) {
    SCOPED_TRACE(::testing::Message() << "chunk " << c);
    std::vector<ShamirShare> subset = Pick(shares, {0, 1, 2, 3, 4, 5, 6, 7, 8});
    Corrupt(subset[6], c, RandomDelta(rng));  // index 7
    absl::StatusOr<ShamirDecoding> decoded = ShamirDecode(subset, params);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(ToHex(decoded->secret), ToHex(secret));
    EXPECT_THAT(decoded->off_polynomial, ::testing::ElementsAre(7));
  }
}

TEST(ShamirDecodeTest, CountsWrongSharesPerChunk) {
  // t = 3, m = 9, e = 3: seven of the nine shares are wrong, but no chunk has more than three
  // wrong shares, so all are corrected and reported.
  const ShamirParams params{3, 9};
  const std::vector<uint8_t> secret = SecretFromSeed(1004);
  std::vector<ShamirShare> shares = Split(secret, params);
  std::mt19937_64 rng(1004);
  for (size_t i : {0, 1, 2}) Corrupt(shares[i], 0, RandomDelta(rng));  // indices 1, 2, 3
  for (size_t i : {3, 4, 5}) Corrupt(shares[i], 3, RandomDelta(rng));  // indices 4, 5, 6
  for (size_t i : {0, 6, 8}) Corrupt(shares[i], 4, RandomDelta(rng));  // indices 1, 7, 9
  absl::StatusOr<ShamirDecoding> decoded = ShamirDecode(shares, params);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(ToHex(decoded->secret), ToHex(secret));
  EXPECT_THAT(decoded->off_polynomial, ::testing::ElementsAre(1, 2, 3, 4, 5, 6, 7, 9));
}

TEST(ShamirDecodeTest, DetectsEPlusOneWrongSharesWhenRedundancyIsOdd) {
  // m = t + 2e + 1 with e + 1 wrong shares in one chunk: a polynomial of degree < t agreeing
  // with m - e shares would agree with the true one on at least (m - e) + (m - e - 1) - m = t
  // shares, so it would be the true one, which agrees with only m - e - 1. So decoding must fail.
  // e = 0 (m = t + 1) is the plain detection case.
  struct Case {
    int t, e;
  };
  const Case kCases[] = {{1, 0}, {4, 0}, {1, 1}, {2, 1}, {3, 2}, {5, 3}, {8, 4}};
  std::mt19937_64 rng(1005);
  for (const Case& k : kCases) {
    const size_t m = static_cast<size_t>(k.t + 2 * k.e + 1);
    const ShamirParams params{k.t, static_cast<int>(m) + 3};
    for (int trial = 0; trial < 10; ++trial) {
      SCOPED_TRACE(::testing::Message() << "t=" << k.t << " e=" << k.e << " trial " << trial);
      std::vector<ShamirShare> subset =
          Pick(Split(SecretFromSeed(rng()), params), RandomPositions(params.num_shares, m, rng));
      const int chunk = static_cast<int>(rng() % kShamirChunks);
      for (size_t i : RandomPositions(m, static_cast<size_t>(k.e + 1), rng)) {
        Corrupt(subset[i], chunk, RandomDelta(rng));
        if (trial % 2 == 1) {  // wrong in other chunks too
          Corrupt(subset[i], (chunk + 1) % kShamirChunks, RandomDelta(rng));
        }
      }
      absl::StatusOr<ShamirDecoding> decoded = ShamirDecode(subset, params);
      EXPECT_EQ(decoded.status().code(), absl::StatusCode::kDataLoss) << decoded.status();
    }
  }
}

TEST(ShamirDecodeTest, EPlusOneWrongSharesWithEvenRedundancyAreNotCorrected) {
  // m = t + 2e, e + 1 wrong shares in one chunk: failure is not guaranteed, since another
  // polynomial may agree with m - e shares. What is guaranteed: kDataLoss, or a decoding that
  // flags at most e shares (the true polynomial would be off all e + 1 wrong ones).
  const ShamirParams params{3, 12};
  std::mt19937_64 rng(1006);
  for (int trial = 0; trial < 20; ++trial) {
    const size_t m = 7;  // e = 2
    std::vector<ShamirShare> subset =
        Pick(Split(SecretFromSeed(rng()), params), RandomPositions(params.num_shares, m, rng));
    for (size_t i : RandomPositions(m, 3, rng)) Corrupt(subset[i], 2, RandomDelta(rng));
    absl::StatusOr<ShamirDecoding> decoded = ShamirDecode(subset, params);
    if (decoded.ok()) {
      EXPECT_LE(decoded->off_polynomial.size(), 2u);
    } else {
      EXPECT_EQ(decoded.status().code(), absl::StatusCode::kDataLoss) << decoded.status();
    }
  }
}

TEST(ShamirDecodeTest, NoRedundancyCorrectsNothing) {
  // m = t = 3 (e = 0): the shares at x = 1, 2, 3 of f_c(x) = c + 2x + x^2, with 1 added to share
  // 3 in chunk 0. Its Lagrange coefficient at 0 is (1 * 2) / ((1 - 3)(2 - 3)) = 1, so the decoded
  // secret is the hand secret with chunk 0 one higher, and nothing is flagged.
  std::vector<ShamirShare> shares;
  for (uint32_t x : {1u, 2u, 3u}) {
    std::vector<uint64_t> y;
    for (uint64_t c : kHandChunks) y.push_back(c + 2 * x + x * x);
    if (x == 3) y[0] += 1;
    shares.push_back(MakeShare(x, y));
  }
  absl::StatusOr<ShamirDecoding> decoded = ShamirDecode(shares, {3, 5});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  std::vector<uint8_t> expected = HandSecret();
  expected[0] = 0x01;
  EXPECT_EQ(ToHex(decoded->secret), ToHex(expected));
  EXPECT_THAT(decoded->off_polynomial, ::testing::IsEmpty());

  // A random error in a random share: a wrong secret (kDataLoss if the width check sees it).
  std::mt19937_64 rng(1007);
  const ShamirParams params{4, 6};
  for (int trial = 0; trial < 10; ++trial) {
    const std::vector<uint8_t> secret = SecretFromSeed(rng());
    std::vector<ShamirShare> subset = Pick(Split(secret, params), RandomPositions(6, 4, rng));
    Corrupt(subset[rng() % 4], static_cast<int>(rng() % kShamirChunks), RandomDelta(rng));
    absl::StatusOr<ShamirDecoding> wrong = ShamirDecode(subset, params);
    if (!wrong.ok()) {
      EXPECT_EQ(wrong.status().code(), absl::StatusCode::kDataLoss) << wrong.status();
      continue;
    }
    EXPECT_NE(ToHex(wrong->secret), ToHex(secret));
    EXPECT_THAT(wrong->off_polynomial, ::testing::IsEmpty());
  }
}

TEST(ShamirDecodeTest, DecodedChunkOutOfWidthIsDataLoss) {
  // f(x) = 2^56 + x in chunk 0 (one bit too wide), c + x in the others; four consistent shares of
  // a degree-1 polynomial, and then one of them wrong (e = 1).
  std::vector<ShamirShare> shares;
  for (uint32_t x : {1u, 2u, 3u, 4u}) {
    std::vector<uint64_t> y;
    for (uint64_t c : kHandChunks) y.push_back(c + x);
    y[0] = (uint64_t{1} << 56) + x;
    shares.push_back(MakeShare(x, y));
  }
  absl::StatusOr<ShamirDecoding> decoded = ShamirDecode(shares, {2, 4});
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(decoded.status().message(), HasSubstr("chunk 0 does not fit in 7 bytes"));
  Corrupt(shares[2], 0, 12345);
  decoded = ShamirDecode(shares, {2, 4});
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(decoded.status().message(), HasSubstr("chunk 0 does not fit in 7 bytes"));
}

TEST(ShamirDecodeTest, RejectsInvalidInput) {
  const std::vector<ShamirShare> shares = Split(SecretFromSeed(1008), {4, 6});
  absl::StatusOr<ShamirDecoding> decoded = ShamirDecode(Pick(shares, {0, 2, 5}), {4, 6});
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(decoded.status().message(), HasSubstr("at least t=4 shares, got 3"));

  decoded = ShamirDecode(Pick(shares, {0, 1, 3, 4, 1}), {4, 6});
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(decoded.status().message(), HasSubstr("same index 2"));

  std::vector<ShamirShare> bad = Pick(shares, {0, 1, 2, 3, 4});
  bad[4].index = 7;
  EXPECT_EQ(ShamirDecode(bad, {4, 6}).status().code(), absl::StatusCode::kInvalidArgument);
  bad = Pick(shares, {0, 1, 2, 3, 4});
  bad[2].value = SecretBytes(39);
  EXPECT_EQ(ShamirDecode(bad, {4, 6}).status().code(), absl::StatusCode::kInvalidArgument);
  bad = Pick(shares, {0, 1, 2, 3, 4});
  for (int b = 0; b < 8; ++b) bad[3].value.data()[8 + b] = 0xff;
  EXPECT_EQ(ShamirDecode(bad, {4, 6}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ShamirDecode(shares, {0, 6}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ShamirDecode(shares, {7, 6}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ShamirDecodeTest, DecodesThirtyNineSharesWithNineLiars) {
  // t = 20, m = 39: e = 9, a 39 x 38 system per chunk.
  const ShamirParams params{20, 50};
  std::mt19937_64 rng(1009);
  for (int trial = 0; trial < 3; ++trial) {
    const std::vector<uint8_t> secret = SecretFromSeed(rng());
    std::vector<ShamirShare> subset =
        Pick(Split(secret, params), RandomPositions(params.num_shares, 39, rng));
    const std::vector<size_t> liars = RandomPositions(39, 9, rng);
    for (size_t i : liars) {
      // Every chunk on the first trial, a random nonempty subset of chunks afterwards.
      const uint64_t mask = trial == 0 ? 31 : 1 + rng() % 31;
      for (int c = 0; c < kShamirChunks; ++c) {
        if (mask >> c & 1) Corrupt(subset[i], c, RandomDelta(rng));
      }
    }
    absl::StatusOr<ShamirDecoding> decoded = ShamirDecode(subset, params);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(ToHex(decoded->secret), ToHex(secret));
    EXPECT_EQ(decoded->off_polynomial, IndicesAt(subset, liars));
  }
}

}  // namespace
}  // namespace fedmf::crypto
