// PriviRec's DP option (common/algorithms/privirec/noise.h) against independent references: the
// decoded noisy sums are unbiased (brute-force exact sums) with the variance the ledger states
// (closed form n v / gamma^2), the ledger's sensitivity covers the largest user vector (brute
// force) and the two entries fit the budget, and with the option off the checkpoint is the one a
// hand-built PriviRecModel of the exact fixed-point sums serializes to, byte for byte. With a noise
// committee of c users (dp/noise_committee.h): exactly the committee's contributions are dense, the
// others' are their noiseless rounded vectors (sparse, within one grid unit of the exact values);
// the ledger has n_min = noise_parties = c; c = n calibrates as every user adding noise; bad
// committee sizes are refused naming the flag.
#include "common/algorithms/privirec/noise.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "common/algorithms/privirec/privirec.h"
#include "common/algorithms/privirec/updater.h"
#include "common/algorithms/registry.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/fixed_point.h"
#include "common/dp/noise_committee.h"
#include "common/dp/rdp_curve.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/lib/graph_filter/test_util.h"

namespace fedmf::algorithms::privirec {
namespace {

constexpr double kAlpha = 0.5;  // GF-CF

v1::PriviRecConfig Config(const data::RatingsDataset& d, double epsilon) {
  v1::PriviRecConfig c;
  c.set_num_items(d.num_items());
  c.set_num_users(d.num_users());
  c.set_filter("gf-cf");
  c.set_frac_bits(DefaultFracBits(d.num_users()));
  if (epsilon > 0) {
    c.set_epsilon(epsilon);
    c.set_delta(1e-5);
    c.set_degree_clip(4);  // below the densest users' counts: the clip is active
  }
  return c;
}

std::vector<int32_t> Items(const data::RatingsDataset& d, int32_t u) {
  const data::RatingRow row = d.user(u);
  return std::vector<int32_t>(row.indices.begin(), row.indices.end());
}

// A user's exact real vector in `phase`, written from the definition (noise.h), not the code.
Eigen::VectorXd ExactVector(const data::RatingsDataset& d, int32_t u, int phase, int clip) {
  const std::vector<int32_t> items = Items(d, u);
  const int32_t m = d.num_items();
  const auto k = static_cast<double>(items.size());
  if (phase == kDegreePhase) {
    Eigen::VectorXd x = Eigen::VectorXd::Zero(m);
    const double shrink = k > clip ? std::sqrt(clip / k) : 1.0;
    for (int32_t i : items) x[i] = shrink;
    return x;
  }
  Eigen::VectorXd x = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(m) * (m + 1) / 2);
  Eigen::Index index = 0;  // row-major upper triangle
  for (int32_t i = 0; i < m; ++i) {
    for (int32_t j = i; j < m; ++j, ++index) {
      const bool both =
          std::count(items.begin(), items.end(), i) && std::count(items.begin(), items.end(), j);
      if (both) x[index] = 1 / k;  // d^-2alpha at alpha 1/2
    }
  }
  return x;
}

struct Moments {
  Eigen::VectorXd mean;
  double pooled_variance;  // around the exact sum, over every coordinate and trial
};

// `trials` independent noisy sums of every user's contribution, decoded.
Moments NoisySums(const data::RatingsDataset& d, const v1::PriviRecConfig& c,
                  const v1::PriviRecNoise& noise, int phase, const Eigen::VectorXd& exact,
                  int trials) {
  const dp::DistributedDiscreteGaussian ddg = PhaseDdg(c, noise, phase).value();
  Eigen::VectorXd total = Eigen::VectorXd::Zero(exact.size());
  double squares = 0;
  dp::Rng rng(7);
  for (int t = 0; t < trials; ++t) {
    std::vector<uint64_t> sum(exact.size(), 0);
    for (int32_t u = 0; u < d.num_users(); ++u) {
      const ContributionVector v =
          NoisyContribution(c, noise, phase, Items(d, u), kAlpha, NoiseShare::kAdd, rng).value();
      EXPECT_FALSE(v.is_sparse());  // every coordinate carries noise
      EXPECT_TRUE(AddModPow2(v, ddg.modulus_bits(), absl::MakeSpan(sum)).ok());
    }
    const Eigen::VectorXd decoded = ddg.Decode(sum, d.num_users()).value();
    total += decoded;
    squares += (decoded - exact).squaredNorm();
  }
  return {total / trials, squares / (static_cast<double>(trials) * exact.size())};
}

// Unbiased: every coordinate's mean within 5 standard errors of the exact sum (about 1e-5 false
// alarms over the 65 coordinates); variance within 12% of n v / gamma^2 (its relative standard
// error is sqrt(2 / (trials d)) <= 2.5%; stochastic rounding adds at most n / (4 gamma^2), 1e-12
// relative here). The ledger's noise_std is that standard deviation.
TEST(PriviRecNoiseTest, DecodedNoisySumsAreUnbiasedWithTheLedgersVariance) {
  const data::RatingsDataset d = test_util::RandomImplicit(24, 9, 0.4, 3);
  const v1::PriviRecConfig c = Config(d, 2);
  std::unique_ptr<PriviRecUpdater> updater = PriviRecUpdater::Create(c).value();
  const v1::PriviRecNoise noise = updater->model().noise();
  constexpr int kTrials = 120;
  for (int phase : {kDegreePhase, kGramPhase}) {
    SCOPED_TRACE(absl::StrCat("phase ", phase));
    Eigen::VectorXd exact = ExactVector(d, 0, phase, c.degree_clip());
    for (int32_t u = 1; u < d.num_users(); ++u) exact += ExactVector(d, u, phase, c.degree_clip());
    const dp::DistributedDiscreteGaussian ddg = PhaseDdg(c, noise, phase).value();
    const dp::Rational v = ddg.per_client_variance();
    const double gamma = ddg.params().scale;
    const double predicted = static_cast<double>(d.num_users()) * static_cast<double>(v.num) /
                             static_cast<double>(v.den) / (gamma * gamma);
    const Moments moments = NoisySums(d, c, noise, phase, exact, kTrials);
    const double standard_error = std::sqrt(predicted / kTrials);
    for (Eigen::Index j = 0; j < exact.size(); ++j) {
      EXPECT_LE(std::abs(moments.mean[j] - exact[j]), 5 * standard_error) << "coordinate " << j;
    }
    EXPECT_NEAR(moments.pooled_variance / predicted, 1, 0.12);

    const dp::LedgerEntry entry =
        PhaseLedgerEntry(c, noise, phase, d.num_users(), dp::DefaultOrders()).value();
    double noise_std = 0;
    for (const auto& [name, value] : entry.params) {
      if (name == "noise_std") noise_std = value;
    }
    // The sampler's variance is the ledger's rounded up to a rational: never less noise.
    EXPECT_GE(predicted, noise_std * noise_std);
    EXPECT_NEAR(predicted / (noise_std * noise_std), 1, 1e-6);
  }
}

// The ledger's L2 sensitivity (replace-one, grid units) covers twice the largest user vector
// (brute force, scaled by gamma), and both phases' entries compose within the budget.
TEST(PriviRecNoiseTest, LedgerCoversTheLargestUserAndFitsTheBudget) {
  const data::RatingsDataset d = test_util::RandomImplicit(24, 9, 0.4, 3);
  const v1::PriviRecConfig c = Config(d, 2);
  std::unique_ptr<PriviRecUpdater> updater = PriviRecUpdater::Create(c).value();
  const v1::PriviRecNoise noise = updater->model().noise();
  dp::RdpCurve spent = dp::RdpCurve::Zero(dp::DefaultOrders()).value();
  for (int phase : {kDegreePhase, kGramPhase}) {
    double largest = 0;
    for (int32_t u = 0; u < d.num_users(); ++u) {
      largest = std::max(largest, ExactVector(d, u, phase, c.degree_clip()).norm());
    }
    const dp::LedgerEntry entry =
        PhaseLedgerEntry(c, noise, phase, d.num_users(), dp::DefaultOrders()).value();
    double l2 = 0;
    double scale = 0;
    for (const auto& [name, value] : entry.params) {
      if (name == "l2_sensitivity") l2 = value;
      if (name == "scale") scale = value;
    }
    EXPECT_GE(l2, 2 * scale * largest);
    EXPECT_LE(l2, 2 * scale * (phase == kGramPhase ? 1.0 : std::sqrt(c.degree_clip())) * 1.001);
    EXPECT_EQ(entry.n_min, d.num_users());
    ASSERT_TRUE(spent.Compose(dp::RdpCurve::Create(dp::DefaultOrders(), entry.rdp).value()).ok());
  }
  const dp::PrivacyBudget budget = dp::PrivacyBudget::ApproxDp(2, 1e-5);
  const double epsilon = dp::SpentEpsilon(spent, budget).value();
  EXPECT_LE(epsilon, 2);
  EXPECT_GE(epsilon, 1.99);  // the calibration spends the budget, not less
  ASSERT_TRUE(updater->budget().has_value());
}

// The threshold post-processing keeps exactly the decoded Gram entries above t sigma (the decoded
// sum recomputed here from the same contributions), and none of the others.
TEST(PriviRecNoiseTest, GramThresholdKeepsExactlyTheEntriesAboveIt) {
  const data::RatingsDataset d = test_util::RandomImplicit(24, 9, 0.4, 3);
  v1::PriviRecConfig c = Config(d, 2);
  c.set_gram_threshold(1.5);
  const v1::PriviRecNoise noise = CalibrateNoise(c).value();
  const dp::DistributedDiscreteGaussian ddg = PhaseDdg(c, noise, kGramPhase).value();
  std::vector<uint64_t> sum(ddg.params().dim, 0);
  dp::Rng rng(3);
  for (int32_t u = 0; u < d.num_users(); ++u) {
    const ContributionVector v =
        NoisyContribution(c, noise, kGramPhase, Items(d, u), kAlpha, NoiseShare::kAdd, rng).value();
    ASSERT_TRUE(AddModPow2(v, ddg.modulus_bits(), absl::MakeSpan(sum)).ok());
  }
  const Eigen::VectorXd decoded = ddg.Decode(sum, d.num_users()).value();
  v1::PriviRecModel model;
  *model.mutable_config() = c;
  ASSERT_TRUE(ApplyNoisySum(noise, kGramPhase, sum, d.num_users(), model).ok());
  std::vector<uint64_t> above;
  for (Eigen::Index j = 0; j < decoded.size(); ++j) {
    if (decoded[j] > 1.5 * noise.gram_noise_std()) above.push_back(static_cast<uint64_t>(j));
  }
  EXPECT_EQ(std::vector<uint64_t>(model.gram_index().begin(), model.gram_index().end()), above);
  EXPECT_LT(above.size(), static_cast<size_t>(decoded.size()));  // the threshold bites
}

// Option off: the checkpoint after both sums is, byte for byte, a PriviRecModel written by hand
// from the exact integer degrees and fixed-point Gram sums (the fields of the noiseless model).
TEST(PriviRecNoiseTest, OffTheCheckpointIsTheNoiselessModelByteForByte) {
  const data::RatingsDataset d = test_util::RandomImplicit(24, 9, 0.4, 3);
  const v1::PriviRecConfig c = Config(d, 0);
  std::unique_ptr<PriviRecUpdater> updater = PriviRecUpdater::Create(c).value();
  EXPECT_FALSE(updater->budget().has_value());
  dp::Rng rng(1);
  for (int phase : {kDegreePhase, kGramPhase}) {
    EXPECT_FALSE(updater->RoundPrivacy(d.num_users(), dp::DefaultOrders()).value().has_value());
    const v1::RoundPlan plan = updater->Plan().value();
    std::unique_ptr<Contributor> contributor = MakeContributor(plan).value();
    std::vector<uint64_t> sum(plan.length(), 0);
    std::vector<uint32_t> ids;
    for (int32_t u = 0; u < d.num_users(); ++u) {
      const Contribution one = contributor->Contribute(LocalData::User(d.user(u)), "", rng).value();
      ASSERT_TRUE(AddModPow2(one.vector, plan.bits(), absl::MakeSpan(sum)).ok());
      ids.push_back(static_cast<uint32_t>(u + 1));
    }
    ASSERT_TRUE(updater->ApplySum(sum, ids).ok()) << "phase " << phase;
  }
  v1::PriviRecModel expected;
  *expected.mutable_config() = c;
  expected.set_round(1);
  for (int32_t i = 0; i < d.num_items(); ++i) expected.add_degrees(d.item(i).size());
  const int32_t m = d.num_items();
  std::vector<uint64_t> gram(static_cast<size_t>(m) * (m + 1) / 2, 0);
  for (int32_t u = 0; u < d.num_users(); ++u) {
    const std::vector<int32_t> items = Items(d, u);
    if (items.empty()) continue;
    const auto code = static_cast<uint64_t>(
        std::llround(std::ldexp(1.0 / static_cast<double>(items.size()), c.frac_bits())));
    for (size_t a = 0; a < items.size(); ++a) {
      for (size_t b = a; b < items.size(); ++b) {
        const int32_t i = std::min(items[a], items[b]);
        const int32_t j = std::max(items[a], items[b]);
        gram[static_cast<size_t>(i) * m - static_cast<size_t>(i) * (i - 1) / 2 + (j - i)] += code;
      }
    }
  }
  for (size_t k = 0; k < gram.size(); ++k) {
    if (gram[k] == 0) continue;
    expected.add_gram_index(k);
    expected.add_gram_sum(gram[k]);
  }
  EXPECT_EQ(updater->SerializeState().value(), expected.SerializeAsString());
}

// A committee of 3 of the 25 users (the run's seed 9): the plan's contributor sends a dense vector
// exactly for the members; a non-member's sparse vector has exactly its support's coordinates,
// each within one grid unit of gamma times the exact value (ExactVector, from the definition).
TEST(PriviRecNoiseTest, OnlyTheCommitteeAddsNoise) {
  const data::RatingsDataset d = test_util::RandomImplicit(24, 9, 0.4, 3);
  v1::PriviRecConfig c = Config(d, 2);
  c.set_seed(9);
  c.set_noise_parties(3);
  const dp::NoiseCommittee committee = dp::NoiseCommittee::Select(9, d.num_users(), 3).value();
  std::unique_ptr<PriviRecUpdater> updater = PriviRecUpdater::Create(c).value();
  dp::Rng rng(4);
  for (int phase : {kDegreePhase, kGramPhase}) {
    SCOPED_TRACE(absl::StrCat("phase ", phase));
    const v1::RoundPlan plan = updater->Plan().value();
    const double gamma = PhaseDdg(c, updater->model().noise(), phase)->params().scale;
    std::unique_ptr<Contributor> contributor = MakeContributor(plan).value();
    std::vector<uint64_t> sum(plan.length(), 0);
    for (int32_t u = 0; u < d.num_users(); ++u) {
      LocalData data = LocalData::User(d.user(u));
      data.participant_id = static_cast<uint32_t>(u) + 1;
      const ContributionVector v = contributor->Contribute(data, "", rng).value().vector;
      ASSERT_TRUE(AddModPow2(v, plan.bits(), absl::MakeSpan(sum)).ok());
      ASSERT_EQ(v.is_sparse(), !committee.Contains(data.participant_id)) << u;
      if (!v.is_sparse()) continue;
      const Eigen::VectorXd exact = ExactVector(d, u, phase, c.degree_clip());
      std::vector<uint64_t> support;
      for (Eigen::Index j = 0; j < exact.size(); ++j) {
        if (exact[j] != 0) support.push_back(static_cast<uint64_t>(j));
      }
      EXPECT_EQ(v.indices(), support) << u;
      for (size_t t = 0; t < v.indices().size(); ++t) {
        const double value = static_cast<double>(dp::CenteredLift(v.values()[t], plan.bits()));
        EXPECT_LT(std::abs(value - gamma * exact[static_cast<Eigen::Index>(v.indices()[t])]), 1);
      }
    }
    const dp::LedgerEntry entry =
        updater->RoundPrivacy(d.num_users(), dp::DefaultOrders()).value().value();
    EXPECT_EQ(entry.n_min, 3);
    ASSERT_TRUE(updater->ApplySum(sum, test_util::ParticipantIds(d.num_users())).ok());
  }
}

// c = n is today's calibration to the last bit; c outside [0, n], or without the DP option, is
// refused naming the option noise_parties.
TEST(PriviRecNoiseTest, CommitteeOfEveryUserAndBadSizes) {
  const data::RatingsDataset d = test_util::RandomImplicit(24, 9, 0.4, 3);
  v1::PriviRecConfig all = Config(d, 2);
  all.set_noise_parties(d.num_users());
  const v1::PriviRecNoise today = CalibrateNoise(Config(d, 2)).value();
  const v1::PriviRecNoise everyone = CalibrateNoise(all).value();
  EXPECT_EQ(everyone.SerializeAsString(), today.SerializeAsString());
  for (int64_t bad : {int64_t{-1}, int64_t{d.num_users()} + 1}) {
    v1::PriviRecConfig c = Config(d, 2);
    c.set_noise_parties(bad);
    const absl::Status s = ValidateNoiseConfig(c, kAlpha);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("option noise_parties"), std::string::npos) << s;
  }
  v1::PriviRecConfig off = Config(d, 0);
  off.set_noise_parties(3);
  EXPECT_NE(ValidateNoiseConfig(off, kAlpha).message().find("option epsilon"),
            std::string::npos);
}

// A noise party's Gram vector, m (m + 1) / 2 codes, travels as one message of at most 2^31 - 1
// bytes at up to 9 bytes a code (238,609,294 codes): m = 21,844 (238,591,090 codes) fits, 21,845
// (238,612,935) and Gowalla's 40,981 do not, and the error points to privirec-k.
TEST(PriviRecNoiseTest, AGramVectorTooLargeForOneMessageIsRefused) {
  const data::RatingsDataset d = test_util::RandomImplicit(24, 9, 0.4, 3);
  v1::PriviRecConfig c = Config(d, 2);
  c.set_noise_parties(1);
  c.set_num_items(21844);
  EXPECT_TRUE(ValidateNoiseConfig(c, kAlpha).ok());
  for (const int64_t m : {int64_t{21845}, int64_t{40981}}) {
    c.set_num_items(static_cast<int32_t>(m));
    const absl::Status s = ValidateNoiseConfig(c, kAlpha);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find(absl::StrCat(m * (m + 1) / 2, " codes")), std::string::npos) << s;
    EXPECT_NE(s.message().find("--algorithm=privirec-k"), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace fedmf::algorithms::privirec
