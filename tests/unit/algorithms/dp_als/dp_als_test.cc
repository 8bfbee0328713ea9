// DP-ALS (common/algorithms/dp_als/) against independent references:
//  - noise off, no cap or clip binding: the federated item update (the users' weighted statistics
//    summed, decoded, solved) equals a central ALS item step (mf::SolveWeightedRow over the same
//    users' factors) to 1e-9, and through the fixed-point codec and the updater to the codec's
//    stated error;
//  - a user's contribution has L2 norm <= 1 and at most C item blocks for adversarial inputs (every
//    item, ratings of +-1e9, a factor of norm 1e6);
//  - the decoded noisy sum's noise has the variance the ledger states (ddg: n v / gamma^2 from the
//    sampler; gaussian: sigma^2), a CLT bound with fixed seeds (dp_test_stats.h);
//  - a user's factor is in no upload: not in the bytes of its clear wire upload, and that upload
//    (clear: each user adds the whole noise) carries the full calibrated noise around its
//    statistics;
//  - bad configurations are refused naming the field.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/match.h"
#include "common/algorithms/dp_als/codec.h"
#include "common/algorithms/dp_als/config.h"
#include "common/algorithms/dp_als/contributor.h"
#include "common/algorithms/dp_als/item_update.h"
#include "common/algorithms/dp_als/privacy.h"
#include "common/algorithms/dp_als/statistics.h"
#include "common/algorithms/dp_als/updater.h"
#include "common/algorithms/matrix_proto.h"
#include "common/algorithms/registry.h"
#include "common/data/synthetic.h"
#include "common/dp/fixed_point.h"
#include "common/dp/rdp_curve.h"
#include "common/mf/weighted_solve.h"
#include "gtest/gtest.h"
#include "tests/unit/common/dp_test_stats.h"
#include "wire/clear_upload.h"

