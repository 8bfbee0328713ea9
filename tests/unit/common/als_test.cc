#include "common/mf/als.h"

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace fedmf::mf {
namespace {

// A fully observed n x m matrix r = 3 + b_u + b_i + <p_u, q_i> with rank-2 factors, written out so
// the exact generating model is known.
data::RatingsDataset ExactLowRankMatrix(int n, int m) {
  data::RatingsBuilder builder;
  for (int u = 0; u < n; ++u) {
    for (int i = 0; i < m; ++i) {
      const double pu[2] = {std::sin(u + 1.0), std::cos(2.0 * u)};
      const double qi[2] = {std::cos(i + 0.5), std::sin(3.0 * i)};
      const double r = 3 + 0.1 * (u % 3) - 0.2 * (i % 2) + pu[0] * qi[0] + pu[1] * qi[1];
      builder.Add(std::to_string(u), std::to_string(i), static_cast<float>(r), std::nullopt);
    }
  }
  return std::move(builder).Build().value();
}

double TrainingRmse(const data::RatingsDataset& ds, const FactorModel& model) {
  double se = 0;
  for (int64_t k = 0; k < ds.num_ratings(); ++k) {
    const data::Rating r = ds.rating(k);
    const double e = model.Predict(r.user, r.item) - r.rating;
    se += e * e;
  }
  return std::sqrt(se / static_cast<double>(ds.num_ratings()));
}

// DPMF-RP eq. 4 summed over every (user, item) pair, observed or not.
double WeightedObjective(const data::RatingsDataset& ds, const FactorModel& model,
                         const CentralMfConfig& c) {
  double loss = 0;
  for (int32_t u = 0; u < ds.num_users(); ++u) {
    std::vector<double> r(ds.num_items(), 0.0), conf(ds.num_items(), 1.0);
    const data::RatingRow row = ds.user(u);
    for (int64_t n = 0; n < row.size(); ++n) {
      r[row.indices[n]] = row.ratings[n];
      conf[row.indices[n]] = 1 + c.kappa;
    }
    for (int32_t i = 0; i < ds.num_items(); ++i) {
      const double e = r[i] - model.user_factors.row(u).dot(model.item_factors.row(i));
      loss += conf[i] * e * e;
    }
  }
  return loss + c.lambda * model.user_factors.squaredNorm() +
         c.mu * model.item_factors.squaredNorm();
}

TEST(ExplicitAlsTest, RecoversAnExactLowRankMatrix) {
  const data::RatingsDataset ds = ExactLowRankMatrix(12, 15);
  ExplicitAlsConfig config;
  config.rank = 2;
  config.lambda = 1e-7;
  config.iterations = 200;
  const FactorModel model = TrainExplicitAls(ds, config).value();
  EXPECT_LT(TrainingRmse(ds, model), 1e-3);
}

TEST(ExplicitAlsTest, SameSeedSameModel) {
  const data::RatingsDataset ds = ExactLowRankMatrix(8, 9);
  ExplicitAlsConfig config;
  config.iterations = 3;
  const FactorModel a = TrainExplicitAls(ds, config).value();
  const FactorModel b = TrainExplicitAls(ds, config).value();
  EXPECT_EQ(a.user_factors, b.user_factors);
  EXPECT_EQ(a.item_bias, b.item_bias);
}

TEST(ExplicitAlsTest, CallbackSeesEveryIteration) {
  const data::RatingsDataset ds = ExactLowRankMatrix(5, 6);
  ExplicitAlsConfig config;
  config.iterations = 4;
  std::vector<int> seen;
  ASSERT_TRUE(
      TrainExplicitAls(ds, config, [&](int it, const FactorModel&) { seen.push_back(it); }).ok());
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4}));
}

TEST(ExplicitAlsTest, RejectsBadConfigAndEmptyData) {
  const data::RatingsDataset ds = ExactLowRankMatrix(3, 3);
  ExplicitAlsConfig config;
  config.rank = 0;
  EXPECT_EQ(TrainExplicitAls(ds, config).status().code(), absl::StatusCode::kInvalidArgument);
  config = {};
  config.lambda = 0;
  EXPECT_EQ(TrainExplicitAls(ds, config).status().code(), absl::StatusCode::kInvalidArgument);
  config = {};
  config.iterations = 0;
  EXPECT_EQ(TrainExplicitAls(ds, config).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TrainExplicitAls(ds.Subset({}), {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CentralMfTest, EverySweepDecreasesTheWeightedObjective) {
  // Each half sweep is an exact minimization over one side, so eq. 4 can never increase.
  const data::RatingsDataset full = ExactLowRankMatrix(10, 14);
  std::vector<int64_t> observed;
  for (int64_t k = 0; k < full.num_ratings(); k += 3) observed.push_back(k);
  const data::RatingsDataset ds = full.Subset(observed);
  CentralMfConfig config;
  config.rank = 3;
  config.iterations = 8;
  std::vector<double> objective;
  ASSERT_TRUE(TrainCentralMf(ds, config, [&](int, const FactorModel& model) {
                objective.push_back(WeightedObjective(ds, model, config));
              }).ok());
  ASSERT_EQ(objective.size(), 8u);
  for (size_t t = 1; t < objective.size(); ++t) {
    EXPECT_LE(objective[t], objective[t - 1] * (1 + 1e-12)) << "sweep " << t + 1;
  }
}

TEST(CentralMfTest, RejectsNonPositiveRegularization) {
  const data::RatingsDataset ds = ExactLowRankMatrix(3, 3);
  CentralMfConfig config;
  config.mu = 0;
  EXPECT_EQ(TrainCentralMf(ds, config).status().code(), absl::StatusCode::kInvalidArgument);
  config = {};
  config.kappa = -1;
  EXPECT_EQ(TrainCentralMf(ds, config).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::mf
