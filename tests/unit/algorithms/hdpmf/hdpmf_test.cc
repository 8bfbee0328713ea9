// hdpmf (common/algorithms/hdpmf/): Table 2's privacy specification, the noise shares' sum against
// Laplace(b) by a Kolmogorov-Smirnov test, the summed noise against the shares' sum, stretch-then-
// rescale without noise, the fixed-point sum, the sound mode's clip and beta scaling, the summed-
// noise upload, per-user ledgers, a user over budget sitting out, and the plan, state and config
// checks.
#include "common/algorithms/hdpmf/hdpmf.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "client/participant.h"
#include "common/algorithms/federated_evaluation/contributor.h"
#include "common/algorithms/federated_evaluation/plan.h"
#include "common/algorithms/hdpmf/contributor.h"
#include "common/algorithms/hdpmf/privacy_spec.h"
#include "common/algorithms/hdpmf/scorer.h"
#include "common/algorithms/hdpmf/updater.h"
#include "common/algorithms/hdpmf/user_math.h"
#include "common/algorithms/registry.h"
#include "common/dp/clipping.h"
#include "common/dp/participant_budget.h"
#include "common/dp/privacy_ledger.h"
#include "common/dp/rng.h"
#include "common/metrics/metric_codec.h"
#include "common/metrics/user_metrics.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/three_users_test_util.h"
#include "tests/unit/common/dp_test_stats.h"

namespace fedmf::algorithms::hdpmf {
namespace {

using ::testing::HasSubstr;

v1::HdpmfConfig Config(v1::HdpmfMode mode = v1::HDPMF_MODE_SOUND) {
  v1::HdpmfConfig c;
  c.set_num_users(3);
  c.set_num_items(6);
  c.set_rank(2);
  c.set_rounds(4);
  c.set_epsilon(1);
  c.set_mode(mode);
  c.set_variant(v1::HDPMF_VARIANT_HDPMF);
  c.set_learning_rate(0.05);
  c.set_lambda(0.01);
  c.set_rating_min(1);
  c.set_rating_max(5);
  c.set_clip(1);
  c.set_seed(5);
  c.set_init_scale(0.5);
  c.set_cohort_size(3);
  c.set_min_contributors(1);
  *c.mutable_spec() = DefaultPrivacySpec(11);
  c.set_score_lambda(1);
  return c;
}

using test_util::kItems;
using test_util::kRatings;
using test_util::User;

std::unique_ptr<HdpmfContributor> ContributorOf(const HdpmfUpdater& updater) {
  return HdpmfContributor::Create(updater.Plan().value()).value();
}

// Kolmogorov-Smirnov distance of `xs` to Laplace(b).
double KsDistanceToLaplace(std::vector<double> xs, double b) {
  std::sort(xs.begin(), xs.end());
  const double n = static_cast<double>(xs.size());
  double d = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i];
    const double cdf = x < 0 ? 0.5 * std::exp(x / b) : 1 - 0.5 * std::exp(-x / b);
    d = std::max({d, std::abs(cdf - static_cast<double>(i) / n),
                  std::abs(static_cast<double>(i + 1) / n - cdf)});
  }
  return d;
}

// n clients' NoiseShare of `draws` coordinates, added.
std::vector<double> SumOfShares(const v1::HdpmfConfig& c, int clients, int draws, dp::Rng& rng) {
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(draws);
  for (int i = 0; i < clients; ++i) sum += NoiseShare(c, draws, rng).value();
  return std::vector<double>(sum.data(), sum.data() + sum.size());
}

// The user's m x K item gradient: RatedItemGradient's rows in place, the unrated items' zero.
Eigen::MatrixXd DenseItemGradient(const Eigen::MatrixXd& v, const Eigen::VectorXd& u,
                                  const data::RatingRow& row, const Eigen::VectorXd& targets) {
  const Eigen::MatrixXd rated = RatedItemGradient(v, u, row, targets);
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(v.rows(), v.cols());
  for (int64_t k = 0; k < row.size(); ++k) g.row(row.indices[k]) = rated.row(k);
  return g;
}

// One contribution, alone in a sum, decoded.
Eigen::VectorXd DecodedAlone(const ContributionVector& vector, const RoundCodec& codec,
                             int64_t dim) {
  std::vector<uint64_t> sum(dim, 0);
  EXPECT_TRUE(AddModPow2(vector, codec.bits, absl::MakeSpan(sum)).ok());
  return codec.Decode(sum).value();
}

TEST(HdpmfTest, PrivacySpecHasTable2sExactGroups) {
  const v1::HdpmfPrivacySpec spec = DefaultPrivacySpec(3);
  for (const auto& [weights, con, mod] : {std::tuple{UserWeights(spec, 1000), 540, 370},
                                          std::tuple{ItemWeights(spec, 1682), 555, 555}}) {
    int n_con = 0, n_mod = 0, n_lib = 0;
    for (double w : weights) {
      if (w == 1) {
        ++n_lib;
      } else if (w >= 0.5 && w < 1) {
        ++n_mod;
      } else {
        ASSERT_TRUE(w >= 0.1 && w < 0.5) << w;
        ++n_con;
      }
    }
    EXPECT_EQ(n_con, con);
    EXPECT_EQ(n_mod, mod);
    EXPECT_EQ(n_lib, static_cast<int>(weights.size()) - con - mod);
  }
  // Seeded: the same seed gives the same weights in every binary, another seed others.
  EXPECT_EQ(UserWeights(spec, 50), UserWeights(DefaultPrivacySpec(3), 50));
  EXPECT_NE(UserWeights(spec, 50), UserWeights(DefaultPrivacySpec(4), 50));
  EXPECT_NE(UserWeights(spec, 50), ItemWeights(spec, 50));
  // f_uc and eps_uc vary the conservative group (Fig. 2-5).
  v1::HdpmfPrivacySpec varied = spec;
  varied.set_user_f_con(0.2);
  varied.set_user_w_con(0.3);
  const std::vector<double> w = UserWeights(varied, 100);
  EXPECT_EQ(std::count_if(w.begin(), w.end(), [](double x) { return x < 0.5; }), 20);
  EXPECT_GE(*std::min_element(w.begin(), w.end()), 0.3);
  EXPECT_DOUBLE_EQ(SmallestRatingWeight(spec, 100, 100), 0.1 * 0.1);

  v1::HdpmfPrivacySpec bad = spec;
  bad.set_user_f_mod(0.5);
  EXPECT_THAT(ValidatePrivacySpec(bad).message(), HasSubstr("user_f_mod=0.5"));
  bad = spec;
  bad.set_item_w_con(0);
  EXPECT_THAT(ValidatePrivacySpec(bad).message(), HasSubstr("item_w_con=0"));
}

