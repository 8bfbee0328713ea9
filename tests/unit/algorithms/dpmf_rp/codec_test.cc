#include "common/algorithms/dpmf_rp/codec.h"

#include <cmath>
#include <vector>

#include "common/algorithms/algorithm.h"
#include "common/dp/hadamard.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/dpmf_rp/test_util.h"
#include "tests/unit/common/dp_test_stats.h"

namespace fedmf::algorithms::dpmf_rp {
namespace {

using testing::SmallConfig;

// Adds the encodings of `xs` mod 2^bits, as SecAgg would, and decodes the sum.
Eigen::MatrixXd EncodeSumDecode(const ContributionCodec& codec,
                                const std::vector<Eigen::MatrixXd>& xs, dp::Rng& rng) {
  std::vector<uint64_t> sum(static_cast<size_t>(codec.length()), 0);
  for (const Eigen::MatrixXd& x : xs) {
    std::vector<uint64_t> v = codec.Encode(x, rng).value();
    EXPECT_TRUE(AddModPow2(v, codec.bits(), absl::MakeSpan(sum)).ok());
  }
  return codec.DecodeSum(sum, static_cast<int64_t>(xs.size())).value();
}

std::vector<Eigen::MatrixXd> RandomContributions(int count, int64_t rows, int cols, double scale,
                                                 uint64_t seed) {
  dp::Rng rng(seed);
  std::vector<Eigen::MatrixXd> xs;
  for (int i = 0; i < count; ++i) {
    Eigen::MatrixXd x(rows, cols);
    for (Eigen::Index j = 0; j < x.size(); ++j) {
      x.data()[j] = scale * (static_cast<double>(rng() >> 11) * 0x1p-53 * 2 - 1);
    }
    xs.push_back(x);
  }
  return xs;
}

TEST(DpmfRpCodecTest, NoneDecodesTheExactSumUpToTheFixedPointResolution) {
  DpmfRpConfig config = SmallConfig(Mechanism::kNone, Projection::kSparse);  // p = 4, k = 3
  config.user_l1_clip = 0.25 / 16 / 2;
  // L = e (1 + kappa) B1 * (most items in a bucket) = 1 * 16 * (0.25 / 32) * 2 = 0.25.
  EXPECT_EQ(NoneCoordinateBound(config, 2), 0.25);
  absl::StatusOr<ContributionCodec> codec = ContributionCodec::Create(config, {}, 7, 2);
  ASSERT_TRUE(codec.ok()) << codec.status();
  EXPECT_EQ(codec->length(), 12);
  // R = 20 (2^24 * 0.25 + 1) = 83886100; 2^27 < 2R = 167772200 < 2^28, so 2^(b-1) > 2R at b = 29.
  EXPECT_EQ(codec->bits(), 29);
  EXPECT_EQ(codec->client_bits(), 29);
  dp::Rng rng(1);
  const std::vector<Eigen::MatrixXd> xs = RandomContributions(20, 4, 3, 0.25, 2);
  Eigen::MatrixXd truth = Eigen::MatrixXd::Zero(4, 3);
  for (const Eigen::MatrixXd& x : xs) truth += x;
  // Stochastic rounding moves each client's coordinate by < 1 grid step of 2^-24.
  const Eigen::MatrixXd decoded = EncodeSumDecode(*codec, xs, rng);
  EXPECT_LT((decoded - truth).cwiseAbs().maxCoeff(), 20 * std::ldexp(1.0, -24));
  // Negative sums survive the modular wrap (centered lift).
  EXPECT_LT(truth.minCoeff(), 0);
}

TEST(DpmfRpCodecTest, PbmSumIsUnbiasedAndClipsToDelta1) {
  // p = 4 (p' = 4), k = 3: 12 coordinates, c = Delta_1 / 2 = 0.5, theta = 1/4, q = 4.
  DpmfRpConfig config = SmallConfig(Mechanism::kPbm, Projection::kSparse);
  config.num_users = 5;
  config.contribution_clip = 1;
  v1::DpmfRpMechanism params;
  params.set_pbm_theta(0.25);
  params.set_pbm_q(4);
  absl::StatusOr<ContributionCodec> codec = ContributionCodec::Create(config, params, 99, 3);
  ASSERT_TRUE(codec.ok()) << codec.status();
  EXPECT_EQ(codec->length(), 12);
  EXPECT_EQ(codec->client_bits(), 3);                                       // values 0..4
  EXPECT_EQ(codec->bits(), 5);                                              // sums 0..20
  std::vector<Eigen::MatrixXd> xs = RandomContributions(5, 4, 3, 0.08, 3);  // L1 <= 0.96
  xs[4] *= 10;                                                              // L1 up to 9.6
  Eigen::MatrixXd truth = Eigen::MatrixXd::Zero(4, 3);
  for (const Eigen::MatrixXd& x : xs) {
    const double l1 = x.cwiseAbs().sum();
    truth += l1 > 1 ? Eigen::MatrixXd(x / l1) : x;  // the codec clips to L1 norm Delta_1 = 1
  }
  ASSERT_GT(xs[4].cwiseAbs().sum(), 1);
  dp::Rng rng(4);
  const int kRepeats = 4000;
  Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(4, 3);
  for (int r = 0; r < kRepeats; ++r) {
    std::vector<uint64_t> one = codec->Encode(xs[0], rng).value();
    for (uint64_t z : one) ASSERT_LE(z, 4u);
    mean += EncodeSumDecode(*codec, xs, rng) / kRepeats;
  }
  // Each flattened coordinate of the decoded sum has variance <= n c^2 / (4 q theta^2) =
  // 5 * 0.25 / (4 * 4 / 16) = 1.25 (pbm.h), independent across coordinates, and RevMat is
  // orthonormal, so every output coordinate too. CLT: the mean of 4000 repeats has std <= 0.018;
  // 5.5 std bounds all 12 coordinates with probability > 1 - 12 * 4e-8.
  const double tolerance = 5.5 * std::sqrt(1.25 / kRepeats);
  EXPECT_LT((mean - truth).cwiseAbs().maxCoeff(), tolerance);
}

TEST(DpmfRpCodecTest, RotatedL2PbmSumIsUnbiasedAndClipsToC) {
  // p = 4, k = 3: the flattened X (12 entries) is padded to D = 16, c = gamma C / sqrt(16) with
  // C = 1 and gamma = 4: c = 1. theta = 1/4, q = 4.
  DpmfRpConfig config = SmallConfig(Mechanism::kPbm, Projection::kSparse);
  config.num_users = 5;
  config.pbm_geometry = PbmGeometry::kRotatedL2;
  config.contribution_clip = 1;
  config.pbm_clip_multiplier = 4;
  EXPECT_EQ(PbmDimension(config), 16);
  EXPECT_EQ(PbmCoordinateClip(config), 1);
  v1::DpmfRpMechanism params;
  params.set_pbm_theta(0.25);
  params.set_pbm_q(4);
  absl::StatusOr<ContributionCodec> codec = ContributionCodec::Create(config, params, 99, 3);
  ASSERT_TRUE(codec.ok()) << codec.status();
  EXPECT_EQ(codec->length(), 16);
  EXPECT_EQ(codec->bits(), 5);  // sums 0..20
  // Entries within 0.2: ||X||_2 <= 0.2 sqrt(12) < 0.7, so every rotated entry is within
  // ||X||_2 < c and nothing is clamped; xs[4] is scaled to norm 10 and clipped to C = 1, after
  // which its rotated entries are also within 1 = c.
  std::vector<Eigen::MatrixXd> xs = RandomContributions(5, 4, 3, 0.2, 3);
  xs[4] *= 10 / xs[4].norm();
  Eigen::MatrixXd truth = Eigen::MatrixXd::Zero(4, 3);
  for (const Eigen::MatrixXd& x : xs) truth += x.norm() > 1 ? Eigen::MatrixXd(x / x.norm()) : x;
  dp::Rng rng(4);
  const int kRepeats = 4000;
  Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(4, 3);
  for (int r = 0; r < kRepeats; ++r) mean += EncodeSumDecode(*codec, xs, rng) / kRepeats;
  // Variance per rotated coordinate <= n c^2 / (4 q theta^2) = 5 / (4 * 4 / 16) = 5; the inverse
  // rotation is orthonormal. The mean of 4000 repeats has std <= 0.035; 5.5 std bounds all 12.
  const double tolerance = 5.5 * std::sqrt(5.0 / kRepeats);
  EXPECT_LT((mean - truth).cwiseAbs().maxCoeff(), tolerance);
}

TEST(DpmfRpCodecTest, GaussianSumIsUnbiased) {
  DpmfRpConfig config = SmallConfig(Mechanism::kGaussian, Projection::kSparse);
  config.contribution_clip = 1;
  v1::DpmfRpMechanism params;
  params.set_gaussian_noise_std(0.5);  // in a sum of n_min = 20 clients
  absl::StatusOr<ContributionCodec> codec = ContributionCodec::Create(config, params, 0, 3);
  ASSERT_TRUE(codec.ok()) << codec.status();
  EXPECT_EQ(codec->length(), 12);
  const std::vector<Eigen::MatrixXd> xs = RandomContributions(20, 4, 3, 0.05, 5);  // L2 < 1
  Eigen::MatrixXd truth = Eigen::MatrixXd::Zero(4, 3);
  for (const Eigen::MatrixXd& x : xs) truth += x;
  dp::Rng rng(6);
  const int kRepeats = 400;
  Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(4, 3);
  for (int r = 0; r < kRepeats; ++r) mean += EncodeSumDecode(*codec, xs, rng) / kRepeats;
  // Noise std 0.5 in the sum (rounding adds < 20 * 2^-24): the mean of 400 has std 0.025.
  EXPECT_LT((mean - truth).cwiseAbs().maxCoeff(), 5.5 * 0.5 / std::sqrt(kRepeats));
}

// DDG: p = 4, k = 3, so 12 entries rotated in D = 16; 20 clients, C = 1, gamma = 64 and
// sigma = sqrt(20 * 100) / 64, so each client adds N_Z(0, v) with v = 100 (rounded up to a
// rational by at most 2^-40). Inputs have L2 norm <= 0.2 C, so conditional rounding never rejects
// (|| rounded || <= gamma 0.2 + sqrt(16) = 16.8 < Delta_2 ~ 64): plain unbiased stochastic
// rounding. Per rotated coordinate the decoded sum's variance is (20 v + r) / gamma^2 with r the
// 20 roundings' variance, 0 <= r <= 20 / 4; the inverse rotation is orthonormal and the noise
// i.i.d. across coordinates, so every decoded entry's variance lies in [2000, 2005] / 64^2.
TEST(DpmfRpCodecTest, DdgSumIsUnbiasedWithThePredictedVariance) {
  DpmfRpConfig config = SmallConfig(Mechanism::kDdg, Projection::kSparse);
  config.contribution_clip = 1;
  v1::DpmfRpMechanism params;
  params.set_ddg_scale(64);
  params.set_ddg_noise_std(std::sqrt(2000.0) / 64);
  absl::StatusOr<ContributionCodec> codec = ContributionCodec::Create(config, params, 7, 3);
  ASSERT_TRUE(codec.ok()) << codec.status();
  EXPECT_EQ(codec->length(), 16);
  const std::vector<Eigen::MatrixXd> xs = RandomContributions(20, 4, 3, 0.05, 8);  // L2 < 0.18
  Eigen::MatrixXd truth = Eigen::MatrixXd::Zero(4, 3);
  for (const Eigen::MatrixXd& x : xs) truth += x;
  dp::Rng rng(9);
  constexpr int kRepeats = 4000;
  std::vector<std::vector<double>> decoded(12);
  for (int r = 0; r < kRepeats; ++r) {
    const Eigen::MatrixXd sum = EncodeSumDecode(*codec, xs, rng);
    for (int j = 0; j < 12; ++j) decoded[j].push_back(sum.data()[j] - truth.data()[j]);
  }
  const double low = 2000.0 / (64 * 64), high = 2005.0 / (64 * 64);
  for (int j = 0; j < 12; ++j) {
    const dp::testing::Moments m = dp::testing::ComputeMoments(decoded[j]);
    EXPECT_NEAR(m.mean, 0, dp::testing::kSigmas * std::sqrt(high / kRepeats)) << j;
    EXPECT_GT(m.variance, low - dp::testing::kSigmas * m.variance_se) << j;
    EXPECT_LT(m.variance, high + dp::testing::kSigmas * m.variance_se) << j;
  }
}

TEST(DpmfRpCodecTest, RejectsBadInputs) {
  DpmfRpConfig config = SmallConfig(Mechanism::kNone, Projection::kNone);  // p = 12, k = 3
  EXPECT_FALSE(ContributionCodec::Create(config, {}, 0, 0).ok());
  EXPECT_FALSE(ContributionCodec::Create(config, {}, 0, 13).ok());
  ContributionCodec codec = ContributionCodec::Create(config, {}, 0, 1).value();  // L = 0.016
  dp::Rng rng(1);
  EXPECT_FALSE(codec.Encode(Eigen::MatrixXd::Zero(12, 2), rng).ok());
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(12, 3);
  x(5, 1) = 0.02;  // beyond L
  EXPECT_FALSE(codec.Encode(x, rng).ok());
  x(5, 1) = std::nan("");
  EXPECT_FALSE(codec.Encode(x, rng).ok());
  std::vector<uint64_t> sum(36, 0);
  EXPECT_TRUE(codec.DecodeSum(sum, 20).ok());
  EXPECT_FALSE(codec.DecodeSum(sum, 19).ok());  // fewer than n_min = 20
  EXPECT_FALSE(codec.DecodeSum(sum, 21).ok());  // more than the cohort
  EXPECT_FALSE(codec.DecodeSum(std::vector<uint64_t>(35, 0), 20).ok());
  sum[3] = uint64_t{1} << (codec.bits() - 1);  // a lift far outside the range: a wrapped sum
  EXPECT_FALSE(codec.DecodeSum(sum, 20).ok());

  config.mechanism = Mechanism::kPbm;
  v1::DpmfRpMechanism pbm;
  pbm.set_pbm_theta(0.3);  // > 1/4
  pbm.set_pbm_q(1);
  EXPECT_FALSE(ContributionCodec::Create(config, pbm, 0, 1).ok());
  pbm.set_pbm_theta(0.1);
  pbm.set_pbm_q(0);
  EXPECT_FALSE(ContributionCodec::Create(config, pbm, 0, 1).ok());
}

}  // namespace
}  // namespace fedmf::algorithms::dpmf_rp
