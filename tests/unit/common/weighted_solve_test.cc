#include "common/mf/weighted_solve.h"

#include <limits>

#include "gtest/gtest.h"

namespace fedmf::mf {
namespace {

data::RatingsDataset OneUser(const std::vector<std::pair<int, float>>& ratings, int num_items) {
  data::RatingsBuilder builder;
  // Register every item first so dense index == item number.
  for (int i = 0; i < num_items; ++i)
    builder.Add("placeholder", std::to_string(i), 1, std::nullopt);
  for (const auto& [item, r] : ratings) builder.Add("u", std::to_string(item), r, std::nullopt);
  data::RatingsDataset all = std::move(builder).Build().value();
  std::vector<int64_t> keep;
  for (int64_t k = 0; k < all.num_ratings(); ++k) {
    if (all.rating(k).user == 1) keep.push_back(k);
  }
  return all.Subset(keep);
}

// F^T F entry by entry as sums over the rows, symmetric to the last bit (the lower triangle is
// mirrored); a 3 x 2 worked by hand, then a random 500 x 7.
TEST(WeightedSolveTest, FactorGramIsTheSumOfRowOuterProducts) {
  FactorMatrix small(3, 2);
  small << 1, 2,  //
      3, -1,      //
      0, 4;
  const Eigen::MatrixXd by_hand = (Eigen::MatrixXd(2, 2) << 10, -1, -1, 21).finished();
  EXPECT_EQ(FactorGram(small), by_hand);
  const FactorMatrix f = FactorMatrix::Random(500, 7);
  const Eigen::MatrixXd gram = FactorGram(f);
  ASSERT_EQ(gram.rows(), 7);
  ASSERT_EQ(gram.cols(), 7);
  for (int a = 0; a < 7; ++a) {
    for (int b = 0; b < 7; ++b) {
      double sum = 0;
      for (int r = 0; r < 500; ++r) sum += f(r, a) * f(r, b);
      EXPECT_NEAR(gram(a, b), sum, 1e-12) << a << "," << b;
      EXPECT_EQ(gram(a, b), gram(b, a));
    }
  }
}

TEST(WeightedSolveTest, OneDimensionalCaseWorkedByHand) {
  // F = [1; 2; 0], the user rated item 0 with 3. kappa = 1, reg = 0.5:
  // lhs = F^T F + kappa * 1^2 + reg = 5 + 1 + 0.5 = 6.5; rhs = (1 + kappa) * 3 * 1 = 6.
  FactorMatrix items(3, 1);
  items << 1, 2, 0;
  const data::RatingsDataset ds = OneUser({{0, 3}}, 3);
  const Eigen::MatrixXd gram = items.transpose() * items;
  const Eigen::VectorXd x = SolveWeightedRow(gram, items, ds.user(1), 1.0, 0.5);
  ASSERT_EQ(x.size(), 1);
  EXPECT_NEAR(x[0], 6.0 / 6.5, 1e-12);
}

TEST(WeightedSolveTest, SolutionZeroesTheGradientOfEquationFour) {
  // Gradient of sum_j c_j (r_j - x.f_j)^2 + reg |x|^2 in x, with c_j = 1 + kappa on observed items
  // and r_j = 0 elsewhere, written out term by term.
  FactorMatrix items(4, 2);
  items << 0.3, -0.2,  //
      1.0, 0.4,        //
      -0.7, 0.9,       //
      0.2, 0.2;
  const double kappa = 15, reg = 0.25;
  const data::RatingsDataset ds = OneUser({{1, 4}, {3, 2}}, 4);
  const Eigen::VectorXd x =
      SolveWeightedRow(items.transpose() * items, items, ds.user(1), kappa, reg);
  const double r[4] = {0, 4, 0, 2};
  const double c[4] = {1, 1 + kappa, 1, 1 + kappa};
  Eigen::Vector2d gradient = 2 * reg * x;
  for (int j = 0; j < 4; ++j) {
    const Eigen::Vector2d f = items.row(j).transpose();
    gradient -= 2 * c[j] * (r[j] - x.dot(f)) * f;
  }
  EXPECT_LT(gradient.norm(), 1e-10);
}

TEST(WeightedSolveTest, SolveUserFactorIsTheCheckedClosedForm) {
  FactorMatrix items(3, 1);
  items << 1, 2, 0;
  const data::RatingsDataset ds = OneUser({{0, 3}}, 3);
  const Eigen::MatrixXd gram = items.transpose() * items;
  const absl::StatusOr<Eigen::VectorXd> u = SolveUserFactor(items, gram, ds.user(1), 0.5, 1.0);
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(*u, SolveWeightedRow(gram, items, ds.user(1), 1.0, 0.5));
}

TEST(WeightedSolveTest, SolveUserFactorRejectsBadInput) {
  FactorMatrix items = FactorMatrix::Ones(2, 1);
  const Eigen::MatrixXd gram = items.transpose() * items;
  const int32_t far_item[1] = {2};
  const int32_t item[1] = {1};
  const float rating[1] = {3};
  const float nan_rating[1] = {std::numeric_limits<float>::quiet_NaN()};
  EXPECT_EQ(SolveUserFactor(items, gram, {far_item, rating, {}}, 1, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SolveUserFactor(items, gram, {item, nan_rating, {}}, 1, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      SolveUserFactor(items, Eigen::MatrixXd::Ones(2, 2), {item, rating, {}}, 1, 1).status().code(),
      absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::mf
