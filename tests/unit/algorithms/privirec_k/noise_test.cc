// PriviRec-k's DP option (common/algorithms/privirec_k/noise.h) against independent references:
// the L + 1 ledger entries compose to the budget (the accountant's epsilon at delta) and 0.1% less
// noise would not fit; the decoded noisy power sum is unbiased around the brute-force dense
// A^T A X (A from the definition, with the post-processed noisy degrees) with the calibrated
// variance; a user's power-step contribution never exceeds the stated L2 bound 1 (brute force over
// random users, degree-1 items, noisy degrees and iterates from noisy sums); a population too
// large for dense noise is refused naming the flag. With a noise committee of c users: exactly the
// committee (dp/noise_committee.h) sends dense noisy vectors, the others their noiseless rounded
// vectors (sparse, within one grid unit of the exact values); the decoded sum keeps the total
// variance; the ledger records c and its RDP is KLS's closed form with n = c; c = n calibrates
// exactly as every user adding noise; bad committee sizes are refused naming the flag.
#include "common/algorithms/privirec_k/noise.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "common/algorithms/privirec_k/privirec_k.h"
#include "common/algorithms/privirec_k/updater.h"
#include "common/algorithms/registry.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/fixed_point.h"
#include "common/dp/noise_committee.h"
#include "common/dp/rdp_curve.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/lib/graph_filter/test_util.h"