// The sum of n_min shares is Laplace(b): the KS distance over 20000 draws stays below 1.95 /
// sqrt(20000) = 0.0138, the 0.1% critical value. Fewer shares than n_min (a sum the decoder must
// refuse) are detectably not Laplace(b) (2 of n_min = 3), and more only add variance.
TEST(HdpmfTest, NoiseSharesSumToLaplaceDownToNMin) {
  constexpr int kDraws = 20000;
  const double threshold = 1.95 / std::sqrt(static_cast<double>(kDraws));
  for (v1::HdpmfMode mode : {v1::HDPMF_MODE_PAPER, v1::HDPMF_MODE_SOUND}) {
    for (int n_min : {1, 3, 25}) {
      v1::HdpmfConfig c = Config(mode);
      c.set_num_users(40);
      c.set_cohort_size(40);
      c.set_min_contributors(n_min);
      const double b = NoiseScale(c);
      dp::Rng rng(100 + n_min);
      EXPECT_LT(KsDistanceToLaplace(SumOfShares(c, n_min, kDraws, rng), b), threshold)
          << "n_min=" << n_min << " mode=" << mode;
      if (n_min == 3) {  // 2 shares: variance 4/3 b^2 instead of 2 b^2
        EXPECT_GT(KsDistanceToLaplace(SumOfShares(c, n_min - 1, kDraws, rng), b), threshold)
            << "n_min=" << n_min;
      }
      const std::vector<double> more = SumOfShares(c, 40, kDraws, rng);
      double var = 0;
      for (double x : more) var += x * x;
      var /= kDraws;
      // Var of b (Gamma(k) - Gamma(k)) is 2 b^2 k. Its kurtosis is at most Laplace's 6, so the
      // sample variance's standard error is at most sqrt(5 / 20000) = 1.6% of it: 10% is 6 sigma.
      EXPECT_NEAR(var, 2 * b * b * 40.0 / n_min, 0.1 * 2 * b * b * 40.0 / n_min);
    }
  }
}

// Summed noise: one draw for n contributors has the distribution of the sum of n NoiseShare draws,
// b (Gamma(n / n_min) - Gamma(n / n_min)): mean 0 and variance 2 b^2 n / n_min within kSigmas
// standard errors over 20,000 coordinates, and a two-sample Kolmogorov-Smirnov test against n
// shares (dp_test_stats.h). (A draw for one share fails them, as does one for n_min < n.)
TEST(HdpmfTest, SummedNoiseIsTheSumOfTheUsersShares) {
  constexpr int kDraws = 20000;
  for (v1::HdpmfMode mode : {v1::HDPMF_MODE_PAPER, v1::HDPMF_MODE_SOUND}) {
    for (const auto& [n_min, n] : {std::pair{3, 3}, std::pair{3, 7}, std::pair{25, 40}}) {
      SCOPED_TRACE(::testing::Message() << "mode=" << mode << " n_min=" << n_min << " n=" << n);
      v1::HdpmfConfig c = Config(mode);
      c.set_num_users(40);
      c.set_cohort_size(40);
      c.set_min_contributors(n_min);
      c.set_simulation_summed_noise(true);
      const double b = NoiseScale(c);
      dp::Rng rng(200 + n, mode);
      const Eigen::VectorXd drawn = SummedNoise(c, n, kDraws, rng).value();
      const std::vector<double> summed(drawn.data(), drawn.data() + drawn.size());
      const dp::testing::Moments m = dp::testing::ComputeMoments(summed);
      EXPECT_NEAR(m.mean, 0, dp::testing::kSigmas * m.mean_se);
      EXPECT_NEAR(m.variance, 2 * b * b * n / n_min, dp::testing::kSigmas * m.variance_se);
      dp::testing::ExpectSameDistribution(SumOfShares(c, n, kDraws, rng), summed);
    }
  }
  v1::HdpmfConfig mf = Config(v1::HDPMF_MODE_PAPER);
  mf.set_variant(v1::HDPMF_VARIANT_MF);
  dp::Rng rng(1);
  EXPECT_EQ(SummedNoise(mf, 3, 4, rng).value(), Eigen::VectorXd::Zero(4));
}

