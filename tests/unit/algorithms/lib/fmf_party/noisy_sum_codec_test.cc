// lib/fmf_party/noisy_sum_codec.h: the per-party clamp sits kNoiseTailStddevs noise stddevs beyond
// the noiseless bound, whose tail probability (closed form) is below the header's 4e-33; values
// inside the clamp round-trip through the sum of s uploads to half a unit each, values outside
// saturate at the bound and are counted, and s uploads all at +B or all at -B decode without
// wrapping.
#include "common/algorithms/lib/fmf_party/noisy_sum_codec.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "gtest/gtest.h"

namespace fedmf::algorithms::fmf_party {
namespace {

constexpr int64_t kParties = 4;

// The sum mod 2^bits of the parties' encoded uploads, as secure aggregation returns it.
std::vector<uint64_t> SumMod(const Codec& codec, const std::vector<std::vector<uint64_t>>& ups) {
  const uint64_t mask = codec.bits == 64 ? ~uint64_t{0} : (uint64_t{1} << codec.bits) - 1;
  std::vector<uint64_t> sum(ups[0].size(), 0);
  for (const auto& u : ups) {
    for (size_t k = 0; k < u.size(); ++k) sum[k] = (sum[k] + u[k]) & mask;
  }
  return sum;
}

TEST(NoisySumCodecTest, ClampSitsTwelveStddevsOutAndItsTailIsNegligible) {
  const NoisySumCodec codec = *MakeNoisySumCodec(/*clean_bound=*/100, /*noise_stddev=*/3, kParties);
  EXPECT_DOUBLE_EQ(codec.party_bound, 100 + 12 * 3);
  // P(|N(0, 1)| > 12) = erfc(12 / sqrt 2).
  EXPECT_LT(std::erfc(kNoiseTailStddevs / std::sqrt(2.0)), 4e-33);
}

TEST(NoisySumCodecTest, ValuesInsideTheClampRoundTripThroughTheSum) {
  const NoisySumCodec codec = *MakeNoisySumCodec(50, 2, kParties);
  std::vector<std::vector<uint64_t>> ups;
  Eigen::VectorXd want = Eigen::VectorXd::Zero(3);
  for (int64_t k = 0; k < kParties; ++k) {
    Eigen::VectorXd v(3);
    v << -73.25 + static_cast<double>(k), 0.123456789 * static_cast<double>(k), 73.9;
    const SaturatedUpload up = *EncodeSaturating(codec, v);
    EXPECT_EQ(up.saturated, 0);
    ups.push_back(up.encoded);
    want += v;
  }
  const Eigen::VectorXd got = *Decode(codec.codec, SumMod(codec.codec, ups));
  const double half_units = kParties * std::ldexp(0.5, -kGradientFractionBits);
  EXPECT_LE((got - want).cwiseAbs().maxCoeff(), half_units + 1e-12);
}

TEST(NoisySumCodecTest, ValuesOutsideSaturateAndTheExtremeSumsDoNotWrap) {
  const NoisySumCodec codec = *MakeNoisySumCodec(10, 1, kParties);
  const double b = codec.party_bound;
  for (const double sign : {1.0, -1.0}) {
    std::vector<std::vector<uint64_t>> ups;
    for (int64_t k = 0; k < kParties; ++k) {
      Eigen::VectorXd v(3);
      v << sign * 1e12, sign * std::nextafter(b, 2 * b), sign * b;
      const SaturatedUpload up = *EncodeSaturating(codec, v);
      EXPECT_EQ(up.saturated, 2);  // at B exactly: not clamped
      ups.push_back(up.encoded);
    }
    const Eigen::VectorXd got = *Decode(codec.codec, SumMod(codec.codec, ups));
    for (Eigen::Index k = 0; k < 3; ++k) EXPECT_NEAR(got[k], sign * kParties * b, 1e-6);
  }
}

TEST(NoisySumCodecTest, RejectsBadInput) {
  EXPECT_FALSE(MakeNoisySumCodec(-1, 1, 2).ok());
  EXPECT_FALSE(MakeNoisySumCodec(1, NAN, 2).ok());
  EXPECT_FALSE(MakeNoisySumCodec(1, 1, 0).ok());
  const NoisySumCodec codec = *MakeNoisySumCodec(1, 1, 2);
  Eigen::VectorXd v(1);
  v << NAN;
  EXPECT_EQ(EncodeSaturating(codec, v).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::algorithms::fmf_party