namespace fedmf::algorithms::privirec_k {
namespace dp_option_test {

v1::PriviRecKConfig Config(const data::RatingsDataset& d, int rank, int sums, double epsilon,
                           int64_t noise_parties = 0) {
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
  c.set_noise_parties(noise_parties);
  return c;
}

// Whether participant `id` adds noise: a committee member, or anyone without a committee.
bool AddsNoise(const v1::PriviRecKConfig& c, uint32_t id) {
  if (c.noise_parties() == 0) return true;
  return dp::NoiseCommittee::Select(c.seed(), c.num_users(), c.noise_parties())->Contains(id);
}

LocalData User(const data::RatingsDataset& d, int32_t u) {
  LocalData data = LocalData::User(d.user(u));
  data.participant_id = static_cast<uint32_t>(u) + 1;
  return data;
}

// Every user's contribution to the planned phase from the plan's contributor, added mod 2^bits.
std::vector<uint64_t> PhaseSum(const PriviRecKUpdater& updater, const data::RatingsDataset& d,
                               dp::Rng& rng) {
  const v1::RoundPlan plan = updater.Plan().value();
  std::unique_ptr<Contributor> contributor = MakeContributor(plan).value();
  std::vector<uint64_t> sum(plan.length(), 0);
  const v1::PriviRecKConfig& config = updater.model().config();
  for (int32_t u = 0; u < d.num_users(); ++u) {
    const Contribution c = contributor->Contribute(User(d, u), "", rng).value();
    // A noise party's every coordinate carries noise; the others' vectors stay sparse.
    EXPECT_EQ(c.vector.is_sparse(), !AddsNoise(config, static_cast<uint32_t>(u) + 1)) << u;
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
// The same with a committee of 5 (n_min and noise_parties 5).
TEST(PriviRecKNoiseTest, LedgerSpendsTheBudgetAndNoLessNoiseWouldFit) {
  const data::RatingsDataset d = test_util::RandomImplicit(24, 9, 0.4, 3);
  for (const auto& [sums, epsilon, parties] :
       {std::tuple(2, 2.0, 0), std::tuple(3, 10.0, 0), std::tuple(2, 2.0, 5)}) {
    SCOPED_TRACE(absl::StrCat("L=", sums, " epsilon=", epsilon, " c=", parties));
    const v1::PriviRecKConfig c = Config(d, 3, sums, epsilon, parties);
    const int64_t noise_parties = parties == 0 ? d.num_users() : parties;
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
      EXPECT_EQ(entry->n_min, noise_parties);
      EXPECT_EQ(Param(*entry, "noise_parties"), noise_parties);
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
// With a committee of c = 3, the c shares carry the same total: c v / gamma^2 (same tolerances).
class NoisyPowerSumTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(NoisyPowerSumTest, DecodedNoisyPowerSumHasTheCalibratedVariance) {
  const data::RatingsDataset d = test_util::RandomImplicit(24, 9, 0.4, 3);
  const v1::PriviRecKConfig c = Config(d, 3, 2, 20, GetParam());
  const int64_t noise_parties = GetParam() == 0 ? d.num_users() : GetParam();
  std::unique_ptr<PriviRecKUpdater> updater = PriviRecKUpdater::Create(c).value();
  dp::Rng rng(11);
  ASSERT_TRUE(
      updater->ApplySum(PhaseSum(*updater, d, rng), test_util::ParticipantIds(d.num_users())).ok());
  const v1::PriviRecKModel& model = updater->model();
  ASSERT_EQ(model.phase(), 1);
  const Eigen::VectorXd noisy_degrees =
      Eigen::Map<const Eigen::VectorXd>(model.noisy_degrees().data(), model.noisy_degrees_size());
  const Eigen::MatrixXd x = PowerIterate(model);
  const Eigen::MatrixXd r = test_util::DenseR(d);
  const Eigen::MatrixXd a = test_util::DiagonalPower(test_util::UserDegrees(r), -0.5) * r *
                            test_util::DiagonalPower(noisy_degrees, -0.5);
  const Eigen::MatrixXd exact = a.transpose() * a * x;
  ASSERT_GT(exact.norm(), 0);  // some rated items kept a noisy degree >= 1

  const dp::DistributedDiscreteGaussian ddg = PhaseDdg(c, model.noise(), 1).value();
  const dp::Rational v = ddg.per_client_variance();
  const double gamma = ddg.params().scale;
  const double predicted = static_cast<double>(noise_parties) * static_cast<double>(v.num) /
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

INSTANTIATE_TEST_SUITE_P(EveryUserOrACommittee, NoisyPowerSumTest, ::testing::Values(0, 3));

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
// Gowalla's population and catalogue at k = 256, L = 2, epsilon 1, every user adding noise.
v1::PriviRecKConfig GowallaConfig() {
  v1::PriviRecKConfig c;
  c.set_num_items(40981);
  c.set_num_users(29858);
  c.set_rank(256);
  c.set_power_sums(2);
  c.set_frac_bits(DefaultFracBits(c.num_users()));
  c.set_epsilon(1);
  c.set_delta(1e-5);
  c.set_degree_clip(100);
  return c;
}

TEST(PriviRecKNoiseTest, APopulationTooLargeForDenseNoiseIsRefused) {
  v1::PriviRecKConfig c = GowallaConfig();
  const absl::Status refused = ValidateConfig(c);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("option rank"), std::string::npos) << refused;
  EXPECT_NE(refused.message().find("rank=256"), std::string::npos) << refused;
  c.set_num_items(1682);
  c.set_num_users(943);
  c.set_rank(64);
  c.set_frac_bits(DefaultFracBits(c.num_users()));
  EXPECT_TRUE(ValidateConfig(c).ok());
}

// A noise party's power vector, m k codes, travels as one message (at most 238,609,294 codes, see
// privirec::kMaxDenseCodes): on Gowalla's 40,981 items a committee of one fits at k = 5,822
// (238,591,382 codes) and is refused at k = 5,823 (238,632,363), naming the rank's option.
TEST(PriviRecKNoiseTest, APowerVectorTooLargeForOneMessageIsRefused) {
  v1::PriviRecKConfig c = GowallaConfig();
  c.set_noise_parties(1);
  c.set_rank(5822);
  EXPECT_TRUE(ValidateConfig(c).ok()) << ValidateConfig(c);
  c.set_rank(5823);
  const absl::Status refused = ValidateConfig(c);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("238632363 codes"), std::string::npos) << refused;
  EXPECT_NE(refused.message().find("option rank"), std::string::npos) << refused;
}

// A user outside the committee of 3 (of 25) sends, in the degree phase, gamma at each of its items
// when it has at most D = 4 (the indicator is inside the clip, gamma x is an integer), within one
// grid unit of gamma sqrt(D / d_u) otherwise; in a power phase, within one grid unit of gamma times
// its brute-force rows a^T (a X) at coordinates item k + j of its items; nothing elsewhere. The
// members' vectors are dense.
TEST(PriviRecKNoiseTest, NonMembersSendTheirNoiselessRoundedVectors) {
  const data::RatingsDataset d = test_util::RandomImplicit(24, 9, 0.4, 3);
  const v1::PriviRecKConfig c = Config(d, 3, 2, 5, 3);
  std::unique_ptr<PriviRecKUpdater> updater = PriviRecKUpdater::Create(c).value();
  dp::Rng rng(2);
  int non_members = 0;
  for (int phase : {0, 1}) {
    SCOPED_TRACE(absl::StrCat("phase ", phase));
    const v1::RoundPlan plan = updater->Plan().value();
    const v1::PriviRecKModel& model = updater->model();
    const double gamma = model.noise().scale();
    std::unique_ptr<Contributor> contributor = MakeContributor(plan).value();
    const Eigen::MatrixXd r = test_util::DenseR(d);
    for (int32_t u = 0; u < d.num_users(); ++u) {
      const Contribution out = contributor->Contribute(User(d, u), "", rng).value();
      if (AddsNoise(c, static_cast<uint32_t>(u) + 1)) {
        EXPECT_FALSE(out.vector.is_sparse());
        continue;
      }
      ++non_members;
      ASSERT_TRUE(out.vector.is_sparse());
      // The exact real vector, densely, from the definitions.
      Eigen::VectorXd exact = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(plan.length()));
      const double items = r.row(u).sum();
      if (phase == kDegreePhase) {
        exact = r.row(u).transpose() * std::min(1.0, std::sqrt(4 / std::max(items, 1.0)));
      } else if (items > 0) {
        Eigen::RowVectorXd a = Eigen::RowVectorXd::Zero(c.num_items());
        for (int32_t j = 0; j < c.num_items(); ++j) {
          const double degree = model.noisy_degrees(j);
          if (r(u, j) > 0 && degree > 0) a[j] = 1 / std::sqrt(items * degree);
        }
        const Eigen::MatrixXd x = PowerIterate(model);
        const RowMatrix rows = a.transpose() * (a * x);
        exact = Eigen::Map<const Eigen::VectorXd>(rows.data(), rows.size());
      }
      std::vector<uint64_t> support;
      for (Eigen::Index i = 0; i < exact.size(); ++i) {
        const int32_t item =
            static_cast<int32_t>(phase == kDegreePhase ? i : i / IterateColumns(c));
        if (r(u, item) > 0) support.push_back(static_cast<uint64_t>(i));
      }
      // Exactly the user's coordinates are sent (an item of noisy degree 0 sends zeros).
      EXPECT_EQ(out.vector.indices(), support) << "user " << u;
      for (size_t t = 0; t < out.vector.indices().size(); ++t) {
        const double value =
            static_cast<double>(dp::CenteredLift(out.vector.values()[t], plan.bits()));
        const auto i = static_cast<Eigen::Index>(out.vector.indices()[t]);
        EXPECT_LT(std::abs(value - gamma * exact[i]), 1) << "user " << u << " coordinate " << i;
        if (phase == kDegreePhase && items <= 4) {
          EXPECT_EQ(value, gamma);
        }
      }
    }
    ASSERT_TRUE(
        updater->ApplySum(PhaseSum(*updater, d, rng), test_util::ParticipantIds(d.num_users()))
            .ok());
  }
  EXPECT_EQ(non_members, 2 * (d.num_users() - 3));
}

// KLS Proposition 14 from the formula (rdp_ddg.h's header), with n the noise parties c.
double KlsRdp(double alpha, double l2_grid, double total_std_grid, int64_t n, int64_t dim) {
  const double v = total_std_grid * total_std_grid / static_cast<double>(n);
  double tau = 0;
  for (int64_t k = 1; k < n; ++k) tau += 10 * std::exp(-2 * M_PI * M_PI * v * k / (k + 1.0));
  const double s = std::sqrt(n * v);
  const double l1_grid = l2_grid * std::min(std::sqrt(static_cast<double>(dim)), l2_grid / 2);
  const double l2 = l2_grid / s, l1 = l1_grid / s, d = static_cast<double>(dim);
  return std::min({alpha * l2 * l2 / 2 + tau * d,
                   alpha * (l2 * l2 + 2 * l1 * tau + tau * tau * d) / 2,
                   alpha * std::pow(l2 + std::sqrt(d) * tau, 2) / 2});
}

// A committee's ledger entry: n_min = c, and its RDP at every order is KLS's with n = c, the total
// std noise_std gamma and the recorded L2 sensitivity (relative 1e-9).
TEST(PriviRecKNoiseTest, CommitteeLedgerIsKlsWithTheCommitteeSize) {
  const data::RatingsDataset d = test_util::RandomImplicit(24, 9, 0.4, 3);
  const int64_t n = d.num_users();
  for (int64_t parties : {int64_t{1}, int64_t{5}, n}) {
    const v1::PriviRecKConfig c = Config(d, 3, 2, 2, parties);
    const v1::PriviRecKNoise noise = CalibrateNoise(c).value();
    for (int phase = 0; phase <= 2; ++phase) {
      const dp::LedgerEntry e = PhaseLedgerEntry(c, noise, phase, n, dp::DefaultOrders()).value();
      EXPECT_EQ(e.n_min, parties);
      EXPECT_EQ(Param(e, "noise_parties"), parties);
      for (size_t i = 0; i < dp::DefaultOrders().size(); ++i) {
        const double expected = KlsRdp(dp::DefaultOrders()[i], Param(e, "l2_sensitivity"),
                                       Param(e, "noise_std") * Param(e, "scale"), parties,
                                       static_cast<int64_t>(Param(e, "dimension")));
        EXPECT_NEAR(e.rdp[i], expected, 1e-9 * expected) << "c=" << parties << " phase " << phase;
      }
    }
  }
}

// c = n is today's calibration (every user adds noise) to the last bit, and so are its ledger
// entries.
TEST(PriviRecKNoiseTest, CommitteeOfEveryUserIsTodaysCalibration) {
  const data::RatingsDataset d = test_util::RandomImplicit(24, 9, 0.4, 3);
  const int64_t n = d.num_users();
  const v1::PriviRecKNoise today = CalibrateNoise(Config(d, 3, 2, 2)).value();
  const v1::PriviRecKNoise all = CalibrateNoise(Config(d, 3, 2, 2, n)).value();
  EXPECT_EQ(all.scale(), today.scale());
  EXPECT_EQ(all.degree_noise_std(), today.degree_noise_std());
  EXPECT_EQ(all.power_noise_std(), today.power_noise_std());
  for (int phase = 0; phase <= 2; ++phase) {
    EXPECT_EQ(PhaseLedgerEntry(Config(d, 3, 2, 2, n), all, phase, n, dp::DefaultOrders())->rdp,
              PhaseLedgerEntry(Config(d, 3, 2, 2), today, phase, n, dp::DefaultOrders())->rdp);
  }
}

// Committee sizes outside [0, n], or a committee without the DP option, are refused naming
// option noise_parties; Gowalla at k = 256 with a committee of 16 (16 x 40,981 x 256 =
// 1.7e8 dense coordinates) is accepted where every user adding noise is refused.
TEST(PriviRecKNoiseTest, CommitteeSizesAreChecked) {
  const data::RatingsDataset d = test_util::RandomImplicit(24, 9, 0.4, 3);
  for (int64_t bad : {int64_t{-1}, int64_t{d.num_users()} + 1}) {
    const absl::Status s = ValidateConfig(Config(d, 3, 2, 2, bad));
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("option noise_parties"), std::string::npos) << s;
  }
  const absl::Status no_dp = ValidateConfig(Config(d, 3, 2, 0, 5));
  EXPECT_NE(no_dp.message().find("option epsilon"), std::string::npos) << no_dp;
  EXPECT_TRUE(ValidateConfig(Config(d, 3, 2, 2, d.num_users())).ok());
  v1::PriviRecKConfig gowalla = GowallaConfig();
  gowalla.set_noise_parties(16);
  EXPECT_TRUE(ValidateConfig(gowalla).ok()) << ValidateConfig(gowalla);
  gowalla.set_noise_parties(0);
  EXPECT_FALSE(ValidateConfig(gowalla).ok());
}

}  // namespace dp_option_test
}  // namespace fedmf::algorithms::privirec_k