// The updater draws the summed noise for the contributors the sum has (n = 2 of a cohort of 5,
// n_min = 2, then all 5): V steps by eta_0 (noise + 2 lambda V) from a zero sum, and the noise
// has variance 2 b^2 n / n_min within kSigmas standard errors over m K = 20,000 coordinates. The
// draw is a function of the seed and the round: a second updater draws the same.
TEST(HdpmfTest, SummedNoiseIsDrawnForTheSumsContributors) {
  v1::HdpmfConfig c = Config();
  c.set_num_users(5);
  c.set_num_items(2000);
  c.set_rank(10);
  c.set_cohort_size(5);
  c.set_min_contributors(2);
  c.set_simulation_summed_noise(true);
  const double b = NoiseScale(c);
  const std::vector<uint64_t> zeros(GradientDim(c), 0);
  for (const std::vector<uint32_t>& contributors :
       {std::vector<uint32_t>{1, 4}, std::vector<uint32_t>{1, 2, 3, 4, 5}}) {
    const double n = static_cast<double>(contributors.size());
    auto updater = HdpmfUpdater::Create(c).value();
    const Eigen::MatrixXd v0 = updater->item_factors();
    ASSERT_TRUE(updater->ApplySum(zeros, contributors).ok());
    const Eigen::MatrixXd noise =
        (v0 - updater->item_factors()) / StepSize(c, 0) - 2 * c.lambda() * v0;
    const dp::testing::Moments m =
        dp::testing::ComputeMoments(std::vector<double>(noise.data(), noise.data() + noise.size()));
    EXPECT_NEAR(m.mean, 0, dp::testing::kSigmas * m.mean_se) << "n=" << n;
    EXPECT_NEAR(m.variance, 2 * b * b * n / c.min_contributors(),
                dp::testing::kSigmas * m.variance_se)
        << "n=" << n;
    auto again = HdpmfUpdater::Create(c).value();
    ASSERT_TRUE(again->ApplySum(zeros, contributors).ok());
    EXPECT_EQ(again->SerializeState().value(), updater->SerializeState().value());
  }
}

TEST(HdpmfTest, PaperNoiseIsTheorem2sScaleAndLedgerPerRating) {
  v1::HdpmfConfig c = Config(v1::HDPMF_MODE_PAPER);
  c.set_rank(10);
  c.set_rounds(100);
  c.set_epsilon(100);  // the paper's eps = 1 per epoch
  EXPECT_DOUBLE_EQ(RoundEpsilon(c), 1);
  EXPECT_DOUBLE_EQ(NoiseScale(c), 2 * std::sqrt(10.0) * 4);
  const dp::LedgerEntry entry = RoundRelease(c, 0, 3).value();
  EXPECT_EQ(entry.unit, dp::PrivacyUnit::kRating);
  EXPECT_TRUE(entry.heterogeneous);
  EXPECT_EQ(entry.pure_epsilon, 1);
  // DPMF: every rating at the smallest weight's guarantee, 0.1 * 0.1, so 100 times the noise.
  c.set_variant(v1::HDPMF_VARIANT_DPMF);
  EXPECT_NEAR(NoiseScale(c), 100 * 2 * std::sqrt(10.0) * 4, 1e-9);
  EXPECT_FALSE(RoundRelease(c, 0, 3)->heterogeneous);
  c.set_variant(v1::HDPMF_VARIANT_MF);
  EXPECT_FALSE(RoundRelease(c, 0, 3).has_value());
  EXPECT_EQ(NoiseScale(c), 0);
}

// PDPMF: t is the mean rating budget of the specification, pi of eq. 5 below t and 1 above, the
// ledger's worst case is t, and each user draws its sample's seed once and keeps it.
TEST(HdpmfTest, PdpmfSamplesOnceWithEq5AndSpendsT) {
  v1::HdpmfConfig c = Config(v1::HDPMF_MODE_PAPER);
  c.set_variant(v1::HDPMF_VARIANT_PDPMF);
  c.set_epsilon(4);  // eps_r = 1, the paper's
  const std::vector<double> beta = UserWeights(c.spec(), 3);
  const std::vector<double> gamma = ItemWeights(c.spec(), 6);
  const double t = (beta[0] + beta[1] + beta[2]) / 3 *
                   (gamma[0] + gamma[1] + gamma[2] + gamma[3] + gamma[4] + gamma[5]) / 6;
  EXPECT_NEAR(PdpmfThreshold(c), t, 1e-15);
  EXPECT_EQ(RoundEpsilon(c), PdpmfThreshold(c));
  EXPECT_NEAR(PdpmfKeepProbability(c, t, 0.05), std::expm1(0.05) / std::expm1(t), 1e-15);
  EXPECT_EQ(PdpmfKeepProbability(c, t, 1), 1);
  EXPECT_TRUE(RoundRelease(c, 0, 3)->heterogeneous);
  EXPECT_NEAR(NoiseScale(c), 2 * std::sqrt(2.0) * 4 / t, 1e-9);

  auto updater = HdpmfUpdater::Create(c).value();
  auto contributor = ContributorOf(*updater);
  dp::Rng rng(4);
  const Contribution first = contributor->Contribute(User(0), "", rng).value();
  const uint64_t seed = DecodeUserState(first.state, 2).value()->sample_seed();
  EXPECT_NE(seed, 0u);
  const Contribution again = contributor->Contribute(User(0), first.state, rng).value();
  EXPECT_EQ(DecodeUserState(again.state, 2).value()->sample_seed(), seed);
}

// Every prediction starts near init_center: V's coordinates init_center / sqrt(K), u's 1 / sqrt(K),
// plus N(0, init_scale^2); u within the unit ball.
TEST(HdpmfTest, InitialFactorsPredictInitCenter) {
  v1::HdpmfConfig c = Config();
  c.set_init_center(3);
  c.set_init_scale(1e-9);
  const Eigen::MatrixXd v = InitialItemFactors(c);
  for (uint32_t id = 1; id <= 3; ++id) {
    const Eigen::VectorXd u = InitialUserFactor(c, id);
    EXPECT_LE(u.norm(), 1 + 1e-12);
    for (int j = 0; j < v.rows(); ++j) EXPECT_NEAR(u.dot(v.row(j)), 3, 1e-6);
  }
  c.set_init_center(0);  // zero-mean factors
  c.set_init_scale(0.1);
  EXPECT_LT(std::abs(InitialItemFactors(c).mean()), 0.1);
}

TEST(HdpmfTest, StepScheduleDividesByFiveAt25And75Percent) {
  v1::HdpmfConfig c = Config();
  c.set_rounds(100);
  EXPECT_EQ(StepSize(c, 0), 0.05);
  EXPECT_EQ(StepSize(c, 24), 0.05);
  EXPECT_EQ(StepSize(c, 25), 0.05 / 5);
  EXPECT_EQ(StepSize(c, 74), 0.05 / 5);
  EXPECT_EQ(StepSize(c, 75), 0.05 / 25);
  EXPECT_EQ(StepSize(c, 99), 0.05 / 25);
}

