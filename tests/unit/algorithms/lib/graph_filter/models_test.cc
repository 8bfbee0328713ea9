// GF-CF, Turbo-CF and BSPM (common/algorithms/graph_filter) built from a training set and scored
// through their Scorer, against each paper's scoring rule evaluated the brute-force way: explicit
// dense matrices (test_util), the singular vectors from Eigen's dense SVD and BSPM's ODE steps as
// matrix polynomials.
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/graph_filter/build.h"
#include "common/algorithms/lib/graph_filter/config.h"
#include "common/algorithms/lib/graph_filter/ode.h"
#include "common/algorithms/lib/graph_filter/scorer.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/lib/graph_filter/test_util.h"

namespace fedmf::algorithms::graph_filter {
namespace {

using test_util::DenseGramHalf;
using test_util::DenseIdealLowPass;
using test_util::DenseNormalized;
using test_util::DenseR;
using test_util::DenseTopRightSingularVectors;
using test_util::RandomImplicit;

constexpr int kUsers = 70;
constexpr int kItems = 50;

class GraphFilterModelsTest : public ::testing::Test {
 protected:
  GraphFilterModelsTest()
      : data_(RandomImplicit(kUsers, kItems, 0.12, 21)), r_(DenseR(data_)), m_(data_.num_items()) {}

  // Every user's scores (as rows) from the model built on data_ with `config`.
  Eigen::MatrixXd Scores(const GraphFilterConfig& config) const {
    absl::StatusOr<std::shared_ptr<const ItemFilter>> filter = BuildCentralFilter(data_, config);
    EXPECT_TRUE(filter.ok()) << filter.status();
    const GraphFilterScorer scorer(*filter);
    std::vector<data::RatingRow> users;
    for (int32_t u = 0; u < data_.num_users(); ++u) users.push_back(data_.user(u));
    absl::StatusOr<Eigen::MatrixXd> scores = scorer.ScoresBatch(users);
    EXPECT_TRUE(scores.ok()) << scores.status();
    return scores->transpose();
  }

  Eigen::MatrixXd Gram(double alpha) const {
    const Eigen::MatrixXd normalized = DenseNormalized(r_, alpha);
    return normalized.transpose() * normalized;
  }

  Eigen::MatrixXd LowPass(int k) const {
    return DenseIdealLowPass(r_, DenseTopRightSingularVectors(DenseNormalized(r_, 0.5), k));
  }

  Eigen::MatrixXd Identity() const { return Eigen::MatrixXd::Identity(m_, m_); }

  // One step of the ODE dr/dt = r L as the matrix r is right-multiplied by: Euler I + hL, and
  // for any 4-stage 4th-order Runge-Kutta method sum_{j<=4} (hL)^j / j!.
  Eigen::MatrixXd Step(const Eigen::MatrixXd& l, const OdeSpec& spec) const {
    const Eigen::MatrixXd hl = (spec.time / spec.steps) * l;
    if (spec.solver == OdeSolver::kEuler) return Identity() + hl;
    Eigen::MatrixXd term = Identity(), sum = Identity();
    for (int j = 1; j <= 4; ++j) {
      term = term * hl / j;
      sum += term;
    }
    return sum;
  }

  // P~'s rank-r stand-in from its exact top-r eigenpairs: S_r diag(sigma^2) S_r^T.
  Eigen::MatrixXd DenseLowRankGram(int r) const {
    const Eigen::MatrixXd normalized = DenseNormalized(r_, 0.5);
    const Eigen::MatrixXd s = DenseTopRightSingularVectors(normalized, r);
    const Eigen::VectorXd sigma = test_util::DenseSingularValues(normalized).head(r);
    return s * sigma.array().square().matrix().asDiagonal() * s.transpose();
  }

  // Scores of every user from a filter built by BuildFilterFromBasis.
  Eigen::MatrixXd BasisScores(SingularBasis basis, const GraphFilterConfig& config) const {
    absl::StatusOr<std::shared_ptr<const ItemFilter>> filter =
        BuildFilterFromBasis(test_util::ItemDegrees(r_), std::move(basis), config);
    EXPECT_TRUE(filter.ok()) << filter.status();
    std::vector<data::RatingRow> users;
    for (int32_t u = 0; u < data_.num_users(); ++u) users.push_back(data_.user(u));
    return GraphFilterScorer(*filter).ScoresBatch(users).value().transpose();
  }

