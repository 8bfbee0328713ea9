#include "common/algorithms/dpmf_rp/calibration.h"

#include <cmath>

#include "common/algorithms/algorithm.h"
#include "common/algorithms/dpmf_rp/codec.h"
#include "common/dp/prefix_sum_noise.h"
#include "common/dp/privacy_ledger.h"
#include "common/dp/rdp_curve.h"
#include "common/dp/rdp_gaussian.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/dpmf_rp/test_util.h"
#include "tests/unit/common/dp_test_stats.h"

namespace fedmf::algorithms::dpmf_rp {
namespace {

DpmfRpConfig Ml100k(Mechanism mechanism) {
  DpmfRpConfig config;
  config.num_users = 943;
  config.num_items = 1682;
  config.mechanism = mechanism;
  return config;
}

TEST(DpmfRpCalibrationTest, PbmMatchesThePublishedTableForMl100k) {
  // docs/privacy-accounting.md Table 1: m/p = 3 (p' = 1024, d = 14336), epsilon = 1 at alpha = 2
  // over T = 100 rounds, n_min = 94: theta = 0.00202028, q = 1. Table 4 (n_min = 1, no SecAgg):
  // theta = 0.000208798.
  DpmfRpConfig config = Ml100k(Mechanism::kPbm);
  config.pbm_accounting = PbmAccounting::kCoordinate;
  absl::StatusOr<v1::DpmfRpMechanism> params = CalibrateMechanism(config);
  ASSERT_TRUE(params.ok()) << params.status();
  EXPECT_NEAR(params->pbm_theta(), 0.00202028, 1e-8);
  EXPECT_EQ(params->pbm_q(), 1);
  config.secure_aggregation = false;
  params = CalibrateMechanism(config);
  ASSERT_TRUE(params.ok());
  EXPECT_NEAR(params->pbm_theta(), 0.000208798, 1e-9);
}

TEST(DpmfRpCalibrationTest, PbmRoundsComposeToTheBudget) {
  DpmfRpConfig config = Ml100k(Mechanism::kPbm);
  config.pbm_accounting = PbmAccounting::kCoordinate;
  config.rounds = 10;
  const v1::DpmfRpMechanism params = CalibrateMechanism(config).value();
  const std::vector<double> orders = dp::DefaultOrders();
  absl::StatusOr<std::optional<dp::LedgerEntry>> entry =
      RoundLedgerEntry(config, params, 3, 94, orders);
  ASSERT_TRUE(entry.ok()) << entry.status();
  ASSERT_TRUE(entry->has_value());
  const dp::LedgerEntry& e = **entry;
  EXPECT_EQ(e.mechanism, "pbm");
  EXPECT_EQ(e.unit, dp::PrivacyUnit::kUser);  // a round protects one user's whole contribution
  EXPECT_FALSE(e.pure_epsilon.has_value());
  EXPECT_FALSE(e.heterogeneous);
  EXPECT_EQ(e.round, 3);
  EXPECT_EQ(e.participants, 94);
  EXPECT_EQ(e.n_min, 94);
  ASSERT_EQ(e.params.size(), 4u);
  EXPECT_EQ(e.params[2].first, "dimension");
  EXPECT_EQ(e.params[2].second, 1024 * 14);
  EXPECT_NEAR(e.params[3].second, 0.64 / 32, 1e-15);  // c = Delta_1 / sqrt(p')
  dp::RdpCurve total = dp::RdpCurve::Zero(orders).value();
  ASSERT_TRUE(total.Compose(dp::RdpCurve::Create(orders, e.rdp).value(), 10).ok());
  // The calibration keeps the largest theta within the budget (bisection to 1e-6 relative, and the
  // RDP is about quadratic in theta).
  EXPECT_LE(total.At(2).value(), 1.0);
  EXPECT_GE(total.At(2).value(), 1.0 - 1e-5);
  // A sum with fewer participants than n_min is not a valid release.
  EXPECT_FALSE(RoundLedgerEntry(config, params, 3, 93, orders).ok());
}

// Charged by the L2 shift, rotated_l2 (c = gamma C / sqrt(D)): the vector's norm is at most
// sqrt(D) / gamma times c, so a round costs about gamma^2 = 4 times less than coordinate by
// coordinate, and theta about 2 times larger; the ledger's rounds still compose to the budget.
TEST(DpmfRpCalibrationTest, PbmL2AccountingComposesToTheBudget) {
  DpmfRpConfig config = Ml100k(Mechanism::kPbm);
  config.pbm_geometry = PbmGeometry::kRotatedL2;
  config.pbm_clip_multiplier = 2;
  config.rounds = 10;
  config.pbm_accounting = PbmAccounting::kCoordinate;
  const double coordinate_theta = CalibrateMechanism(config).value().pbm_theta();
  config.pbm_accounting = PbmAccounting::kL2;
  EXPECT_NEAR(PbmL2OverClip(config), std::sqrt(8192.0) / 2, 1e-6);
  const v1::DpmfRpMechanism params = CalibrateMechanism(config).value();
  EXPECT_GT(params.pbm_theta(), 1.9 * coordinate_theta);
  EXPECT_LT(params.pbm_theta(), 2.1 * coordinate_theta);
  const std::vector<double> orders = dp::DefaultOrders();
  const dp::LedgerEntry entry = RoundLedgerEntry(config, params, 0, 94, orders).value().value();
  ASSERT_EQ(entry.params.size(), 5u);
  EXPECT_EQ(entry.params[4].first, "l2_over_clip");
  dp::RdpCurve total = dp::RdpCurve::Zero(orders).value();
  ASSERT_TRUE(total.Compose(dp::RdpCurve::Create(orders, entry.rdp).value(), 10).ok());
  EXPECT_LE(total.At(2).value(), 1.0);
  EXPECT_GE(total.At(2).value(), 1.0 - 1e-5);
}

TEST(DpmfRpCalibrationTest, GaussianNoiseMultiplierWorkedByHand) {
  // RDP of T rounds at alpha = 2 is T * 2 / (2 z^2) = T / z^2 = epsilon, so z = sqrt(100 / 1) = 10;
  // Delta_2 = 2 (0.64 + sqrt(561 * 14) / 2^24).
  DpmfRpConfig config = Ml100k(Mechanism::kGaussian);
  const double sensitivity = 2 * (0.64 + std::sqrt(561.0 * 14) / 16777216.0);
  EXPECT_NEAR(GaussianSensitivity(config), sensitivity, 1e-15);
  absl::StatusOr<v1::DpmfRpMechanism> params = CalibrateMechanism(config);
  ASSERT_TRUE(params.ok()) << params.status();
  EXPECT_NEAR(params->gaussian_noise_std(), 10 * sensitivity, 1e-7);
  absl::StatusOr<std::optional<dp::LedgerEntry>> entry =
      RoundLedgerEntry(config, *params, 0, 94, dp::DefaultOrders());
  ASSERT_TRUE(entry.ok()) << entry.status();
  ASSERT_TRUE(entry->has_value());
  EXPECT_EQ((*entry)->mechanism, "secagg-gaussian");
  EXPECT_EQ((*entry)->unit, dp::PrivacyUnit::kUser);
  // One round at alpha = 2: 1 / z^2 = 0.01.
  EXPECT_NEAR(dp::RdpCurve::Create(dp::DefaultOrders(), (*entry)->rdp).value().At(2).value(), 0.01,
              1e-8);
}

// DDG on ML100K, every user every round (n_min = 943), (5, 1e-5)-DP over T = 100 rounds,
// 20-bit sums. C = e (1 + kappa) B1 = 0.016, D = NextPowerOfTwo(561 * 14) = 8192. The scale must
// be a power of two, the largest whose sum fits 20 bits. With v >> 1 KLS's tau is below 1e-100,
// so the bound is the Gaussian's alpha l2^2 / 2: the total noise over the replace-one
// sensitivity 2 Delta_2 must be the Gaussian noise multiplier for the same budget, with
// Delta_2^2 = floor((gamma C)^2 + D / 4 + sqrt(2 ln(1 / beta)) (gamma C + sqrt(D) / 2)),
// sqrt(2 ln(1/beta)) = 1 at KLS's beta = e^(-1/2).
TEST(DpmfRpCalibrationTest, DdgIsTheGaussianMultiplierOnTheRoundedSensitivity) {
  DpmfRpConfig config = Ml100k(Mechanism::kDdg);
  config.participation = 1;
  config.epsilon = 5;
  config.delta = 1e-5;
  absl::StatusOr<v1::DpmfRpMechanism> params = CalibrateMechanism(config);
  ASSERT_TRUE(params.ok()) << params.status();
  const double gamma = params->ddg_scale();
  EXPECT_EQ(std::exp2(std::round(std::log2(gamma))), gamma);
  const double gc = gamma * 0.016;
  const double delta2 = std::sqrt(std::floor(gc * gc + 8192.0 / 4 + gc + std::sqrt(8192.0) / 2));
  const double z = dp::CalibrateGaussianNoiseMultiplier(dp::PrivacyBudget::ApproxDp(5, 1e-5), 1,
                                                        100, dp::DefaultOrders())
                       .value();
  EXPECT_NEAR(params->ddg_noise_std() * gamma / (2 * delta2), z, 1e-6 * z);

  absl::StatusOr<std::optional<dp::LedgerEntry>> entry =
      RoundLedgerEntry(config, *params, 0, 943, dp::DefaultOrders());
  ASSERT_TRUE(entry.ok()) << entry.status();
  ASSERT_TRUE(entry->has_value());
  EXPECT_EQ((*entry)->mechanism, "ddg");
  EXPECT_EQ((*entry)->unit, dp::PrivacyUnit::kUser);
  ASSERT_EQ((*entry)->params.size(), 5u);
  EXPECT_EQ((*entry)->params[4].first, "bits");
  EXPECT_LE((*entry)->params[4].second, 20);
  // The largest scale: twice it no longer fits 20 bits.
  v1::DpmfRpMechanism doubled = *params;
  doubled.set_ddg_scale(2 * gamma);
  doubled.set_ddg_noise_std(params->ddg_noise_std());
  absl::StatusOr<std::optional<dp::LedgerEntry>> wider =
      RoundLedgerEntry(config, doubled, 0, 943, dp::DefaultOrders());
  ASSERT_TRUE(wider.ok()) << wider.status();
  EXPECT_GT((*wider)->params[4].second, 20);
}

TEST(DpmfRpCalibrationTest, NoneHasNoParametersAndNoLedgerEntry) {
  const DpmfRpConfig config = Ml100k(Mechanism::kNone);
  absl::StatusOr<v1::DpmfRpMechanism> params = CalibrateMechanism(config);
  ASSERT_TRUE(params.ok());
  EXPECT_EQ(params->ByteSizeLong(), 0u);
  absl::StatusOr<std::optional<dp::LedgerEntry>> entry =
      RoundLedgerEntry(config, *params, 0, 94, dp::DefaultOrders());
  ASSERT_TRUE(entry.ok());
  EXPECT_FALSE(entry->has_value());
}

// With the prefix-sum schedule the calibrated sigma is the constant schedule's, round t carries
// sigma * PrefixSumNoiseFactor(T, t), and the coordinator's ledger (CanAfford before each round,
// as the round driver asks) lets exactly the T rounds run and spends the whole budget.
TEST(DpmfRpCalibrationTest, PrefixSumScheduleSpendsTheBudgetRoundByRound) {
  DpmfRpConfig config = Ml100k(Mechanism::kGaussian);
  config.participation = 1;
  config.epsilon = 5;
  config.delta = 1e-5;
  config.rounds = 10;
  const v1::DpmfRpMechanism constant = CalibrateMechanism(config).value();
  config.noise_schedule = NoiseSchedule::kPrefixSum;
  const v1::DpmfRpMechanism params = CalibrateMechanism(config).value();
  EXPECT_EQ(params.gaussian_noise_std(), constant.gaussian_noise_std());
  dp::PrivacyLedger ledger = dp::PrivacyLedger::Create().value();
  for (int64_t t = 0; t <= config.rounds; ++t) {
    const v1::DpmfRpMechanism round = RoundMechanism(config, params, t).value();
    const double factor = dp::PrefixSumNoiseFactor(config.rounds, std::min<int64_t>(t, 9)).value();
    EXPECT_DOUBLE_EQ(round.gaussian_noise_std(), params.gaussian_noise_std() * factor) << t;
    const dp::LedgerEntry entry =
        RoundLedgerEntry(config, round, t, 943, ledger.orders()).value().value();
    EXPECT_EQ(entry.params[0].first, "noise_std");
    EXPECT_EQ(entry.params[0].second, round.gaussian_noise_std());
    const bool affordable = ledger.CanAfford(entry, Budget(config)).value();
    if (t == config.rounds) {
      EXPECT_FALSE(affordable);  // the budget is spent: round T never runs
    } else {
      ASSERT_TRUE(affordable) << t;
      ASSERT_TRUE(ledger.Append(entry).ok());
    }
  }
  const dp::PrivacyReport report = ledger.Report(1e-5).value();
  EXPECT_LE(report.improved.epsilon, 5);
  EXPECT_GT(report.improved.epsilon, 5 - 1e-6);
  EXPECT_FALSE(RoundMechanism(config, params, -1).ok());
  config.noise_schedule = NoiseSchedule::kConstant;
  EXPECT_EQ(RoundMechanism(config, params, 7)->gaussian_noise_std(), params.gaussian_noise_std());
}

// The decoded sum of round t's encodings (20 clients = n_min) carries noise of variance
// (sigma f_t)^2, plus at most 20 / (4 gamma^2) of stochastic rounding (gamma = 2^24): checked on
// the first and the last of T = 10 rounds, whose variances differ by a factor sqrt(10).
TEST(DpmfRpCalibrationTest, PrefixSumRoundsCarryTheirScheduledNoise) {
  DpmfRpConfig config = testing::SmallConfig(Mechanism::kGaussian, Projection::kSparse);
  config.contribution_clip = 1;
  config.noise_schedule = NoiseSchedule::kPrefixSum;
  v1::DpmfRpMechanism params;
  params.set_gaussian_noise_std(0.5);
  dp::Rng rng(11);
  constexpr int kRepeats = 400;
  for (int64_t t : {0, 9}) {
    const ContributionCodec codec =
        ContributionCodec::Create(config, RoundMechanism(config, params, t).value(), 0, 3).value();
    ASSERT_EQ(codec.length(), 12);
    std::vector<double> noise;
    for (int r = 0; r < kRepeats; ++r) {
      std::vector<uint64_t> sum(12, 0);
      for (int i = 0; i < 20; ++i) {
        const std::vector<uint64_t> v = codec.Encode(Eigen::MatrixXd::Zero(4, 3), rng).value();
        ASSERT_TRUE(AddModPow2(v, codec.bits(), absl::MakeSpan(sum)).ok());
      }
      const Eigen::MatrixXd decoded = codec.DecodeSum(sum, 20).value();
      noise.insert(noise.end(), decoded.data(), decoded.data() + decoded.size());
    }
    const double f = dp::PrefixSumNoiseFactor(10, t).value();
    const double variance = 0.25 * f * f;
    const dp::testing::Moments m = dp::testing::ComputeMoments(noise);
    EXPECT_NEAR(m.variance, variance, dp::testing::kSigmas * m.variance_se + 20 * 0x1p-50) << t;
    EXPECT_NEAR(m.mean, 0, dp::testing::kSigmas * std::sqrt(variance / noise.size())) << t;
  }
}

}  // namespace
}  // namespace fedmf::algorithms::dpmf_rp
