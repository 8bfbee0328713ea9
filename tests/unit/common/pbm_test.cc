#include "common/dp/pbm.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "Eigen/Core"
#include "common/dp/hadamard.h"
#include "common/dp/rng.h"
#include "common/dp/samplers.h"
#include "common/dp/sparse_projection.h"
#include "gtest/gtest.h"
#include "tests/unit/common/dp_test_stats.h"

namespace fedmf::dp {
namespace {

using testing::ComputeMoments;
using testing::kSigmas;
using testing::Moments;

TEST(PbmTest, ValidatesParameters) {
  EXPECT_TRUE(ValidatePbmParams({1, 0.25, 1}).ok());
  EXPECT_FALSE(ValidatePbmParams({0, 0.25, 1}).ok());
  EXPECT_FALSE(ValidatePbmParams({1, 0, 1}).ok());
  EXPECT_FALSE(ValidatePbmParams({1, 0.26, 1}).ok());
  EXPECT_FALSE(ValidatePbmParams({1, 0.25, 0}).ok());
  EXPECT_FALSE(ValidatePbmParams({std::numeric_limits<double>::infinity(), 0.25, 1}).ok());
  Rng rng(1);
  EXPECT_FALSE(ScalarPbm(0, {1, 0.3, 1}, PbmRangePolicy::kClamp, rng).ok());
}

// p = theta x / c + 1/2 with c = 2, theta = 1/4: x = 1 -> 5/8, x = -2 -> 1/4, x = 2 -> 3/4.
TEST(PbmTest, SuccessProbabilityByHand) {
  const PbmParams params{2, 0.25, 3};
  EXPECT_EQ(PbmSuccessProbability(1, params), 0.625);
  EXPECT_EQ(PbmSuccessProbability(-2, params), 0.25);
  EXPECT_EQ(PbmSuccessProbability(2, params), 0.75);
}

// Clamping maps x > c to c: same seed, same output as x = c. kReject refuses it but tolerates a
// 1e-13 relative excess (floating-point rounding of an upstream bound).
TEST(PbmTest, RangePolicies) {
  const PbmParams params{2, 0.25, 50};
  Rng clamped(7), at_bound(7), within_slack(7);
  const uint64_t expected = *ScalarPbm(2.0, params, PbmRangePolicy::kReject, at_bound);
  EXPECT_EQ(*ScalarPbm(2.5, params, PbmRangePolicy::kClamp, clamped), expected);
  EXPECT_EQ(*ScalarPbm(2.0 * (1 + 1e-13), params, PbmRangePolicy::kReject, within_slack), expected);
  Rng rng(8);
  EXPECT_EQ(ScalarPbm(2.5, params, PbmRangePolicy::kReject, rng).status().code(),
            absl::StatusCode::kInvalidArgument);
  const absl::Status status =
      PbmEncode(Eigen::Vector3d(0, -3, 0), params, PbmRangePolicy::kReject, rng).status();
  EXPECT_NE(status.message().find("input 1"), absl::string_view::npos) << status;
  EXPECT_FALSE(ScalarPbm(std::nan(""), params, PbmRangePolicy::kClamp, rng).ok());
}

TEST(PbmTest, OutputsLieInZeroToQ) {
  Rng rng(2);
  const PbmParams params{1, 0.25, 5};
  Eigen::VectorXd x(1000);
  for (Eigen::Index j = 0; j < x.size(); ++j) x[j] = 2 * UniformUnit(rng) - 1;
  const absl::StatusOr<std::vector<uint64_t>> z =
      PbmEncode(x, params, PbmRangePolicy::kReject, rng);
  ASSERT_TRUE(z.ok());
  for (uint64_t zj : *z) EXPECT_LE(zj, 5u);
}

// c = 1, theta = 1/4, q = 4, n = 2: unit c/(q theta) = 1, center n q / 2 = 4.
TEST(PbmTest, DecoderByHand) {
  const PbmParams params{1, 0.25, 4};
  const std::vector<uint64_t> sum = {4, 6, 0, 8};
  EXPECT_EQ(*PbmDecodeSum(sum, params, 2), Eigen::Vector4d(0, 2, -4, 4));
  EXPECT_EQ(*PbmDecodeMean(sum, params, 2), Eigen::Vector4d(0, 1, -2, 2));
  const std::vector<uint64_t> too_big = {9};
  EXPECT_EQ(PbmDecodeSum(too_big, params, 2).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(PbmDecodeSum(sum, params, 0).ok());
}

// ceil(log2(n q + 1)): n q = 30 -> 5, 31 -> 5, 32 -> 6, 1 -> 1, 94 * 16 = 1504 -> 11.
TEST(PbmTest, SumBits) {
  EXPECT_EQ(PbmSumBits(10, 3), 5);
  EXPECT_EQ(PbmSumBits(31, 1), 5);
  EXPECT_EQ(PbmSumBits(32, 1), 6);
  EXPECT_EQ(PbmSumBits(1, 1), 1);
  EXPECT_EQ(PbmSumBits(94, 16), 11);
}

// n = 20 clients with fixed inputs; over 3000 rounds the decoded sum has mean sum_i x_i (within
// 5 standard errors) and variance (c/(q theta))^2 sum_i q p_i (1 - p_i) (within 5 CLT errors of
// the sample variance), which is below PbmSumVarianceBound.
TEST(PbmTest, DecodedSumIsUnbiasedWithBinomialVariance) {
  const PbmParams params{1.5, 0.2, 7};
  constexpr int kClients = 20, kDim = 4, kRounds = 3000;
  std::vector<Eigen::VectorXd> inputs(kClients, Eigen::VectorXd(kDim));
  Eigen::VectorXd true_sum = Eigen::VectorXd::Zero(kDim), variance = Eigen::VectorXd::Zero(kDim);
  const double unit = params.clip / (params.trials * params.theta);
  for (int i = 0; i < kClients; ++i) {
    for (int j = 0; j < kDim; ++j) {
      inputs[i][j] = params.clip * std::sin(1.0 + i + 3.0 * j);
      const double p = params.theta * inputs[i][j] / params.clip + 0.5;
      variance[j] += unit * unit * params.trials * p * (1 - p);
    }
    true_sum += inputs[i];
  }
  Rng rng(3);
  std::vector<std::vector<double>> decoded(kDim);
  for (int r = 0; r < kRounds; ++r) {
    std::vector<uint64_t> sum(kDim, 0);
    for (const Eigen::VectorXd& x : inputs) {
      const std::vector<uint64_t> z = *PbmEncode(x, params, PbmRangePolicy::kReject, rng);
      for (int j = 0; j < kDim; ++j) sum[j] += z[j];
    }
    const Eigen::VectorXd estimate = *PbmDecodeSum(sum, params, kClients);
    for (int j = 0; j < kDim; ++j) decoded[j].push_back(estimate[j]);
  }
  for (int j = 0; j < kDim; ++j) {
    const Moments m = ComputeMoments(decoded[j]);
    EXPECT_NEAR(m.mean, true_sum[j], kSigmas * std::sqrt(variance[j] / kRounds)) << j;
    EXPECT_NEAR(m.variance, variance[j], kSigmas * m.variance_se) << j;
    EXPECT_LE(variance[j], PbmSumVarianceBound(params, kClients));
  }
}

// DPMF-RP Lemma 5.2 through the whole pipeline: S, FlatMat, PBM with c = Delta_1/sqrt(p'),
// SecAgg sum, mean decoder, RevMat. With eps the flattened noise (independent coordinates of
// variance v_s = (c/(q theta n))^2 sum_i q p_is (1 - p_is)), every entry of the recovered error
// delta = first p rows of D H eps has variance (1/p') sum_s v_s in its column, and S^T places row
// h(j) at row j, so E||S^T delta||_F^2 = m sum_col (1/p') sum_s v_s (computed per round). The
// empirical mean over rounds matches it within 5 standard errors, and is below both the lemma's
// m k Delta_1^2 / (4 n q theta^2) and the sharper m k c^2 / (4 n q theta^2).
TEST(PbmTest, Lemma52PrivatizationErrorThroughThePipeline) {
  constexpr int64_t kM = 64, kP = 12, kK = 2, kClients = 10, kRounds = 1500;
  constexpr double kDelta1 = 1;
  Rng rng(4);
  const SparseProjection s = *SparseProjection::Create(kM, kP, 99);
  std::vector<Eigen::MatrixXd> projected;
  Eigen::MatrixXd true_mean = Eigen::MatrixXd::Zero(kP, kK);
  for (int i = 0; i < kClients; ++i) {
    Eigen::MatrixXd grad(kM, kK);
    for (int64_t e = 0; e < grad.size(); ++e) grad.data()[e] = StandardNormal(rng);
    grad *= kDelta1 / grad.cwiseAbs().sum();  // ||grad||_{1,1} = Delta_1
    projected.push_back(*s.Apply(grad));
    true_mean += projected.back() / kClients;
  }
  std::vector<double> errors, theory;
  for (int64_t r = 0; r < kRounds; ++r) {
    const RandomizedHadamard h = *RandomizedHadamard::Create(kP, 1000 + r);
    const int64_t padded = h.padded_rows();
    const PbmParams params{FlattenedLinfBound(kDelta1, padded), 0.25, 4};
    const double unit = params.clip / (params.trials * params.theta * kClients);
    std::vector<uint64_t> sum(padded * kK, 0);
    double noise_variance = 0;  // sum over all flattened coordinates of v_s
    for (const Eigen::MatrixXd& b : projected) {
      const Eigen::MatrixXd flat = *h.Flatten(b);
      const Eigen::Map<const Eigen::VectorXd> x(flat.data(), flat.size());
      const std::vector<uint64_t> z = *PbmEncode(x, params, PbmRangePolicy::kReject, rng);
      for (size_t e = 0; e < z.size(); ++e) {
        sum[e] += z[e];
        const double p = PbmSuccessProbability(x[e], params);
        noise_variance += unit * unit * params.trials * p * (1 - p);
      }
    }
    Eigen::VectorXd mean = *PbmDecodeMean(sum, params, kClients);
    const Eigen::MatrixXd recovered =
        *h.Reverse(Eigen::Map<const Eigen::MatrixXd>(mean.data(), padded, kK));
    errors.push_back(s.ApplyTranspose(recovered - true_mean)->squaredNorm());
    theory.push_back(kM * noise_variance / padded);
  }
  const Moments m = ComputeMoments(errors);
  const double expected = ComputeMoments(theory).mean;
  EXPECT_NEAR(m.mean, expected, kSigmas * m.mean_se);
  // Lemma 5.2's bound holds for the exact expectation (it is within 1% of it here, so the
  // sampled mean is only compared with the expectation, above, with its standard error).
  const double q = 4, theta = 0.25, c2 = kDelta1 * kDelta1 / 16;  // p' = 16
  EXPECT_LE(expected, kM * kK * kDelta1 * kDelta1 / (4 * kClients * q * theta * theta));
  EXPECT_LE(expected, kM * kK * c2 / (4 * kClients * q * theta * theta));
}

}  // namespace
}  // namespace fedmf::dp