  // BSPM's scores of every user, as the reference code runs them (models.h), with P~ or its
  // rank-c.gram_rank stand-in.
  Eigen::MatrixXd BruteForceBspm(const GraphFilterConfig& c) const {
    const Eigen::MatrixXd p = c.gram_rank == 0 ? Gram(0.5) : DenseLowRankGram(c.gram_rank);
    const Eigen::MatrixXd ideal_step = Step(LowPass(c.rank) - Identity(), c.bspm.ideal);
    const Eigen::MatrixXd blur_step = Step(p - Identity(), c.bspm.blur);
    const Eigen::MatrixXd sharpen_step = Step(-p, c.bspm.sharpen);
    const double beta = c.bspm.ideal_weight;
    Eigen::MatrixXd ideal = r_;
    for (int k = 0; k < c.bspm.ideal.steps; ++k) ideal = ideal * ideal_step;
    Eigen::MatrixXd blurred = r_;
    Eigen::MatrixXd points = Eigen::MatrixXd::Zero(r_.rows(), m_);
    for (int k = 0; k < c.bspm.blur.steps; ++k) {
      blurred = blurred * blur_step;
      points += blurred;
    }
    if (!c.bspm.sharpening) {
      const Eigen::MatrixXd u2 = c.bspm.point_combination ? points / c.bspm.blur.steps : blurred;
      return u2 + beta * ideal;
    }
    Eigen::MatrixXd sharpened =
        c.bspm.early_merge ? Eigen::MatrixXd(blurred + beta * ideal) : blurred;
    for (int k = 0; k < c.bspm.sharpen.steps; ++k) {
      sharpened = sharpened * sharpen_step;
      points += sharpened;
    }
    const Eigen::MatrixXd u2 =
        c.bspm.point_combination ? points / (c.bspm.blur.steps + c.bspm.sharpen.steps) : sharpened;
    return c.bspm.early_merge ? u2 : Eigen::MatrixXd(u2 + beta * ideal);
  }