namespace fedmf::algorithms::dp_als {
namespace {

data::RatingsDataset Data(int32_t users, int32_t items, double per_user) {
  data::SyntheticConfig config;
  config.num_users = users;
  config.num_items = items;
  config.rank = 3;
  config.ratings_per_user = per_user;
  config.min_ratings_per_user = 3;
  config.seed = 7;
  absl::StatusOr<data::RatingsDataset> d = data::GenerateSynthetic(config);
  EXPECT_TRUE(d.ok()) << d.status();
  return *std::move(d);
}

// No cap or clip binds on Data(): C = m, U huge, R = 5 (the rating scale's top).
v1::DpAlsConfig Config(const data::RatingsDataset& d, v1::DpAlsConfig::Mechanism mechanism) {
  v1::DpAlsConfig c;
  c.set_num_items(d.num_items());
  c.set_num_users(d.num_users());
  c.set_rank(3);
  c.set_lambda(0.3);
  c.set_mu(0.7);
  c.set_kappa(2);
  c.set_iterations(2);
  c.set_item_cap(d.num_items());
  c.set_factor_bound(1e3);
  c.set_rating_clip(5);
  c.set_gram_share(0.4);
  c.set_mechanism(mechanism);
  c.set_item_gram(v1::DpAlsConfig::ITEM_GRAM_FULL);
  c.set_secure_aggregation(true);
  c.set_epsilon(1);
  c.set_delta(1e-5);
  c.set_seed(3);
  c.set_init_scale(0.5);
  c.set_fixed_point_bits(40);
  c.set_ddg_bits(40);
  c.set_rating_min(1);
  c.set_rating_max(5);
  return c;
}

// Every user's factor by eq. 5 from V (rows = users).
mf::FactorMatrix UserFactors(const data::RatingsDataset& d, const mf::FactorMatrix& v,
                             const v1::DpAlsConfig& c) {
  const Eigen::MatrixXd gram = mf::FactorGram(v);
  mf::FactorMatrix u(d.num_users(), c.rank());
  for (int32_t i = 0; i < d.num_users(); ++i) {
    absl::StatusOr<Eigen::VectorXd> f =
        mf::SolveUserFactor(v, gram, d.user(i), c.lambda(), c.kappa());
    EXPECT_TRUE(f.ok());
    u.row(i) = f->transpose();
  }
  return u;
}

// The central ALS item step with the users' factors fixed.
mf::FactorMatrix CentralItemStep(const data::RatingsDataset& d, const mf::FactorMatrix& u,
                                 const v1::DpAlsConfig& c) {
  const Eigen::MatrixXd gram = mf::FactorGram(u);
  mf::FactorMatrix v(d.num_items(), c.rank());
  for (int32_t j = 0; j < d.num_items(); ++j) {
    v.row(j) = mf::SolveWeightedRow(gram, u, d.item(j), c.kappa(), c.mu()).transpose();
  }
  return v;
}

TEST(DpAlsTest, NoiselessItemUpdateEqualsCentralAlsStep) {
  const data::RatingsDataset d = Data(40, 25, 8);
  const v1::DpAlsConfig c = Config(d, v1::DpAlsConfig::MECHANISM_NONE);
  const mf::FactorMatrix v0 = mf::RandomFactors(c.num_items(), c.rank(), 0.5, 11);
  const mf::FactorMatrix u = UserFactors(d, v0, c);
  ASSERT_LT(u.rowwise().norm().maxCoeff(), c.factor_bound());  // no clip binds
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(StatisticsLength(c));
  dp::Rng rng(1);
  for (int32_t i = 0; i < d.num_users(); ++i) {
    absl::StatusOr<SparseStatistics> s = UserStatistics(c, u.row(i).transpose(), d.user(i), rng);
    ASSERT_TRUE(s.ok()) << s.status();
    sum += Densify(*s, StatisticsLength(c));
  }
  absl::StatusOr<mf::FactorMatrix> federated = SolveItemFactors(c, v1::DpAlsNoise(), sum);
  ASSERT_TRUE(federated.ok()) << federated.status();
  const mf::FactorMatrix central = CentralItemStep(d, u, c);
  EXPECT_LE((*federated - central).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_GT(central.cwiseAbs().maxCoeff(), 1e-2);  // not a trivial zero model
}

// One round through the registry's contributor, the clear sum mod 2^b and the updater.
TEST(DpAlsTest, NoiselessRoundThroughTheUpdaterMatchesCentralStep) {
  const data::RatingsDataset d = Data(40, 25, 8);
  const v1::DpAlsConfig c = Config(d, v1::DpAlsConfig::MECHANISM_NONE);
  absl::StatusOr<std::unique_ptr<DpAlsUpdater>> updater = DpAlsUpdater::Create(c);
  ASSERT_TRUE(updater.ok()) << updater.status();
  absl::StatusOr<Eigen::MatrixXd> v0 =
      MatrixFromProto((*updater)->model().item_factors(), c.num_items(), c.rank(), "V0");
  ASSERT_TRUE(v0.ok());
  absl::StatusOr<v1::RoundPlan> plan = (*updater)->Plan();
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ((*updater)->fixed_population(), true);
  absl::StatusOr<std::unique_ptr<Contributor>> contributor = MakeContributor(*plan);
  ASSERT_TRUE(contributor.ok()) << contributor.status();
  std::vector<uint64_t> sum(plan->length(), 0);
  std::vector<uint32_t> ids;
  for (int32_t i = 0; i < d.num_users(); ++i) {
    dp::Rng rng(5, static_cast<uint64_t>(i));
    absl::StatusOr<Contribution> out =
        (*contributor)->Contribute(LocalData::User(d.user(i)), "", rng);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(out->vector.is_sparse());
    ASSERT_TRUE(AddModPow2(out->vector, static_cast<int>(plan->bits()), absl::MakeSpan(sum)).ok());
    ids.push_back(static_cast<uint32_t>(i + 1));
  }
  ASSERT_TRUE((*updater)->ApplySum(sum, ids).ok());
  EXPECT_EQ((*updater)->round(), 1);
  absl::StatusOr<Eigen::MatrixXd> v1m =
      MatrixFromProto((*updater)->model().item_factors(), c.num_items(), c.rank(), "V1");
  ASSERT_TRUE(v1m.ok());
  const mf::FactorMatrix central = CentralItemStep(d, UserFactors(d, mf::FactorMatrix(*v0), c), c);
  // Each decoded statistic is within n 2^-f of the exact one (stochastic rounding, n = 40 users,
  // f = 40), i.e. ~1e-10 relative: the solve keeps it far below 1e-6.
  EXPECT_LE((*v1m - Eigen::MatrixXd(central)).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_FALSE((*updater)->RoundPrivacy(40, dp::DefaultOrders())->has_value());
}

// Every item_gram layout: a user with every item, ratings of +-1e9 and factors from tiny to huge.
TEST(DpAlsTest, ContributionBoundHoldsForAdversarialInputs) {
  const data::RatingsDataset d = Data(5, 60, 10);
  std::vector<int32_t> items(60);
  std::vector<float> ratings(60);
  for (int32_t j = 0; j < 60; ++j) {
    items[j] = j;
    ratings[j] = (j % 2 == 0) ? 1e9f : -1e9f;
  }
  const data::RatingRow all{.indices = items, .ratings = ratings, .timestamps = {}};
  for (auto gram : {v1::DpAlsConfig::ITEM_GRAM_FULL, v1::DpAlsConfig::ITEM_GRAM_COUNT,
                    v1::DpAlsConfig::ITEM_GRAM_NONE}) {
    for (bool fill : {false, true}) {
      v1::DpAlsConfig c = Config(d, v1::DpAlsConfig::MECHANISM_NONE);
      c.set_item_gram(gram);
      c.set_scale_to_cap(fill);
      c.set_item_cap(7);
      c.set_factor_bound(0.5);
      c.set_rating_clip(5);
      const int64_t g = ItemGramSize(c);
      EXPECT_EQ(g, gram == v1::DpAlsConfig::ITEM_GRAM_FULL    ? 6
                   : gram == v1::DpAlsConfig::ITEM_GRAM_COUNT ? 1
                                                              : 0);
      dp::Rng rng(9);
      for (double scale : {1e-3, 1.0, 1e6}) {
        const Eigen::VectorXd factor = Eigen::VectorXd::Constant(3, scale);
        absl::StatusOr<SparseStatistics> s = UserStatistics(c, factor, all, rng);
        ASSERT_TRUE(s.ok()) << s.status();
        EXPECT_LE(s->values.norm(), 1 + 1e-12) << scale;
        EXPECT_LE(s->values.cwiseAbs().maxCoeff(), CoordinateBound(c) * (1 + 1e-12));
        // The global block (K) and C item blocks of g + k coordinates, all below D.
        EXPECT_EQ(s->indices.size(), static_cast<size_t>(6 + 7 * (g + 3)));
        EXPECT_LT(s->indices.back(), static_cast<uint64_t>(StatisticsLength(c)));
      }
      // The bound is tight: a factor along one axis (||upper(u u^T)|| = ||u||^2 only then) at the
      // bound and every rating at R give norm 1.
      std::vector<float> top(60, 5);
      const data::RatingRow at_r{.indices = items, .ratings = top, .timestamps = {}};
      absl::StatusOr<SparseStatistics> axis =
          UserStatistics(c, Eigen::VectorXd::Unit(3, 0) * 10, at_r, rng);
      ASSERT_TRUE(axis.ok());
      EXPECT_NEAR(axis->values.norm(), 1, 1e-9);
      const Eigen::VectorXd bad = Eigen::VectorXd::Constant(3, std::nan(""));
      EXPECT_FALSE(UserStatistics(c, bad, all, rng).ok());
      // A user with 2 < C items: at the bound only when it scales to the cap.
      const data::RatingRow two{.indices = absl::MakeConstSpan(items).first(2),
                                .ratings = absl::MakeConstSpan(top).first(2),
                                .timestamps = {}};
      absl::StatusOr<SparseStatistics> light =
          UserStatistics(c, Eigen::VectorXd::Unit(3, 0) * 10, two, rng);
      ASSERT_TRUE(light.ok());
      if (fill) {
        EXPECT_NEAR(light->values.norm(), 1, 1e-9);
        EXPECT_LE(light->values.cwiseAbs().maxCoeff(), CoordinateBound(c) * (1 + 1e-12));
      } else {
        EXPECT_LT(light->values.norm(), 0.99);
      }
    }
  }
}

TEST(DpAlsTest, CappedPositionsAreUniformWithoutReplacement) {
  dp::Rng rng(4);
  std::vector<int> hits(10, 0);
  const int trials = 20000;
  for (int t = 0; t < trials; ++t) {
    const std::vector<int64_t> p = CappedPositions(10, 3, rng);
    ASSERT_EQ(p.size(), 3u);
    ASSERT_TRUE(p[0] < p[1] && p[1] < p[2]);
    for (int64_t x : p) ++hits[static_cast<size_t>(x)];
  }
  // Each position is chosen with probability 3/10: binomial, 5 standard errors.
  const double expected = trials * 0.3, se = std::sqrt(trials * 0.3 * 0.7);
  for (int h : hits) EXPECT_NEAR(h, expected, dp::testing::kSigmas * se);
  EXPECT_EQ(CappedPositions(2, 3, rng), (std::vector<int64_t>{0, 1}));
}

// The noise of the decoded sum: its pooled variance over every coordinate and trial against the
// ledger's noise_std^2 (and, for ddg, the sampler's n v / gamma^2 plus at most n/4 grid units of
// rounding variance per coordinate).
void ExpectLedgerVariance(v1::DpAlsConfig::Mechanism mechanism) {
  const data::RatingsDataset d = Data(30, 40, 6);
  v1::DpAlsConfig c = Config(d, mechanism);
  c.set_item_cap(4);
  c.set_factor_bound(1);
  c.set_ddg_bits(30);
  c.set_fixed_point_bits(16);
  absl::StatusOr<std::unique_ptr<DpAlsUpdater>> updater = DpAlsUpdater::Create(c);
  ASSERT_TRUE(updater.ok()) << updater.status();
  const v1::DpAlsNoise& noise = (*updater)->model().noise();
  absl::StatusOr<std::optional<dp::LedgerEntry>> entry =
      (*updater)->RoundPrivacy(30, dp::DefaultOrders());
  ASSERT_TRUE(entry.ok() && entry->has_value());
  double ledger_std = 0;
  for (const auto& [name, value] : (*entry)->params) {
    if (name == "noise_std") ledger_std = value;
  }
  EXPECT_EQ(ledger_std, noise.noise_std());
  EXPECT_EQ((*entry)->unit, dp::PrivacyUnit::kUser);
  absl::StatusOr<StatisticsCodec> codec = StatisticsCodec::Create(c, noise);
  ASSERT_TRUE(codec.ok()) << codec.status();
  absl::StatusOr<v1::RoundPlan> plan = (*updater)->Plan();
  ASSERT_TRUE(plan.ok());
  absl::StatusOr<std::unique_ptr<Contributor>> contributor = MakeContributor(*plan);
  ASSERT_TRUE(contributor.ok()) << contributor.status();
  const auto* als = dynamic_cast<const DpAlsContributor*>(contributor->get());
  ASSERT_NE(als, nullptr);
  std::vector<double> deviations;
  const int trials = 12;
  for (int t = 0; t < trials; ++t) {
    std::vector<uint64_t> sum(plan->length(), 0);
    Eigen::VectorXd exact = Eigen::VectorXd::Zero(codec->length());
    for (int32_t i = 0; i < d.num_users(); ++i) {
      dp::Rng rng(100 + t, static_cast<uint64_t>(i));
      dp::Rng replay(100 + t, static_cast<uint64_t>(i));
      absl::StatusOr<Contribution> out =
          (*contributor)->Contribute(LocalData::User(d.user(i)), "", rng);
      ASSERT_TRUE(out.ok()) << out.status();
      ASSERT_FALSE(out->vector.is_sparse());
      ASSERT_TRUE(
          AddModPow2(out->vector, static_cast<int>(plan->bits()), absl::MakeSpan(sum)).ok());
      // The same item sample: the statistics draw first from the same stream.
      absl::StatusOr<SparseStatistics> s = UserStatistics(c, out->user_factor, d.user(i), replay);
      ASSERT_TRUE(s.ok());
      exact += Densify(*s, codec->length());
    }
    absl::StatusOr<Eigen::VectorXd> decoded = codec->DecodeSum(sum, d.num_users());
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    for (Eigen::Index j = 0; j < exact.size(); ++j) deviations.push_back((*decoded)[j] - exact[j]);
  }
  const dp::testing::Moments m = dp::testing::ComputeMoments(deviations);
  const double sigma2 = noise.noise_std() * noise.noise_std();
  // Rounding adds at most n / 2 grid units^2 per coordinate (each user's stochastic rounding of
  // its value, and for gaussian of its noise, at most 1/4 each).
  const double rounding = d.num_users() / (2 * noise.scale() * noise.scale());
  EXPECT_NEAR(m.mean, 0, dp::testing::kSigmas * m.mean_se);
  EXPECT_GE(m.variance, sigma2 - dp::testing::kSigmas * m.variance_se);
  EXPECT_LE(m.variance, sigma2 + rounding + dp::testing::kSigmas * m.variance_se);
  EXPECT_LT(rounding, 0.01 * sigma2);  // the bound is about the noise, not the rounding
}

TEST(DpAlsTest, DdgNoiseMatchesLedgerVariance) {
  ExpectLedgerVariance(v1::DpAlsConfig::MECHANISM_DDG);
}
TEST(DpAlsTest, GaussianNoiseMatchesLedgerVariance) {
  ExpectLedgerVariance(v1::DpAlsConfig::MECHANISM_GAUSSIAN);
}

// A user's clear upload (gaussian without secure aggregation: each upload carries the whole
// calibrated noise) contains neither the bytes of its factor nor its statistics above the noise.
TEST(DpAlsTest, UserFactorIsInNoUpload) {
  const data::RatingsDataset d = Data(30, 40, 6);
  v1::DpAlsConfig c = Config(d, v1::DpAlsConfig::MECHANISM_GAUSSIAN);
  c.set_secure_aggregation(false);
  c.set_factor_bound(1);
  c.set_fixed_point_bits(16);
  absl::StatusOr<std::unique_ptr<DpAlsUpdater>> updater = DpAlsUpdater::Create(c);
  ASSERT_TRUE(updater.ok()) << updater.status();
  absl::StatusOr<v1::RoundPlan> plan = (*updater)->Plan();
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->combination(), v1::COMBINATION_CLEAR);
  absl::StatusOr<std::unique_ptr<Contributor>> contributor = MakeContributor(*plan);
  ASSERT_TRUE(contributor.ok());
  absl::StatusOr<StatisticsCodec> codec = StatisticsCodec::Create(c, (*updater)->model().noise());
  ASSERT_TRUE(codec.ok());
  std::vector<double> deviations;
  for (int32_t i = 0; i < d.num_users(); ++i) {
    dp::Rng rng(8, static_cast<uint64_t>(i));
    dp::Rng replay(8, static_cast<uint64_t>(i));
    absl::StatusOr<Contribution> out =
        (*contributor)->Contribute(LocalData::User(d.user(i)), "", rng);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(out->state.empty());
    const std::string wire =
        wire::ToClearUpload({}, static_cast<uint32_t>(i + 1), out->vector).SerializeAsString();
    const Eigen::VectorXd& u = out->user_factor;
    ASSERT_EQ(u.size(), c.rank());
    for (Eigen::Index a = 0; a < u.size(); ++a) {
      const double as_double = u[a];
      const float as_float = static_cast<float>(u[a]);
      EXPECT_FALSE(absl::StrContains(
          wire, absl::string_view(reinterpret_cast<const char*>(&as_double), sizeof as_double)));
      EXPECT_FALSE(absl::StrContains(
          wire, absl::string_view(reinterpret_cast<const char*>(&as_float), sizeof as_float)));
    }
    // The upload alone, decoded, is the user's statistics plus noise of the whole sigma.
    absl::StatusOr<std::vector<uint64_t>> dense = out->vector.Densify(plan->length());
    ASSERT_TRUE(dense.ok());
    absl::StatusOr<Eigen::VectorXd> alone = codec->DecodeSum(*dense, 1);
    ASSERT_FALSE(alone.ok());  // one upload is not a sum of the population
    absl::StatusOr<Eigen::VectorXd> lifted =
        dp::DecodeCheckedSum(*dense, static_cast<int>(plan->bits()), 1e300, std::ldexp(1.0, 16));
    ASSERT_TRUE(lifted.ok());
    absl::StatusOr<SparseStatistics> s = UserStatistics(c, u, d.user(i), replay);
    ASSERT_TRUE(s.ok());
    const Eigen::VectorXd diff = *lifted - Densify(*s, codec->length());
    for (Eigen::Index j = 0; j < diff.size(); ++j) deviations.push_back(diff[j]);
  }
  const dp::testing::Moments m = dp::testing::ComputeMoments(deviations);
  const double sigma = (*updater)->model().noise().noise_std();
  EXPECT_GE(m.variance, sigma * sigma - dp::testing::kSigmas * m.variance_se);
  EXPECT_GT(sigma, 5);  // far above any statistic (||x|| <= 1)
}

TEST(DpAlsTest, BadConfigNamesTheField) {
  const data::RatingsDataset d = Data(10, 10, 4);
  v1::DpAlsConfig c = Config(d, v1::DpAlsConfig::MECHANISM_DDG);
  c.set_gram_share(1);
  absl::Status s = ValidateConfig(c);
  EXPECT_TRUE(absl::StrContains(s.message(), "gram_share=1")) << s;
  c = Config(d, v1::DpAlsConfig::MECHANISM_DDG);
  c.set_item_cap(0);
  EXPECT_TRUE(absl::StrContains(ValidateConfig(c).message(), "item_cap=0"));
  c = Config(d, v1::DpAlsConfig::MECHANISM_DDG);
  c.set_secure_aggregation(false);
  EXPECT_TRUE(absl::StrContains(ValidateConfig(c).message(), "secure_aggregation"));
  c = Config(d, v1::DpAlsConfig::MECHANISM_DDG);
  c.set_epsilon(0);
  EXPECT_TRUE(absl::StrContains(ValidateConfig(c).message(), "epsilon=0"));
}

TEST(DpAlsTest, CheckpointRoundTripsAndRunEnds) {
  const data::RatingsDataset d = Data(20, 15, 5);
  v1::DpAlsConfig c = Config(d, v1::DpAlsConfig::MECHANISM_DDG);
  c.set_iterations(1);
  absl::StatusOr<std::unique_ptr<DpAlsUpdater>> updater = DpAlsUpdater::Create(c);
  ASSERT_TRUE(updater.ok()) << updater.status();
  absl::StatusOr<std::string> state = (*updater)->SerializeState();
  ASSERT_TRUE(state.ok());
  absl::StatusOr<std::unique_ptr<Updater>> restored = RestoreUpdater("dp-als", *state);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(*(*restored)->SerializeState(), *state);
  v1::DpAlsModel done = (*updater)->model();
  done.set_round(1);
  absl::StatusOr<std::unique_ptr<Updater>> over =
      RestoreUpdater("dp-als", done.SerializeAsString());
  ASSERT_TRUE(over.ok());
  EXPECT_FALSE((*over)->RoundPrivacy(20, dp::DefaultOrders())->has_value());
  absl::StatusOr<v1::RoundPlan> plan = (*over)->Plan();
  ASSERT_TRUE(plan.ok());
  absl::StatusOr<std::unique_ptr<Contributor>> contributor = MakeContributor(*plan);
  ASSERT_TRUE(contributor.ok());
  dp::Rng rng(1);
  EXPECT_EQ((*contributor)->Contribute(LocalData::User(d.user(0)), "", rng).status().code(),
            absl::StatusCode::kFailedPrecondition);
  done.set_round(2);
  EXPECT_FALSE(RestoreUpdater("dp-als", done.SerializeAsString()).ok());
}

}  // namespace
}  // namespace fedmf::algorithms::dp_als