// Without noise, a model that fits the stretched ratings W_ij R_ij exactly predicts R_ij exactly
// after rescaling, whatever the user's private beta (which the scorer never sees).
TEST(HdpmfTest, StretchThenRescaleIsExactWithoutNoise) {
  const v1::HdpmfConfig c = Config(v1::HDPMF_MODE_PAPER);
  const std::vector<double> gamma = ItemWeights(c.spec(), c.num_items());
  dp::Rng rng(8);
  const Eigen::MatrixXd v = InitialItemFactors(c);
  const Eigen::Vector2d u_true(0.7, -1.3);
  for (double beta : {0.13, 0.62, 1.0}) {
    // Ratings whose stretched values beta gamma_j R_j are exactly u_true^T v_j.
    std::vector<int32_t> items = {0, 1, 2, 3, 4, 5};
    std::vector<float> ratings(6);
    std::vector<double> exact(6);
    for (int j = 0; j < 6; ++j) {
      exact[j] = v.row(j).dot(u_true) / (beta * gamma[j]);
      ratings[j] = static_cast<float>(exact[j]);
    }
    const data::RatingRow row{items, ratings, {}};
    const HdpmfScorer scorer(v, {.item_weights = gamma, .lambda = 1e-12});
    const Eigen::VectorXd predicted = scorer.Scores(row).value();
    for (int j = 0; j < 6; ++j) EXPECT_NEAR(predicted[j], ratings[j], 1e-6) << beta << " " << j;
    // Predicted ratings are the same, clamped to the rating scale [1, 5].
    const Eigen::VectorXd clamped = scorer.PredictRatings(row, 0).value();
    for (int j = 0; j < 6; ++j) {
      EXPECT_NEAR(clamped[j], std::clamp<double>(ratings[j], 1, 5), 1e-6) << beta << " " << j;
    }
    // A user without ratings gets the fallback mean for every item, unclamped.
    const Eigen::VectorXd fallback = scorer.PredictRatings(data::RatingRow{}, 3.5).value();
    EXPECT_EQ(fallback, Eigen::VectorXd::Constant(v.rows(), 3.5));
    // HDPMF-R skips the division by gamma_j: its predictions are the fit's gamma_j R_j.
    const HdpmfScorer unscaled(v, {.item_weights = gamma, .rescale = false, .lambda = 1e-12});
    const Eigen::VectorXd r_scores = unscaled.Scores(row).value();
    for (int j = 0; j < 6; ++j) EXPECT_NEAR(r_scores[j], gamma[j] * ratings[j], 1e-6);
    // Stretching in the contributor's targets is W_ij R_ij with W = beta gamma.
    const Eigen::VectorXd t = Targets(c, row, beta, gamma);
    for (int j = 0; j < 6; ++j) EXPECT_DOUBLE_EQ(t[j], beta * gamma[j] * ratings[j]);
  }
  // Not stretched (MF): the targets are the ratings and nothing is rescaled.
  v1::HdpmfConfig mf = c;
  mf.set_variant(v1::HDPMF_VARIANT_MF);
  const data::RatingRow row{kItems[0], kRatings[0], {}};
  EXPECT_EQ(Targets(mf, row, 0.3, gamma)[0], 5);
}

// The secure sum decodes to the sum of the users' item gradients (MF: no noise), exactly up to
// the fixed-point rounding of n / 2^fraction_bits per coordinate, and V steps by it.
TEST(HdpmfTest, DecodedSumIsTheGradientSumAndVStepsByIt) {
  v1::HdpmfConfig c = Config(v1::HDPMF_MODE_PAPER);
  c.set_variant(v1::HDPMF_VARIANT_MF);
  auto updater = HdpmfUpdater::Create(c).value();
  const Eigen::MatrixXd v0 = updater->item_factors();
  auto contributor = ContributorOf(*updater);
  const RoundCodec codec = contributor->codec();
  ASSERT_LE(codec.bits, 62);
  std::vector<uint64_t> sum(GradientDim(c), 0);
  Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(6, 2);
  dp::Rng rng(1);
  for (int i = 0; i < 3; ++i) {
    const Contribution out = contributor->Contribute(User(i), "", rng).value();
    ASSERT_TRUE(AddModPow2(out.vector, codec.bits, absl::MakeSpan(sum)).ok());
    // Paper mode projects u onto the unit ball, as Theorem 2 assumes.
    const Eigen::VectorXd u0 = InitialUserFactor(c, i + 1);
    const Eigen::VectorXd u = u0 / std::max(1.0, u0.norm());
    const data::RatingRow row{kItems[i], kRatings[i], {}};
    expected += DenseItemGradient(v0, u, row, Targets(c, row, 1, {}));
  }
  ASSERT_TRUE(updater->ApplySum(sum, std::vector<uint32_t>{1, 2, 3}).ok());
  const Eigen::MatrixXd want = v0 - StepSize(c, 0) * (expected + 2 * c.lambda() * v0);
  EXPECT_LT((updater->item_factors() - want).cwiseAbs().maxCoeff(),
            StepSize(c, 0) * 3 * std::ldexp(1.0, -codec.fraction_bits));
  EXPECT_FALSE(updater->RoundPrivacy(3, {}).value().has_value());
}

