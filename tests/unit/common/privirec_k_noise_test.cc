// PriviRec-k's DP option (common/algorithms/privirec_k/noise.h) against independent references:
// the L + 1 ledger entries compose to the budget (the accountant's epsilon at delta) and 0.1% less
// noise would not fit; the decoded noisy power sum is unbiased around the brute-force dense
// A^T A X (A from the definition, with the post-processed noisy degrees) with the calibrated
// variance; a user's power-step contribution never exceeds the stated L2 bound 1 (brute force over
// random users, degree-1 items, noisy degrees and iterates from noisy sums); a population too
// large for dense noise is refused naming the flag.
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "common/algorithms/privirec_k/noise.h"
#include "common/algorithms/privirec_k/privirec_k.h"
#include "common/algorithms/privirec_k/updater.h"
#include "common/algorithms/registry.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/rdp_curve.h"
#include "gtest/gtest.h"
#include "tests/unit/common/graph_filter_test_util.h"

namespace fedmf::algorithms::privirec_k {
namespace dp_option_test {

v1::PriviRecKConfig Config(const data::RatingsDataset& d, int rank, int sums, double epsilon) {
  v1::PriviRecKConfig c;
  c.set_num_items(d.num_items());
  c.set_num_users(d.num_users());
  c.set_rank(rank);
  c.set_power_sums(sums);
  c.set_frac_bits(DefaultFracBits(d.num_users()));
  c.set_seed(7);
  c.set_rayleigh_ritz(true);
  c.set_gamma(0.3);
  c.set_epsilon(epsilon);
  c.set_delta(1e-5);
  c.set_degree_clip(4);
  return c;
}

// Every user's contribution to the planned phase from the plan's contributor, added mod 2^bits.
std::vector<uint64_t> PhaseSum(const PriviRecKUpdater& updater, const data::RatingsDataset& d,
                               dp::Rng& rng) {
  const v1::RoundPlan plan = updater.Plan().value();
  std::unique_ptr<Contributor> contributor = MakeContributor(plan).value();
  std::vector<uint64_t> sum(plan.length(), 0);
  for (int32_t u = 0; u < d.num_users(); ++u) {
    const Contribution c = contributor->Contribute(LocalData::User(d.user(u)), "", rng).value();
    EXPECT_FALSE(c.vector.is_sparse());  // every coordinate carries noise
    EXPECT_TRUE(AddModPow2(c.vector, plan.bits(), absl::MakeSpan(sum)).ok());
  }
  return sum;
}

double Param(const dp::LedgerEntry& entry, const std::string& name) {
  for (const auto& [key, value] : entry.params) {
    if (key == name) return value;
  }
  ADD_FAILURE() << "no " << name;
  return 0;
}

double Spent(const std::vector<dp::LedgerEntry>& entries, const dp::PrivacyBudget& budget) {
  dp::RdpCurve spent = dp::RdpCurve::Zero(dp::DefaultOrders()).value();
  for (const dp::LedgerEntry& e : entries) {
    EXPECT_TRUE(spent.Compose(dp::RdpCurve::Create(dp::DefaultOrders(), e.rdp).value()).ok());
  }
  return dp::SpentEpsilon(spent, budget).value();
}

// The whole run through the updater and the contributors: the ledger's L + 1 entries (one per
// phase, user-level, n_min the population) compose to epsilon at delta <= the target and >= 99.9%
// of it, every sum has the same noise multiplier (std / sensitivity), and the same run with 0.1%
// less noise in every sum spends more than the target.
TEST(PriviRecKNoiseTest, LedgerSpendsTheBudgetAndNoLessNoiseWouldFit) {
  const data::RatingsDataset d = test_util::RandomImplicit(24, 9, 0.4, 3);
  for (const auto& [sums, epsilon] : {std::pair(2, 2.0), std::pair(3, 10.0)}) {
    SCOPED_TRACE(absl::StrCat("L=", sums, " epsilon=", epsilon));
    const v1::PriviRecKConfig c = Config(d, 3, sums, epsilon);
    std::unique_ptr<PriviRecKUpdater> updater = PriviRecKUpdater::Create(c).value();
    const dp::PrivacyBudget budget = dp::PrivacyBudget::ApproxDp(epsilon, 1e-5);
    ASSERT_TRUE(updater->budget().has_value());
    std::vector<dp::LedgerEntry> entries;
    dp::Rng rng(5);
    while (updater->round() == 0) {
      const int phase = updater->model().phase();
      std::optional<dp::LedgerEntry> entry =
          updater->RoundPrivacy(d.num_users(), dp::DefaultOrders()).value();
      ASSERT_TRUE(entry.has_value());
      EXPECT_EQ(Param(*entry, "phase"), phase);
      EXPECT_EQ(entry->n_min, d.num_users());
      EXPECT_EQ(entry->unit, dp::PrivacyUnit::kUser);
      // Replace-one: twice the clip (sqrt(D) for the degrees, 1 for a power step), in grid units.
      const double clip = phase == kDegreePhase ? 2.0 : 1.0;
      EXPECT_GE(Param(*entry, "l2_sensitivity"), 2 * Param(*entry, "scale") * clip);
      EXPECT_LE(Param(*entry, "l2_sensitivity"), 2 * Param(*entry, "scale") * clip * 1.001);
      entries.push_back(*entry);
      ASSERT_TRUE(
          updater->ApplySum(PhaseSum(*updater, d, rng), test_util::ParticipantIds(d.num_users()))
              .ok());
    }
    ASSERT_EQ(entries.size(), static_cast<size_t>(sums + 1));
    EXPECT_FALSE(updater->RoundPrivacy(d.num_users(), dp::DefaultOrders()).value().has_value());
    const double z = Param(entries[0], "noise_std") * Param(entries[0], "scale") /
                     Param(entries[0], "l2_sensitivity");
    for (const dp::LedgerEntry& e : entries) {
      EXPECT_NEAR(Param(e, "noise_std") * Param(e, "scale") / Param(e, "l2_sensitivity"), z,
                  1e-9 * z);
    }
    const double spent = Spent(entries, budget);
    EXPECT_LE(spent, epsilon);
    EXPECT_GE(spent, 0.999 * epsilon);

    v1::PriviRecKNoise less = updater->model().noise();
    less.set_degree_noise_std(less.degree_noise_std() * 0.999);
    less.set_power_noise_std(less.power_noise_std() * 0.999);
    std::vector<dp::LedgerEntry> less_entries;
    for (int phase = 0; phase <= sums; ++phase) {
      less_entries.push_back(
          PhaseLedgerEntry(c, less, phase, d.num_users(), dp::DefaultOrders()).value());
    }
    EXPECT_GT(Spent(less_entries, budget), epsilon);
  }
}

// The first noisy power sum, 150 times from the same X_0 and noisy degrees: every coordinate's
// mean within 5 standard errors of the dense A^T A X_0 (A = U^-1/2 R D^-1/2 with D the broadcast
// noisy degrees, 0 where D = 0; about 1.6e-5 false alarms over the 27 coordinates), and the pooled
// variance within 10% of n v / gamma^2 (relative standard error sqrt(2 / (150 27)) = 2.2%), which
// is the calibrated power_noise_std^2 up to the sampler's rational rounding (1e-6).
TEST(PriviRecKNoiseTest, DecodedNoisyPowerSumHasTheCalibratedVariance) {
  const data::RatingsDataset d = test_util::RandomImplicit(24, 9, 0.4, 3);
  const v1::PriviRecKConfig c = Config(d, 3, 2, 20);
  std::unique_ptr<PriviRecKUpdater> updater = PriviRecKUpdater::Create(c).value();
  dp::Rng rng(11);
  ASSERT_TRUE(
      updater->ApplySum(PhaseSum(*updater, d, rng), test_util::ParticipantIds(d.num_users())).ok());
  const v1::PriviRecKModel& model = updater->model();
  ASSERT_EQ(model.phase(), 1);
  const Eigen::VectorXd noisy_degrees =
      Eigen::Map<const Eigen::VectorXd>(model.noisy_degrees().data(), model.noisy_degrees_size());
  const Eigen::MatrixXd x =
      Eigen::Map<const RowMatrix>(model.basis().data(), c.num_items(), c.rank());
  const Eigen::MatrixXd r = test_util::DenseR(d);
  const Eigen::MatrixXd a = test_util::DiagonalPower(test_util::UserDegrees(r), -0.5) * r *
                            test_util::DiagonalPower(noisy_degrees, -0.5);
  const Eigen::MatrixXd exact = a.transpose() * a * x;
  ASSERT_GT(exact.norm(), 0);  // some rated items kept a noisy degree >= 1

  const dp::DistributedDiscreteGaussian ddg = PhaseDdg(c, model.noise(), 1).value();
  const dp::Rational v = ddg.per_client_variance();
  const double gamma = ddg.params().scale;
  const double predicted = static_cast<double>(d.num_users()) * static_cast<double>(v.num) /
                           static_cast<double>(v.den) / (gamma * gamma);
  EXPECT_NEAR(predicted / std::pow(model.noise().power_noise_std(), 2), 1, 1e-6);
  constexpr int kTrials = 150;
  Eigen::MatrixXd total = Eigen::MatrixXd::Zero(exact.rows(), exact.cols());
  double squares = 0;
  for (int t = 0; t < kTrials; ++t) {
    const std::vector<uint64_t> sum = PhaseSum(*updater, d, rng);
    const Eigen::MatrixXd y = DecodeNoisyPowerSum(c, model.noise(), 1, sum, d.num_users()).value();
    total += y;
    squares += (y - exact).squaredNorm();
  }
  const double standard_error = std::sqrt(predicted / kTrials);
  EXPECT_LE((total / kTrials - exact).cwiseAbs().maxCoeff(), 5 * standard_error);
  EXPECT_NEAR(squares / (kTrials * static_cast<double>(exact.size())) / predicted, 1, 0.10);
}

// ||A_u^T (A_u X)||_F <= 1 for 2,000 random users (1 to m items, degrees a mix of 0 = unseen, 1
// and noisy reals >= 1, and all-1 users: the bound's equality case) and X orthonormal: the Q of
// a Gaussian matrix or of a noisy, even rank-deficient, sum. The rows equal the brute-force
// a^T (a X) of the user's dense row a of A; a degree in (0, 1) is refused.
TEST(PriviRecKNoiseTest, PowerStepNeverExceedsTheSensitivity) {
  std::mt19937 gen(17);
  std::normal_distribution<double> normal;
  std::exponential_distribution<double> excess(0.5);
  double largest = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const int m = std::uniform_int_distribution<int>(1, 30)(gen);
    const int k = std::uniform_int_distribution<int>(1, m)(gen);
    RowMatrix g(m, k);
    for (Eigen::Index i = 0; i < g.size(); ++i) g.data()[i] = normal(gen);
    if (trial % 3 == 1) g.col(0).setZero();  // a rank-deficient noisy sum
    const RowMatrix x = Orthonormalize(g).q;
    ASSERT_LT((x.transpose() * x - Eigen::MatrixXd::Identity(k, k)).norm(), 1e-12);
    std::vector<int32_t> items;
    for (int32_t j = 0; j < m; ++j) {
      if (std::bernoulli_distribution(0.5)(gen)) items.push_back(j);
    }
    if (items.empty()) items.push_back(0);
    std::vector<double> degrees;
    for (size_t t = 0; t < items.size(); ++t) {
      const int kind = trial % 4 == 0 ? 1 : std::uniform_int_distribution<int>(0, 2)(gen);
      degrees.push_back(kind == 0 ? 0.0 : kind == 1 ? 1.0 : 1 + excess(gen));
    }
    const RowMatrix rows = PowerStep(items, degrees, x).value();
    Eigen::RowVectorXd a = Eigen::RowVectorXd::Zero(m);
    for (size_t t = 0; t < items.size(); ++t) {
      if (degrees[t] > 0) a[items[t]] = 1 / std::sqrt(items.size() * degrees[t]);
    }
    const Eigen::MatrixXd dense = a.transpose() * (a * x);
    for (size_t t = 0; t < items.size(); ++t) {
      EXPECT_LT((rows.row(static_cast<Eigen::Index>(t)) - dense.row(items[t])).norm(), 1e-12);
    }
    EXPECT_LE(rows.norm(), 1 + 1e-12) << "trial " << trial;
    largest = std::max(largest, rows.norm());
  }
  EXPECT_GT(largest, 0.9);  // the bound is nearly reached: it is not loose by construction
  const std::vector<int32_t> one = {0};
  EXPECT_FALSE(PowerStep(one, std::vector<double>{0.5}, RowMatrix::Identity(1, 1)).ok());
}

// Dense noise for Gowalla's population at k = 256 (29,858 x 40,981 x 256 = 3.1e11 coordinates per
// power sum) is refused with a reason naming the flag; ML-100K at k = 64 (943 x 1,682 x 64 =
// 1.0e8) is accepted.
TEST(PriviRecKNoiseTest, APopulationTooLargeForDenseNoiseIsRefused) {
  v1::PriviRecKConfig c;
  c.set_num_items(40981);
  c.set_num_users(29858);
  c.set_rank(256);
  c.set_power_sums(2);
  c.set_frac_bits(DefaultFracBits(c.num_users()));
  c.set_epsilon(1);
  c.set_delta(1e-5);
  c.set_degree_clip(100);
  const absl::Status refused = ValidateConfig(c);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("--privirec_k_rank"), std::string::npos) << refused;
  EXPECT_NE(refused.message().find("rank=256"), std::string::npos) << refused;
  c.set_num_items(1682);
  c.set_num_users(943);
  c.set_rank(64);
  c.set_frac_bits(DefaultFracBits(c.num_users()));
  EXPECT_TRUE(ValidateConfig(c).ok());
}

}  // namespace dp_option_test
}  // namespace fedmf::algorithms::privirec_k