  data::RatingsDataset data_;
  Eigen::MatrixXd r_;
  int m_;
};

double MaxDifference(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  EXPECT_EQ(a.rows(), b.rows());
  EXPECT_EQ(a.cols(), b.cols());
  return (a - b).cwiseAbs().maxCoeff();
}

TEST_F(GraphFilterModelsTest, GfCfIsRTimesGramPlusGammaLowPass) {
  GraphFilterConfig c = PublishedConfig("gf-cf").value();
  c.rank = 6;
  const Eigen::MatrixXd expected = r_ * (DenseGramHalf(r_) + 0.3 * LowPass(6));
  EXPECT_LT(MaxDifference(Scores(c), expected), 1e-9);
  c.gamma = 0;  // P~ alone: no singular vectors at all
  EXPECT_LT(MaxDifference(Scores(c), r_ * DenseGramHalf(r_)), 1e-13);
}

TEST_F(GraphFilterModelsTest, TurboCfPolynomialsOfThePoweredGram) {
  GraphFilterConfig c = PublishedConfig("turbo-cf").value();
  const Eigen::MatrixXd p = Gram(0.6).array().pow(0.7).matrix();
  const Eigen::MatrixXd expected[] = {p, 2 * p - p * p,
                                      p + 0.01 * (-p * p * p + 10 * p * p - 29 * p)};
  for (int polynomial = 1; polynomial <= 3; ++polynomial) {
    SCOPED_TRACE(polynomial);
    c.polynomial = polynomial;
    EXPECT_LT(MaxDifference(Scores(c), r_ * expected[polynomial - 1]), 1e-12);
  }
  c.polynomial = 1;
  c.alpha = 0.5;
  c.power = 1;  // plain P~
  EXPECT_LT(MaxDifference(Scores(c), r_ * DenseGramHalf(r_)), 1e-13);
}

TEST_F(GraphFilterModelsTest, BspmEarlyAndLateMerge) {
  for (const char* name : {"bspm-em", "bspm-lm"}) {
    SCOPED_TRACE(name);
    GraphFilterConfig c = PublishedConfig(name).value();
    c.rank = 6;
    EXPECT_LT(MaxDifference(Scores(c), BruteForceBspm(c)), 1e-9);
  }
}

TEST_F(GraphFilterModelsTest, BspmOdeSettings) {
  GraphFilterConfig base = PublishedConfig("bspm-em").value();
  base.rank = 5;
  std::vector<GraphFilterConfig> configs;
  GraphFilterConfig c = base;
  c.bspm.ideal = {OdeSolver::kRk4, 0.7, 2};
  c.bspm.blur = {OdeSolver::kEuler, 1.5, 3};
  c.bspm.sharpen = {OdeSolver::kEuler, 1.2, 4};
  configs.push_back(c);
  c.bspm.early_merge = false;
  c.bspm.point_combination = true;
  configs.push_back(c);
  c.bspm.early_merge = true;
  c.bspm.blur = {OdeSolver::kRk4, 1, 2};
  c.bspm.sharpen = {OdeSolver::kRk4, 2.2, 2};
  configs.push_back(c);
  c.bspm.sharpening = false;
  configs.push_back(c);
  c.bspm.point_combination = false;
  configs.push_back(c);
  c = base;
  c.bspm.ideal_weight = 0;  // no ideal low-pass: BSPM's Amazon-Book branch
  configs.push_back(c);
  for (size_t k = 0; k < configs.size(); ++k) {
    SCOPED_TRACE(absl::StrCat(k, ": ", DescribeConfig(configs[k])));
    EXPECT_LT(MaxDifference(Scores(configs[k]), BruteForceBspm(configs[k])), 1e-9);
  }
}

// gram_rank r replaces P~ by S_r Lambda_r S_r^T from P~'s exact top-r eigenpairs, in GF-CF and in
// BSPM, the low-pass keeping its own k; at r = m it is P~ again; Turbo-CF refuses it.
TEST_F(GraphFilterModelsTest, GramRankReplacesTheGramByItsTopEigenpairs) {
  GraphFilterConfig c = PublishedConfig("gf-cf").value();
  c.rank = 6;
  c.gram_rank = 10;
  EXPECT_LT(MaxDifference(Scores(c), r_ * (DenseLowRankGram(10) + 0.3 * LowPass(6))), 1e-9);
  c.rank = 12;  // a low-pass wider than the stand-in: one Lanczos run of 12 serves both
  EXPECT_LT(MaxDifference(Scores(c), r_ * (DenseLowRankGram(10) + 0.3 * LowPass(12))), 1e-9);
  GraphFilterConfig exact = c;
  exact.gram_rank = 0;
  c.gram_rank = m_;
  EXPECT_LT(MaxDifference(Scores(c), Scores(exact)), 1e-9);
  for (const char* name : {"bspm-em", "bspm-lm"}) {
    SCOPED_TRACE(name);
    GraphFilterConfig b = PublishedConfig(name).value();
    b.rank = 5;
    b.gram_rank = 9;
    EXPECT_LT(MaxDifference(Scores(b), BruteForceBspm(b)), 1e-9);
  }
  GraphFilterConfig turbo = PublishedConfig("turbo-cf").value();
  turbo.gram_rank = 4;
  EXPECT_EQ(ValidateConfig(turbo).message(),
            "turbo-cf: gram rank = 4: Turbo-CF's entrywise power needs P~'s entries, not a "
            "low-rank P~");
  c.gram_rank = -1;
  EXPECT_EQ(ValidateConfig(c).code(), absl::StatusCode::kInvalidArgument);
}

// A client's filter from a rank-k basis (PriviRec-k) is the central filter whose stand-in and
// low-pass come from the same eigenpairs, whatever the columns' order; sizes, ranks and Turbo-CF
// are refused with a reason.
TEST_F(GraphFilterModelsTest, FilterFromABasisIsTheFilterOfThoseEigenpairs) {
  const Eigen::MatrixXd normalized = DenseNormalized(r_, 0.5);
  SingularBasis basis;
  basis.vectors = DenseTopRightSingularVectors(normalized, 10);
  basis.values = test_util::DenseSingularValues(normalized).head(10).array().square();
  for (const char* name : {"gf-cf", "bspm-em", "bspm-lm"}) {
    SCOPED_TRACE(name);
    GraphFilterConfig c = PublishedConfig(name).value();
    c.rank = 4;
    c.gram_rank = 10;
    const Eigen::MatrixXd central = Scores(c);
    c.gram_rank = 0;  // from a basis: all of its columns, 0 or k
    EXPECT_LT(MaxDifference(BasisScores(basis, c), central), 1e-9);
    // The columns reversed (as the paper's unsorted diag(T_L) may leave them): the low-pass still
    // takes the 4 of the largest eigenvalues.
    SingularBasis reversed;
    reversed.vectors = basis.vectors.rowwise().reverse();
    reversed.values = basis.values.reverse();
    EXPECT_LT(MaxDifference(BasisScores(reversed, c), central), 1e-9);
  }
  const Eigen::VectorXd degrees = test_util::ItemDegrees(r_);
  GraphFilterConfig c = PublishedConfig("gf-cf").value();
  c.rank = 11;
  EXPECT_EQ(BuildFilterFromBasis(degrees, basis, c).status().message(),
            "gf-cf: low-pass rank 11 from a basis of 10 columns");
  c.rank = 4;
  c.gram_rank = 9;
  EXPECT_EQ(BuildFilterFromBasis(degrees, basis, c).status().message(),
            "gf-cf: gram rank 9 from a basis of 10 columns");
  c.gram_rank = 0;
  EXPECT_EQ(
      BuildFilterFromBasis(degrees.head(m_ - 1), basis, c).status().message(),
      absl::StrCat("a basis of ", m_, " x 10 with 10 eigenvalues for ", m_ - 1, " item degrees"));
  EXPECT_EQ(
      BuildFilterFromBasis(degrees, basis, PublishedConfig("turbo-cf").value()).status().message(),
      "turbo-cf: Turbo-CF's entrywise power needs P~'s entries, not a rank-k basis");
}

// The dense path of a filter (Apply on a block) agrees with the sparse one (ApplyToUsers).
TEST_F(GraphFilterModelsTest, DenseAndSparseInputsAgree) {
  for (const std::string& name : ModelNames()) {
    SCOPED_TRACE(name);
    GraphFilterConfig c = PublishedConfig(name).value();
    c.rank = 4;
    std::shared_ptr<const ItemFilter> filter = BuildCentralFilter(data_, c).value();
    std::vector<data::RatingRow> users;
    for (int32_t u = 0; u < 9; ++u) users.push_back(data_.user(u));
    const Eigen::MatrixXd sparse = filter->ApplyToUsers(users);
    const Eigen::MatrixXd dense = filter->Apply(Indicators(users, m_));
    EXPECT_LT(MaxDifference(sparse, dense), 1e-12);
  }
}

TEST_F(GraphFilterModelsTest, ScorerScoresOneUserAsTheBlockAndChecksItsInput) {
  GraphFilterConfig c = PublishedConfig("gf-cf").value();
  c.rank = 4;
  const GraphFilterScorer scorer(BuildCentralFilter(data_, c).value());
  EXPECT_EQ(scorer.num_items(), m_);
  EXPECT_FALSE(scorer.predicts_ratings());
  EXPECT_EQ(scorer.PredictRatings(data_.user(0), 3).status().code(),
            absl::StatusCode::kFailedPrecondition);
  const std::vector<data::RatingRow> users = {data_.user(2), data_.user(5)};
  const Eigen::MatrixXd block = scorer.ScoresBatch(users).value();
  EXPECT_LT(MaxDifference(scorer.Scores(data_.user(5)).value(), block.col(1)), 1e-13);

  const int32_t outside[] = {m_};
  const float one[] = {1};
  const data::RatingRow bad{outside, one, {}};
  EXPECT_EQ(scorer.Scores(bad).status().message(),
            absl::StrCat("item ", m_, " outside the model's ", m_, " items"));
  const int32_t item[] = {0};
  const float nan[] = {std::nanf("")};
  EXPECT_EQ(scorer.Scores(data::RatingRow{item, nan, {}}).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Ratings only say which items were rated: a 5 counts as a 1.
  const float five[] = {5};
  EXPECT_EQ(MaxDifference(scorer.Scores(data::RatingRow{item, five, {}}).value(),
                          scorer.Scores(data::RatingRow{item, one, {}}).value()),
            0.0);
}

TEST(GraphFilterOdeTest, RungeKuttaIsTheFourthOrderTaylorStep) {
  // dy/dt = -2 y on one scalar "item": a filter F = [[2]] with a = -1.
  class Scale final : public ItemFilter {
   public:
    int32_t num_items() const override { return 1; }
    Block Apply(const Block& x) const override { return 2 * x; }
  } scale;
  const Block y0 = Block::Constant(1, 2, 1.5);
  const double h = 0.3;
  const double z = -2 * h;
  const double taylor = 1 + z + z * z / 2 + z * z * z / 6 + z * z * z * z / 24;
  Block points;
  const Block one_step =
      SolveLinearOde(scale, -1, 0, y0, {OdeSolver::kRk4, h, 1}, nullptr, &points);
  EXPECT_NEAR(one_step(0, 0), 1.5 * taylor, 1e-15);
  EXPECT_NEAR(points(0, 1), 1.5 * taylor, 1e-15);
  const Block euler =
      SolveLinearOde(scale, -1, 0, y0, {OdeSolver::kEuler, 3 * h, 3}, nullptr, &points);
  EXPECT_NEAR(euler(0, 0), 1.5 * std::pow(1 + z, 3), 1e-15);
  // Converges to the exact solution.
  const Block fine = SolveLinearOde(scale, -1, 0, y0, {OdeSolver::kRk4, 1, 100}, nullptr, nullptr);
  EXPECT_NEAR(fine(0, 0), 1.5 * std::exp(-2.0), 1e-9);
}

TEST(GraphFilterConfigTest, PublishedSettingsAndParsing) {
  const GraphFilterConfig gfcf = PublishedConfig("gf-cf").value();
  EXPECT_EQ(DescribeConfig(gfcf), "gf-cf alpha=0.5 k=256 gamma=0.3");
  EXPECT_EQ(DescribeConfig(PublishedConfig("turbo-cf").value()),
            "turbo-cf alpha=0.6 s=0.7 polynomial=1");
  EXPECT_EQ(DescribeConfig(PublishedConfig("bspm-em").value()),
            "bspm-em alpha=0.5 k=448 beta=0.2 ideal=euler,1,1 blur=euler,1,1 sharpen=rk4,2.5,1 "
            "merge=early sharpening=1 point_combination=0");
  EXPECT_FALSE(PublishedConfig("bspm-lm").value().bspm.early_merge);
  EXPECT_EQ(PublishedConfig("lightgcn").status().message(),
            "unknown graph filter 'lightgcn' (expected gf-cf, turbo-cf, bspm-lm, bspm-em)");

  const OdeSpec spec = ParseOdeSpec("rk4,2.5,3").value();
  EXPECT_EQ(spec.solver, OdeSolver::kRk4);
  EXPECT_EQ(spec.time, 2.5);
  EXPECT_EQ(spec.steps, 3);
  EXPECT_EQ(ParseOdeSpec("rk5,1,1").status().message(),
            "unknown ODE solver 'rk5' (expected euler or rk4)");
  EXPECT_EQ(ParseOdeSpec("euler,1").status().message(),
            "ODE 'euler,1': expected SOLVER,T,K (e.g. rk4,2.5,1)");
  EXPECT_FALSE(ParseOdeSpec("euler,0,1").ok());
  EXPECT_FALSE(ParseOdeSpec("euler,1,0").ok());

  GraphFilterConfig bad = gfcf;
  bad.alpha = 2;
  EXPECT_EQ(ValidateConfig(bad).message(), "gf-cf: alpha = 2 not in [0, 1]");
  bad = gfcf;
  bad.rank = 0;
  EXPECT_FALSE(ValidateConfig(bad).ok());
  bad.gamma = 0;  // no low-pass: the rank does not matter
  EXPECT_TRUE(ValidateConfig(bad).ok());
  bad = PublishedConfig("turbo-cf").value();
  bad.polynomial = 4;
  EXPECT_EQ(ValidateConfig(bad).message(), "turbo-cf: polynomial filter 4: expected 1, 2 or 3");
  bad = PublishedConfig("bspm-em").value();
  bad.bspm.sharpen.steps = 0;
  EXPECT_EQ(ValidateConfig(bad).message(),
            "bspm-em: sharpening ODE: needs a time T > 0 and K >= 1 steps (T = 2.5, K = 0)");
}

}  // namespace
}  // namespace fedmf::algorithms::graph_filter