// Sound mode: a user's contribution (alone in the sum, noise negligible at eps = 1e12) is its
// gradient clipped to L1 norm C and scaled by its private beta_i.
TEST(HdpmfTest, SoundContributionIsClippedAndScaledByBeta) {
  v1::HdpmfConfig c = Config();
  c.set_epsilon(1e12);
  c.set_clip(0.05);
  const std::vector<double> beta = UserWeights(c.spec(), 3);
  auto updater = HdpmfUpdater::Create(c).value();
  auto contributor = ContributorOf(*updater);
  dp::Rng rng(2);
  for (int i = 0; i < 3; ++i) {
    const Contribution out = contributor->Contribute(User(i), "", rng).value();
    std::vector<uint64_t> sum(GradientDim(c), 0);
    ASSERT_TRUE(AddModPow2(out.vector, contributor->codec().bits, absl::MakeSpan(sum)).ok());
    const Eigen::VectorXd decoded = contributor->codec().Decode(sum).value();
    const data::RatingRow row{kItems[i], kRatings[i], {}};
    const Eigen::MatrixXd g = DenseItemGradient(
        updater->item_factors(), InitialUserFactor(c, i + 1), row, Targets(c, row, beta[i], {}));
    Eigen::VectorXd flat(12);
    for (int j = 0; j < 6; ++j) flat.segment(2 * j, 2) = g.row(j).transpose();
    ASSERT_GT(flat.lpNorm<1>(), c.clip());  // the clip binds
    const Eigen::VectorXd want = beta[i] * dp::ClipL1(flat, c.clip()).value();
    EXPECT_LT((decoded - want).cwiseAbs().maxCoeff(), 1e-6) << "user " << i;
    EXPECT_LE(decoded.lpNorm<1>(), beta[i] * c.clip() + 1e-6);
    const auto state = DecodeUserState(out.state, 2).value().value();
    EXPECT_EQ(state.privacy_weight(), beta[i]);
    EXPECT_EQ(state.round(), 0);
  }
}

// With summed noise a user uploads its clipped, weighted gradient alone, sparsely: the K values of
// each rated item, within a unit 2^-f of that gradient; the per-user upload from the same
// generator is it plus the user's NoiseShare (its first draws), within the two uploads' rounding.
// Variant mf has no noise to sum.
TEST(HdpmfTest, SummedNoiseUploadIsTheNoiselessGradientSparsely) {
  v1::HdpmfConfig c = Config();
  c.set_clip(0.05);
  const std::vector<double> beta = UserWeights(c.spec(), 3);
  auto per_user = HdpmfUpdater::Create(c).value();
  c.set_simulation_summed_noise(true);
  auto summed = HdpmfUpdater::Create(c).value();
  auto per_user_contributor = ContributorOf(*per_user);
  auto summed_contributor = ContributorOf(*summed);
  const RoundCodec codec = summed_contributor->codec();
  const double unit = std::ldexp(1.0, -codec.fraction_bits);
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(::testing::Message() << "user " << i);
    dp::Rng rng(10 + i);
    const Contribution upload = summed_contributor->Contribute(User(i), "", rng).value();
    ASSERT_TRUE(upload.vector.is_sparse());
    std::vector<uint64_t> rated_coordinates;
    for (int32_t j : kItems[i]) {
      for (int l = 0; l < 2; ++l) rated_coordinates.push_back(2 * j + l);
    }
    EXPECT_EQ(upload.vector.indices(), rated_coordinates);
    const data::RatingRow row{kItems[i], kRatings[i], {}};
    const Eigen::MatrixXd g = DenseItemGradient(summed->item_factors(), InitialUserFactor(c, i + 1),
                                                row, Targets(c, row, beta[i], {}));
    Eigen::VectorXd flat(12);
    for (int j = 0; j < 6; ++j) flat.segment(2 * j, 2) = g.row(j).transpose();
    const Eigen::VectorXd want = beta[i] * dp::ClipL1(flat, c.clip()).value();
    const Eigen::VectorXd decoded = DecodedAlone(upload.vector, codec, GradientDim(c));
    EXPECT_LT((decoded - want).cwiseAbs().maxCoeff(), unit);

    dp::Rng same(10 + i);
    const Contribution noisy = per_user_contributor->Contribute(User(i), "", same).value();
    ASSERT_FALSE(noisy.vector.is_sparse());
    dp::Rng share_rng(10 + i);
    const Eigen::VectorXd share = NoiseShare(c, GradientDim(c), share_rng).value();
    ASSERT_GT(share.cwiseAbs().maxCoeff(), 1000 * unit);
    EXPECT_LT(
        (DecodedAlone(noisy.vector, codec, GradientDim(c)) - share - decoded).cwiseAbs().maxCoeff(),
        2 * unit);
    EXPECT_EQ(noisy.state, upload.state);
  }

  v1::HdpmfConfig mf = Config(v1::HDPMF_MODE_PAPER);
  mf.set_variant(v1::HDPMF_VARIANT_MF);
  mf.set_simulation_summed_noise(true);
  EXPECT_THAT(ValidateConfig(mf).message(),
              HasSubstr("simulation_summed_noise needs noise (variant mf has none to sum)"));
}

