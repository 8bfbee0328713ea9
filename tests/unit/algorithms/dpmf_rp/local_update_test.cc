#include "common/algorithms/dpmf_rp/local_update.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "tests/unit/algorithms/dpmf_rp/test_util.h"

namespace fedmf::algorithms::dpmf_rp {
namespace {

using testing::MakeDataset;

TEST(DpmfRpLocalUpdateTest, OneDimensionalCaseWorkedByHand) {
  // V = [1; 2; 0], the user rated item 0 with 3, kappa = 1, lambda = 0.5:
  // u = (1 + kappa) 3 / (|V|^2 + kappa + lambda) = 6 / 6.5 (eq. 5).
  // B1 = 0.5 clips u to 0.5. e = 0.6:
  //   w_0 = (1 + 1) * clip(3 - 0.5 * 1) = 2 * 0.6 = 1.2   (observed, c = 2)
  //   w_1 = clip(0 - 0.5 * 2) = -0.6                        (unobserved, c = 1, r = 0)
  //   w_2 = clip(0 - 0) = 0
  mf::FactorMatrix v(3, 1);
  v << 1, 2, 0;
  const data::RatingsDataset ds = MakeDataset(1, 3, {{0, 0, 3}});
  const Eigen::MatrixXd gram = v.transpose() * v;
  absl::StatusOr<LocalGradient> g = ComputeLocalGradient(
      v, gram, ds.user(0), {.lambda = 0.5, .kappa = 1, .user_l1_clip = 0.5, .error_clip = 0.6});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NEAR(g->user_factor[0], 6 / 6.5, 1e-12);
  EXPECT_NEAR(g->clipped_factor[0], 0.5, 1e-15);
  EXPECT_NEAR(g->weights[0], 1.2, 1e-15);
  EXPECT_NEAR(g->weights[1], -0.6, 1e-15);
  EXPECT_EQ(g->weights[2], 0);
  // With e = 10 nothing is clipped: w_0 = 2 * 2.5 = 5, w_1 = -1.
  g = ComputeLocalGradient(v, gram, ds.user(0),
                           {.lambda = 0.5, .kappa = 1, .user_l1_clip = 0.5, .error_clip = 10});
  ASSERT_TRUE(g.ok());
  EXPECT_NEAR(g->weights[0], 5, 1e-15);
  EXPECT_NEAR(g->weights[1], -1, 1e-15);
}

TEST(DpmfRpLocalUpdateTest, ClippedFactorHasL1NormAtMostB1AndKeepsItsDirection) {
  mf::FactorMatrix v(5, 3);
  v << 0.3, -0.2, 0.5,  //
      1.0, 0.4, -0.1,   //
      -0.7, 0.9, 0.2,   //
      0.2, 0.2, 0.8,    //
      0.6, -0.5, 0.3;
  const data::RatingsDataset ds = MakeDataset(1, 5, {{0, 1, 5}, {0, 3, 4}, {0, 4, 1}});
  for (double b1 : {1e-3, 0.1, 100.0}) {
    absl::StatusOr<LocalGradient> g =
        ComputeLocalGradient(v, v.transpose() * v, ds.user(0),
                             {.lambda = 0.25, .kappa = 15, .user_l1_clip = b1, .error_clip = 1});
    ASSERT_TRUE(g.ok());
    EXPECT_LE(g->clipped_factor.lpNorm<1>(), b1);
    const double ratio = std::min(1.0, b1 / g->user_factor.lpNorm<1>());
    EXPECT_LT((g->clipped_factor - ratio * g->user_factor).norm(), 1e-12 * g->user_factor.norm());
    // Every weight within its confidence times e.
    for (int j = 0; j < 5; ++j) {
      const bool rated = j == 1 || j == 3 || j == 4;
      EXPECT_LE(std::abs(g->weights[j]), rated ? 16.0 : 1.0);
    }
  }
}

TEST(DpmfRpLocalUpdateTest, GradientRowsAreTheDerivativeOfEquationFour) {
  // The user's data term of eq. 4, J_i(V) = sum_j c_ij (r_ij - <u, v_j>)^2 over ALL m items (r = 0,
  // c = 1 where unrated), at the contributed (clipped) u. With e large no error is clipped and
  // dJ_i/dv_j must equal -2 f(i, j) = -2 w_j u. J_i is quadratic in V, so central differences are
  // exact up to rounding.
  mf::FactorMatrix v(4, 2);
  v << 0.3, -0.2,  //
      1.0, 0.4,    //
      -0.7, 0.9,   //
      0.2, 0.2;
  const double kappa = 15;
  const data::RatingsDataset ds = MakeDataset(1, 4, {{0, 1, 4}, {0, 3, 2}});
  absl::StatusOr<LocalGradient> g = ComputeLocalGradient(
      v, v.transpose() * v, ds.user(0),
      {.lambda = 0.25, .kappa = kappa, .user_l1_clip = 0.8, .error_clip = 1e6});
  ASSERT_TRUE(g.ok());
  const Eigen::VectorXd u = g->clipped_factor;
  ASSERT_LT(u.lpNorm<1>(), g->user_factor.lpNorm<1>());  // the clip is active in this case
  const double r[4] = {0, 4, 0, 2};
  const double c[4] = {1, 1 + kappa, 1, 1 + kappa};
  const auto loss = [&](const mf::FactorMatrix& items) {
    double j = 0;
    for (int item = 0; item < 4; ++item) {
      const double e = r[item] - items.row(item).dot(u);
      j += c[item] * e * e;
    }
    return j;
  };
  const double h = 1e-5;
  for (int item = 0; item < 4; ++item) {
    for (int f = 0; f < 2; ++f) {
      mf::FactorMatrix plus = v, minus = v;
      plus(item, f) += h;
      minus(item, f) -= h;
      const double numeric = (loss(plus) - loss(minus)) / (2 * h);
      EXPECT_NEAR(-2 * g->weights[item] * u[f], numeric, 1e-8) << item << "," << f;
    }
  }
}

TEST(DpmfRpLocalUpdateTest, RejectsItemsOutOfRangeAndNonFiniteRatings) {
  mf::FactorMatrix v = mf::FactorMatrix::Ones(2, 1);
  const Eigen::MatrixXd gram = v.transpose() * v;
  const LocalUpdateParams params{.lambda = 1, .kappa = 1, .user_l1_clip = 1, .error_clip = 1};
  const int32_t far_item[1] = {2};
  const float rating[1] = {3};
  EXPECT_FALSE(ComputeLocalGradient(v, gram, {far_item, rating, {}}, params).ok());
  const int32_t item[1] = {1};
  const float nan_rating[1] = {std::numeric_limits<float>::quiet_NaN()};
  EXPECT_FALSE(ComputeLocalGradient(v, gram, {item, nan_rating, {}}, params).ok());
}

}  // namespace
}  // namespace fedmf::algorithms::dpmf_rp