// Each user's own ledger is charged beta_i eps / T per round: after T rounds it holds beta_i eps
// (up to the ulps dp::SplitPureEpsilon steps down, never above), a budget of exactly beta_i eps
// pays for T rounds and refuses one more; the coordinator's ledger holds the worst case, eps.
TEST(HdpmfTest, PerUserLedgersReachBetaEpsilonInTRounds) {
  for (int rounds : {1, 3, 7, 100}) {
    for (double eps : {0.1, 1.0, 1.6}) {
      v1::HdpmfConfig c = Config();
      c.set_rounds(rounds);
      c.set_epsilon(eps);
      const std::vector<double> beta = UserWeights(c.spec(), 3);
      auto updater = HdpmfUpdater::Create(c).value();
      dp::PrivacyLedger coordinator = dp::PrivacyLedger::Create().value();
      std::vector<dp::ParticipantBudget> budgets;
      for (int i = 0; i < 3; ++i) {
        budgets.push_back(
            dp::ParticipantBudget::Create(dp::PrivacyBudget::PureDp(beta[i] * eps)).value());
      }
      std::vector<std::string> states(3);
      std::vector<uint64_t> zeros(GradientDim(c), 0);
      for (int t = 0; t < rounds; ++t) {
        auto contributor = ContributorOf(*updater);
        for (int i = 0; i < 3; ++i) {
          const dp::LedgerEntry cost =
              contributor->ParticipantCost(User(i), states[i]).value().value();
          EXPECT_EQ(cost.unit, dp::PrivacyUnit::kUser);
          ASSERT_TRUE(budgets[i].Charge(cost).ok()) << "round " << t << " user " << i;
          dp::Rng rng(t * 3 + i);
          states[i] = contributor->Contribute(User(i), states[i], rng).value().state;
        }
        const dp::LedgerEntry worst = updater->RoundPrivacy(3, {}).value().value();
        ASSERT_TRUE(coordinator.CanAfford(worst, *updater->budget()).value());
        ASSERT_TRUE(coordinator.Append(worst).ok());
        ASSERT_TRUE(updater->ApplySum(zeros, std::vector<uint32_t>{1, 2, 3}).ok());
      }
      for (int i = 0; i < 3; ++i) {
        const double spent = budgets[i].ledger().spent().pure_epsilon();
        EXPECT_LE(spent, beta[i] * eps);
        EXPECT_NEAR(spent, beta[i] * eps, 1e-14 * eps) << "rounds=" << rounds << " user " << i;
        const dp::LedgerEntry again = *UserCost(c, rounds, beta[i]);
        EXPECT_EQ(budgets[i].CanContribute(again).code(), absl::StatusCode::kResourceExhausted);
      }
      EXPECT_NEAR(coordinator.spent().pure_epsilon(), eps, 1e-14 * eps);
    }
  }
}

// A participant whose own budget pays for two rounds declines the third: the round's sum is the
// other users' only, as the runtime forms it (client::Participant, the code every client runs).
TEST(HdpmfTest, UserOverBudgetIsNotInTheNextSum) {
  v1::HdpmfConfig c = Config();
  c.set_min_contributors(2);
  auto updater = HdpmfUpdater::Create(c).value();
  const std::vector<double> beta = UserWeights(c.spec(), 3);
  std::vector<client::Participant> participants;
  for (int i = 0; i < 3; ++i) {
    participants.push_back(client::Participant::Create(i + 1, User(i), 77).value());
  }
  const dp::LedgerEntry cost = *UserCost(c, 0, beta[0]);
  ASSERT_TRUE(participants[0].SetBudget(dp::PrivacyBudget::PureDp(2 * *cost.pure_epsilon)).ok());
  for (int t = 0; t < 4; ++t) {
    const v1::RoundPlan plan = updater->Plan().value();
    auto contributor = MakeContributor(plan).value();
    std::vector<uint64_t> sum(plan.length(), 0);
    std::vector<uint32_t> contributors;
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<ContributionVector> v =
          participants[i].Contribute(*contributor, std::string(kName));
      if (!v.ok()) {
        EXPECT_EQ(v.status().code(), absl::StatusCode::kResourceExhausted) << v.status();
        continue;
      }
      ASSERT_TRUE(AddModPow2(*v, plan.bits(), absl::MakeSpan(sum)).ok());
      contributors.push_back(i + 1);
    }
    EXPECT_EQ(contributors,
              t < 2 ? std::vector<uint32_t>({1, 2, 3}) : std::vector<uint32_t>({2, 3}))
        << "round " << t;
    ASSERT_TRUE(updater->ApplySum(sum, contributors).ok());
  }
  // Its state stayed that of its last contribution (round 1).
  const auto state = participants[0].ExportLocalState().algorithm_states().at(std::string(kName));
  EXPECT_EQ(DecodeUserState(state, 2).value()->round(), 1);
}

TEST(HdpmfTest, UserFactorStepsOnEachNewVAndStateIsValidated) {
  const v1::HdpmfConfig c = Config();
  auto updater = HdpmfUpdater::Create(c).value();
  dp::Rng rng(3);
  auto round0 = ContributorOf(*updater);
  const Contribution first = round0->Contribute(User(0), "", rng).value();
  EXPECT_EQ(first.user_factor, InitialUserFactor(c, 1));
  // A retried round steps nothing.
  EXPECT_EQ(round0->Contribute(User(0), first.state, rng).value().user_factor, first.user_factor);
  std::vector<uint64_t> zeros(GradientDim(c), 0);
  ASSERT_TRUE(updater->ApplySum(zeros, std::vector<uint32_t>{1}).ok());
  auto round1 = ContributorOf(*updater);
  const data::RatingRow row{kItems[0], kRatings[0], {}};
  const Eigen::VectorXd want =
      BoundUserFactor(c, StepUserFactor(updater->item_factors(), first.user_factor, row,
                                        Targets(c, row, UserWeights(c.spec(), 3)[0], {}),
                                        c.lambda(), StepSize(c, 0)));
  EXPECT_EQ(round1->Contribute(User(0), first.state, rng).value().user_factor, want);
  // However long the step, u stays on the unit ball (Theorem 2's ||u|| <= 1).
  const Eigen::VectorXd long_step = StepUserFactor(updater->item_factors(), first.user_factor, row,
                                                   Targets(c, row, 1, {}), c.lambda(), 1e6);
  EXPECT_GT(long_step.norm(), 1);
  EXPECT_LE(BoundUserFactor(c, long_step).norm(), 1 + 1e-12);

  EXPECT_THAT(round1->Contribute(User(0), "garbage", rng).status().message(),
              HasSubstr("not an HdpmfUserState"));
  v1::HdpmfUserState bad = DecodeUserState(first.state, 2).value().value();
  bad.set_privacy_weight(1.5);
  EXPECT_THAT(round1->Contribute(User(0), bad.SerializeAsString(), rng).status().message(),
              HasSubstr("privacy_weight=1.5"));
  const std::vector<int32_t> items = {0};
  const std::vector<float> high = {6};
  LocalData out_of_range = LocalData::User({items, high, {}});
  out_of_range.participant_id = 1;
  EXPECT_THAT(round1->Contribute(out_of_range, "", rng).status().message(),
              HasSubstr("rating 6 of item 0 outside [1, 5]"));
  auto shard = std::make_shared<PartyShard>();
  EXPECT_EQ(round1->Contribute(LocalData::Party(shard), "", rng).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// The paper's choices where ours differ (docs/results/hdpmf.md, "Ablation"): u_i left off the unit
// ball, with the gradient's coordinates kept within the codec's bound; unclamped predictions;
// PDPMF's t from a given mean rating weight.
TEST(HdpmfTest, PaperChoicesSwitchBackOurDeviationsOneByOne) {
  v1::HdpmfConfig c = Config(v1::HDPMF_MODE_PAPER);
  c.set_variant(v1::HDPMF_VARIANT_MF);  // no noise: the decoded sum is the clamped gradients' sum
  c.set_learning_rate(10);
  c.set_skip_user_projection(true);
  auto updater = HdpmfUpdater::Create(c).value();
  dp::Rng rng(3);
  const Contribution first = ContributorOf(*updater)->Contribute(User(0), "", rng).value();
  std::vector<uint64_t> zeros(GradientDim(c), 0);
  ASSERT_TRUE(updater->ApplySum(zeros, std::vector<uint32_t>{1}).ok());
  auto round1 = ContributorOf(*updater);
  const data::RatingRow row{kItems[0], kRatings[0], {}};
  const Eigen::VectorXd stepped = StepUserFactor(updater->item_factors(), first.user_factor, row,
                                                 Targets(c, row, 1, {}), c.lambda(), 10);
  ASSERT_GT(stepped.norm(), 1);
  EXPECT_EQ(BoundUserFactor(c, stepped), stepped);
  const Contribution second = round1->Contribute(User(0), first.state, rng).value();
  EXPECT_EQ(second.user_factor, stepped);
  const RoundCodec codec = MakeRoundCodec(c, updater->item_factors()).value();
  const Eigen::MatrixXd gradient =
      RatedItemGradient(updater->item_factors(), stepped, row, Targets(c, row, 1, {}));
  ASSERT_GT(gradient.cwiseAbs().maxCoeff(), codec.bound);
  const Eigen::VectorXd decoded = codec.Decode(second.vector.values()).value();
  EXPECT_LE(decoded.cwiseAbs().maxCoeff(), codec.bound + 1e-4);
  EXPECT_NEAR(decoded.cwiseAbs().maxCoeff(), codec.bound, 1e-4);

  // Predictions: clamped to [1, 5] unless skip_prediction_clamp.
  v1::HdpmfConfig wide = Config(v1::HDPMF_MODE_PAPER);
  wide.set_variant(v1::HDPMF_VARIANT_MF);
  wide.set_init_scale(3);  // items of very different norms: a fit extrapolates beyond the scale
  wide.set_score_lambda(1e-6);
  const std::vector<int32_t> rated = {0, 1};
  const std::vector<float> ratings = {5, 5};
  const data::RatingRow fives{rated, ratings, {}};
  for (bool skip : {false, true}) {
    wide.set_skip_prediction_clamp(skip);
    auto contributor = ContributorOf(*HdpmfUpdater::Create(wide).value());
    const Eigen::VectorXd scores = contributor->scorer().Scores(fives).value();
    ASSERT_TRUE(scores.maxCoeff() > 5 || scores.minCoeff() < 1) << scores.transpose();
    const Eigen::VectorXd predicted = contributor->scorer().PredictRatings(fives, 0).value();
    EXPECT_EQ(predicted, skip ? scores : Eigen::VectorXd(scores.cwiseMax(1).cwiseMin(5)));
  }

  // PDPMF's t from a given mean rating weight.
  v1::HdpmfConfig pdpmf = Config(v1::HDPMF_MODE_PAPER);
  pdpmf.set_variant(v1::HDPMF_VARIANT_PDPMF);
  pdpmf.set_pdpmf_mean_weight(0.3);
  EXPECT_NEAR(PdpmfThreshold(pdpmf), 0.3 * pdpmf.epsilon() / pdpmf.rounds(), 1e-12);
  EXPECT_EQ(RoundEpsilon(pdpmf), PdpmfThreshold(pdpmf));
}

// score_with_trained_factor: the paper's prediction, u_i^T v_j / (beta_i gamma_j) with the
// device's own u_i, stepped on the evaluated V as its next contribution would step it; federated
// evaluation scores with it from the participant's hdpmf state and leaves that state as it was.
TEST(HdpmfTest, TrainedFactorScoringUsesTheDevicesOwnFactor) {
  v1::HdpmfConfig c = Config(v1::HDPMF_MODE_PAPER);
  c.set_score_with_trained_factor(true);
  c.set_min_contributors(1);
  auto updater = HdpmfUpdater::Create(c).value();
  const std::vector<int32_t> test_items = {1, 3};
  const std::vector<float> test_ratings = {4, 2};
  LocalData user = User(0);
  user.test = data::RatingRow{test_items, test_ratings, {}};
  client::Participant participant = client::Participant::Create(1, user, 77).value();
  ASSERT_TRUE(
      participant.Contribute(*MakeContributor(updater->Plan().value()).value(), std::string(kName))
          .ok());
  const std::string state =
      participant.ExportLocalState().algorithm_states().at(std::string(kName));
  std::vector<uint64_t> zeros(GradientDim(c), 0);
  ASSERT_TRUE(updater->ApplySum(zeros, std::vector<uint32_t>{1}).ok());
  const v1::RoundPlan model = updater->Plan().value();
  auto contributor = ContributorOf(*updater);

  const v1::HdpmfUserState before = DecodeUserState(state, 2).value().value();
  const double beta = before.privacy_weight();
  const std::vector<double> gamma = ItemWeights(c.spec(), c.num_items());
  const Eigen::VectorXd u = BoundUserFactor(
      c,
      StepUserFactor(updater->item_factors(),
                     Eigen::Map<const Eigen::VectorXd>(before.user_factor().data(), 2), user.train,
                     Targets(c, user.train, beta, gamma), c.lambda(), StepSize(c, 0)));
  std::unique_ptr<Scorer> personal = contributor->PersonalScorer(user, state).value();
  ASSERT_NE(personal, nullptr);
  const Eigen::VectorXd scores = personal->Scores(user.train).value();
  for (int j = 0; j < c.num_items(); ++j) {
    EXPECT_NEAR(scores[j], updater->item_factors().row(j).dot(u) / (beta * gamma[j]), 1e-12);
  }
  v1::HdpmfConfig refit = c;
  refit.set_score_with_trained_factor(false);
  EXPECT_EQ(
      ContributorOf(*HdpmfUpdater::Create(refit).value())->PersonalScorer(user, state).value(),
      nullptr);

  // Federated evaluation: the metric sums of the personal model, the hdpmf state untouched.
  const v1::RoundPlan eval =
      federated_evaluation::MakePlan(model, 1, metrics::kDpmfRpRanking).value();
  auto evaluation = federated_evaluation::FederatedEvaluationContributor::Create(eval).value();
  EXPECT_EQ(evaluation->state_owner(), kName);
  const metrics::MetricSums want =
      federated_evaluation::EvaluateUsers(user, *personal, evaluation->plan().ranking).value();
  const metrics::MetricSums refit_sums =
      federated_evaluation::EvaluateUsers(user, contributor->scorer(), evaluation->plan().ranking)
          .value();
  ASSERT_NE(want.squared_error, refit_sums.squared_error);
  const ContributionVector got = participant.Contribute(*evaluation, eval.algorithm()).value();
  EXPECT_EQ(got.values(), evaluation->plan().codec.Encode(want));
  EXPECT_EQ(participant.ExportLocalState().algorithm_states().at(std::string(kName)), state);
  EXPECT_EQ(participant.ExportLocalState().algorithm_states().count(eval.algorithm()), 0u);
}

TEST(HdpmfTest, ConfigPlanAndStateAreValidated) {
  v1::HdpmfConfig c = Config();
  c.set_min_contributors(4);
  EXPECT_THAT(ValidateConfig(c).message(), HasSubstr("min_contributors=4"));
  c = Config();
  c.set_variant(v1::HDPMF_VARIANT_DPMF);
  EXPECT_THAT(ValidateConfig(c).message(), HasSubstr("variant=2"));
  c = Config();
  c.set_lambda(0);
  EXPECT_THAT(ValidateConfig(c).message(), HasSubstr("lambda=0"));
  c = Config();
  c.set_rating_max(1);
  EXPECT_THAT(ValidateConfig(c).message(), HasSubstr("rating_max=1"));
  c = Config();
  c.set_skip_rescaling(true);  // sound mode does not stretch: nothing to skip
  EXPECT_THAT(ValidateConfig(c).message(), HasSubstr("skip_rescaling"));
  c = Config();  // sound mode: its guarantee needs the projection
  c.set_skip_user_projection(true);
  EXPECT_THAT(ValidateConfig(c).message(), HasSubstr("skip_user_projection=1"));
  c = Config();
  c.set_skip_prediction_clamp(true);
  EXPECT_THAT(ValidateConfig(c).message(), HasSubstr("skip_prediction_clamp=1"));
  c = Config(v1::HDPMF_MODE_PAPER);
  c.set_pdpmf_mean_weight(0.5);  // not PDPMF
  EXPECT_THAT(ValidateConfig(c).message(), HasSubstr("pdpmf_mean_weight=0.5"));
  c.set_variant(v1::HDPMF_VARIANT_PDPMF);
  EXPECT_TRUE(ValidateConfig(c).ok());
  c.set_pdpmf_mean_weight(1.5);
  EXPECT_THAT(ValidateConfig(c).message(), HasSubstr("pdpmf_mean_weight=1.5"));
  c = Config();
  c.mutable_spec()->set_user_f_con(2);
  EXPECT_THAT(ValidateConfig(c).message(), HasSubstr("user_f_con=2"));

  auto updater = HdpmfUpdater::Create(Config()).value();
  const v1::RoundPlan plan = updater->Plan().value();
  EXPECT_TRUE(HdpmfContributor::Create(plan).ok());
  v1::RoundPlan bad = plan;
  bad.set_bits(plan.bits() - 1);
  EXPECT_THAT(HdpmfContributor::Create(bad).status().message(), HasSubstr("bits="));
  bad = plan;
  bad.set_min_contributors(0);
  EXPECT_THAT(HdpmfContributor::Create(bad).status().message(), HasSubstr("min_contributors=0"));
  bad = plan;
  bad.set_combination(v1::COMBINATION_CLEAR);
  EXPECT_THAT(HdpmfContributor::Create(bad).status().message(), HasSubstr("combination="));
  bad = plan;
  bad.set_payload("garbage");
  EXPECT_FALSE(HdpmfContributor::Create(bad).ok());

  // A restored updater plans identically; a sum of the wrong size leaves it unchanged.
  std::vector<uint64_t> zeros(GradientDim(Config()), 0);
  ASSERT_TRUE(updater->ApplySum(zeros, std::vector<uint32_t>{1, 2}).ok());
  auto restored = RestoreUpdater(kName, updater->SerializeState().value()).value();
  EXPECT_EQ(restored->Plan()->SerializeAsString(), updater->Plan()->SerializeAsString());
  EXPECT_FALSE(updater->ApplySum(std::vector<uint64_t>(3, 0), std::vector<uint32_t>{1}).ok());
  EXPECT_EQ(updater->round(), 1);
  EXPECT_FALSE(HdpmfUpdater::Restore("garbage").ok());
}

}  // namespace
}  // namespace fedmf::algorithms::hdpmf
