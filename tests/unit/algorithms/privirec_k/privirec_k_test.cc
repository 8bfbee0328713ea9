// PriviRec-k (common/algorithms/privirec_k/): its sums run in-process over every user, checked
// against brute-force dense references (lib/graph_filter/test_util.h): the decoded power iterates
// equal P~ X within the fixed-point bound; with k = m the rank-k P~_k is P~; the client's GF-CF
// scores equal the dense formula; a sum without the whole population is refused with a reason.
#include "common/algorithms/privirec_k/privirec_k.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "Eigen/Eigenvalues"
#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/graph_filter/build.h"
#include "common/algorithms/lib/graph_filter/config.h"
#include "common/algorithms/lib/graph_filter/scorer.h"
#include "common/algorithms/privirec/privirec.h"
#include "common/algorithms/privirec_k/updater.h"
#include "common/algorithms/registry.h"
#include "common/data/ratings_dataset.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/lib/graph_filter/test_util.h"

namespace fedmf::algorithms::privirec_k {
namespace {

// Every user's contribution to the planned phase from the plan's contributor, added mod 2^bits
// as the runtime does (SecAgg gives the same sum).
std::vector<uint64_t> PhaseSum(const PriviRecKUpdater& updater, const data::RatingsDataset& d) {
  const v1::RoundPlan plan = updater.Plan().value();
  std::unique_ptr<Contributor> contributor = MakeContributor(plan).value();
  std::vector<uint64_t> sum(plan.length(), 0);
  dp::Rng rng(1);
  for (int32_t u = 0; u < d.num_users(); ++u) {
    const Contribution c = contributor->Contribute(LocalData::User(d.user(u)), "", rng).value();
    EXPECT_TRUE(c.vector.is_sparse());
    EXPECT_TRUE(AddModPow2(c.vector, plan.bits(), absl::MakeSpan(sum)).ok());
  }
  return sum;
}

v1::PriviRecKConfig Config(const data::RatingsDataset& d, int rank, int sums, bool ritz,
                           int frac_bits = 0) {
  v1::PriviRecKConfig c;
  c.set_num_items(d.num_items());
  c.set_num_users(d.num_users());
  c.set_rank(rank);
  c.set_power_sums(sums);
  c.set_frac_bits(frac_bits > 0 ? frac_bits : DefaultFracBits(d.num_users()));
  c.set_seed(7);
  c.set_rayleigh_ritz(ritz);
  c.set_gamma(0.3);
  return c;
}

std::unique_ptr<PriviRecKUpdater> Summed(const data::RatingsDataset& d,
                                         const v1::PriviRecKConfig& config) {
  std::unique_ptr<PriviRecKUpdater> updater = PriviRecKUpdater::Create(config).value();
  EXPECT_TRUE(updater->fixed_population());
  while (updater->round() == 0) {
    const absl::Status s =
        updater->ApplySum(PhaseSum(*updater, d), test_util::ParticipantIds(d.num_users()));
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) break;
  }
  return updater;
}

TEST(PriviRecKTest, BitsLeaveNoWrap) {
  EXPECT_EQ(DefaultFracBits(29858), 45);  // 45 + 15 + 1 = 61
  EXPECT_EQ(DefaultFracBits(943), 50);
  v1::PriviRecKConfig c;
  c.set_num_users(29858);
  c.set_frac_bits(45);
  // n users each adding +-2^f: the sum stays in the centered range [-2^(b-1), 2^(b-1)).
  EXPECT_LT(static_cast<double>(c.num_users()) * std::ldexp(1.0, c.frac_bits()),
            std::ldexp(1.0, PowerBits(c) - 1));
  EXPECT_LE(PowerBits(c), privirec::kMaxSumBits);
}

// Each decoded Y_l is within n 2^-(f+1) of the dense P~ X_(l-1) (the brute-force P~ of the
// issue's formula), at the default and at a coarse fixed point that makes the rounding visible;
// the next iterate is orthonormal and spans Y_l.
TEST(PriviRecKTest, DecodedPowerIteratesEqualTheCentralizedOnesWithinTheBound) {
  const data::RatingsDataset d = test_util::RandomImplicit(60, 40, 0.2, 5);
  const Eigen::MatrixXd gram = test_util::DenseGramHalf(test_util::DenseR(d));
  for (int frac_bits : {0, 12}) {
    SCOPED_TRACE(absl::StrCat("f=", frac_bits));
    const v1::PriviRecKConfig config = Config(d, 6, 3, true, frac_bits);
    std::unique_ptr<PriviRecKUpdater> updater = PriviRecKUpdater::Create(config).value();
    ASSERT_TRUE(
        updater->ApplySum(PhaseSum(*updater, d), test_util::ParticipantIds(d.num_users())).ok());
    const Eigen::VectorXd degrees = test_util::ItemDegrees(test_util::DenseR(d));
    for (int j = 0; j < d.num_items(); ++j) EXPECT_EQ(updater->model().degrees(j), degrees[j]);
    double largest = 0;
    for (int l = 1; l <= config.power_sums(); ++l) {
      const Eigen::MatrixXd x = PowerIterate(updater->model());
      EXPECT_LT((x.transpose() * x - Eigen::MatrixXd::Identity(6, 6)).norm(), 1e-12);
      const std::vector<uint64_t> sum = PhaseSum(*updater, d);
      const Eigen::MatrixXd y = DecodePowerSum(config, sum).value();
      const double error = (y - gram * x).cwiseAbs().maxCoeff();
      EXPECT_LE(error, PowerErrorBound(config));
      largest = std::max(largest, error);
      ASSERT_TRUE(updater->ApplySum(sum, test_util::ParticipantIds(d.num_users())).ok());
      if (l < config.power_sums()) {
        const Eigen::MatrixXd next = PowerIterate(updater->model());
        // span(X_l) = span(Y_l): projecting Y_l on X_l leaves it unchanged.
        EXPECT_LT((next * (next.transpose() * y) - y).norm(), 1e-9 * y.norm());
      }
    }
    if (frac_bits == 12) {
      EXPECT_GT(largest, 0);  // the rounding is there, and bounded
    }
  }
}

// With k = m the power basis spans everything, and Rayleigh-Ritz recovers P~ exactly (up to the
// fixed point): S Lambda S^T = P~ to 1e-6 relative, eigenvalues descending and equal to the dense
// eigensolver's.
TEST(PriviRecKTest, FullRankReconstructsTheGramMatrix) {
  const data::RatingsDataset d = test_util::RandomImplicit(50, 14, 0.3, 11);
  const Eigen::MatrixXd gram = test_util::DenseGramHalf(test_util::DenseR(d));
  for (int sums : {1, 3}) {
    SCOPED_TRACE(absl::StrCat("L=", sums));
    std::unique_ptr<PriviRecKUpdater> updater = Summed(d, Config(d, d.num_items(), sums, true));
    const SingularBasis basis = ModelBasis(updater->model()).value();
    const Eigen::MatrixXd reconstructed =
        basis.vectors * basis.values.asDiagonal() * basis.vectors.transpose();
    EXPECT_LT((reconstructed - gram).norm(), 1e-6 * gram.norm());
    const Eigen::VectorXd exact =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(gram).eigenvalues().reverse();
    EXPECT_LT((basis.values - exact).cwiseAbs().maxCoeff(), 1e-9);
  }
}

// Without Rayleigh-Ritz the eigenvalues are the last QR's diag(T), made non-negative (Householder
// gives either sign); with it they are descending.
TEST(PriviRecKTest, EigenvalueEstimatesAreNonNegativeAndRitzSorted) {
  const data::RatingsDataset d = test_util::RandomImplicit(80, 30, 0.15, 3);
  for (bool ritz : {false, true}) {
    std::unique_ptr<PriviRecKUpdater> updater = Summed(d, Config(d, 8, 2, ritz));
    const SingularBasis basis = ModelBasis(updater->model()).value();
    EXPECT_GE(basis.values.minCoeff(), 0);
    if (ritz) {
      for (int c = 1; c < 8; ++c) EXPECT_GE(basis.values[c - 1], basis.values[c]);
    }
    EXPECT_LT((basis.vectors.transpose() * basis.vectors - Eigen::MatrixXd::Identity(8, 8)).norm(),
              1e-12);
  }
}

// The client's scorer is GF-CF on the basis: with k = m, S S^T = I, so r (P~ + gamma V^-1/2 S S^T
// V^1/2) = r P~ + gamma r on items of positive degree: the dense formula.
TEST(PriviRecKTest, ContributorScoresWithGfCfFromTheBasis) {
  const data::RatingsDataset d = test_util::RandomImplicit(40, 12, 0.3, 8);
  const Eigen::MatrixXd r = test_util::DenseR(d);
  const Eigen::MatrixXd gram = test_util::DenseGramHalf(r);
  const Eigen::VectorXd degrees = test_util::ItemDegrees(r);
  std::unique_ptr<PriviRecKUpdater> updater = Summed(d, Config(d, d.num_items(), 2, true));
  std::unique_ptr<Contributor> contributor = MakeContributor(updater->Plan().value()).value();
  for (int32_t u : {0, 5, 17}) {
    const Eigen::VectorXd scores = contributor->scorer().Scores(d.user(u)).value();
    Eigen::VectorXd expected = gram.transpose() * r.row(u).transpose();
    for (int j = 0; j < d.num_items(); ++j) {
      if (degrees[j] > 0) expected[j] += 0.3 * r(u, j);
    }
    EXPECT_LT((scores - expected).cwiseAbs().maxCoeff(), 1e-8);
  }
  dp::Rng rng(1);
  EXPECT_EQ(contributor->Contribute(LocalData::User(d.user(0)), "", rng).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// An oversampled iterate of k + p columns keeps k: every power sum carries m (k + p) values and
// the final basis is m x k. With k + p = m the iterate spans everything, so Rayleigh-Ritz's top k
// are P~'s exact top-k eigenpairs; the paper's diag(T_L) keeps the last QR's first k columns.
TEST(PriviRecKTest, AnOversampledIterateKeepsTheTopKColumns) {
  const data::RatingsDataset d = test_util::RandomImplicit(50, 14, 0.3, 11);
  const int m = d.num_items();
  const Eigen::MatrixXd gram = test_util::DenseGramHalf(test_util::DenseR(d));
  const Eigen::VectorXd exact =
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(gram).eigenvalues().reverse();
  for (bool ritz : {true, false}) {
    SCOPED_TRACE(ritz ? "rayleigh-ritz" : "diag(T_L)");
    v1::PriviRecKConfig config = Config(d, 5, 2, ritz);
    config.set_oversample(m - 5);
    std::unique_ptr<PriviRecKUpdater> updater = PriviRecKUpdater::Create(config).value();
    ASSERT_TRUE(
        updater->ApplySum(PhaseSum(*updater, d), test_util::ParticipantIds(d.num_users())).ok());
    EXPECT_EQ(updater->Plan()->length(), static_cast<uint64_t>(m) * static_cast<uint64_t>(m));
    EXPECT_EQ(PowerIterate(updater->model()).cols(), m);
    while (updater->round() == 0) {
      ASSERT_TRUE(
          updater->ApplySum(PhaseSum(*updater, d), test_util::ParticipantIds(d.num_users())).ok());
    }
    const SingularBasis basis = ModelBasis(updater->model()).value();
    ASSERT_EQ(basis.vectors.cols(), 5);
    ASSERT_EQ(basis.values.size(), 5);
    EXPECT_LT((basis.vectors.transpose() * basis.vectors - Eigen::MatrixXd::Identity(5, 5)).norm(),
              1e-12);
    if (ritz) {
      EXPECT_LT((basis.values - exact.head(5)).cwiseAbs().maxCoeff(), 1e-9);
      EXPECT_LT((gram * basis.vectors - basis.vectors * basis.values.asDiagonal()).norm(), 1e-6);
    } else {
      EXPECT_GE(basis.values.minCoeff(), 0);
    }
  }
  v1::PriviRecKConfig config = Config(d, 5, 2, true);
  config.set_oversample(m - 4);
  EXPECT_EQ(ValidateConfig(config).message(),
            absl::StrCat("privirec-k config: oversample=", m - 4,
                         " outside [0, num_items - rank = ", m - 5, "]"));
}

// A client builds BSPM from the basis, not from P~: with k = m, S_k Lambda S_k^T is P~ and the
// low-pass of the 4 largest estimates is BSPM's own, so the scores are the central BSPM-EM's
// (factored P~, Lanczos). Turbo-CF, an unknown filter and a low-pass wider than k are refused.
TEST(PriviRecKTest, ContributorBuildsBspmFromTheBasisWithoutTheGram) {
  const data::RatingsDataset d = test_util::RandomImplicit(40, 12, 0.3, 8);
  v1::PriviRecKConfig config = Config(d, d.num_items(), 2, true);
  config.set_filter("bspm-em");
  config.set_low_pass_rank(4);
  config.set_gamma(0.2);
  std::unique_ptr<PriviRecKUpdater> updater = Summed(d, config);
  std::unique_ptr<Contributor> contributor = MakeContributor(updater->Plan().value()).value();
  graph_filter::GraphFilterConfig bspm = graph_filter::PublishedConfig("bspm-em").value();
  bspm.rank = 4;
  const graph_filter::GraphFilterScorer central(graph_filter::BuildCentralFilter(d, bspm).value());
  for (int32_t u : {0, 5, 17}) {
    const Eigen::VectorXd scores = contributor->scorer().Scores(d.user(u)).value();
    EXPECT_LT((scores - central.Scores(d.user(u)).value()).cwiseAbs().maxCoeff(), 1e-8);
  }
  config.set_filter("turbo-cf");
  EXPECT_EQ(ValidateConfig(config).message(),
            "privirec-k config: filter=turbo-cf: Turbo-CF's entrywise power needs P~'s entries, "
            "which no client of privirec-k has (privirec sums them)");
  config.set_filter("nope");
  EXPECT_EQ(ValidateConfig(config).code(), absl::StatusCode::kInvalidArgument);
  config.set_filter("gf-cf");
  config.set_low_pass_rank(d.num_items() + 1);
  EXPECT_EQ(ValidateConfig(config).message(),
            absl::StrCat("privirec-k config: low_pass_rank=", d.num_items() + 1,
                         " outside [0, rank=", d.num_items(), "]"));
}

// The leak of PriviRec's sums survives the low rank (docs/privacy-accounting.md 4.9): item t has
// a single rater u, so row t of the first power sum Y_1 = P~ X_0 is d_u^-1 V_t^-1/2 sum_{i in u}
// V_i^-1/2 x_i, a combination of the d_u rows x_i of the public X_0 with positive weights. The
// coordinator knows X_0 and the degrees, and d_u << k, so sparse recovery (orthogonal matching
// pursuit over the m rows of X_0) finds exactly u's items, and the weight of t gives d_u.
struct SparseSolution {
  std::vector<int32_t> support;  // ascending
  std::vector<double> weights;   // paired with support
};
SparseSolution OrthogonalMatchingPursuit(const RowMatrix& atoms, const Eigen::VectorXd& y) {
  std::vector<int32_t> support;
  Eigen::VectorXd weights;
  auto fit = [&] {
    Eigen::MatrixXd chosen(atoms.cols(), static_cast<Eigen::Index>(support.size()));
    for (size_t s = 0; s < support.size(); ++s) chosen.col(s) = atoms.row(support[s]).transpose();
    weights = chosen.colPivHouseholderQr().solve(y);
    return Eigen::VectorXd(y - chosen * weights);
  };
  Eigen::VectorXd residual = y;
  while (residual.norm() > 1e-9 * y.norm() && support.size() < static_cast<size_t>(atoms.cols())) {
    Eigen::Index best = 0;
    (atoms * residual).cwiseAbs().cwiseQuotient(atoms.rowwise().norm()).maxCoeff(&best);
    support.push_back(static_cast<int32_t>(best));
    residual = fit();
  }
  // A wrong early pick ends with a zero weight once the true atoms are in: drop it and refit.
  std::vector<int32_t> kept;
  for (size_t s = 0; s < support.size(); ++s) {
    if (std::abs(weights[s]) > 1e-6 * weights.cwiseAbs().maxCoeff()) kept.push_back(support[s]);
  }
  std::sort(kept.begin(), kept.end());
  support = kept;
  fit();
  return {support, std::vector<double>(weights.data(), weights.data() + weights.size())};
}

TEST(PriviRecKTest, ASingleRaterItemRevealsItsRatersRowThroughTheFirstPowerSum) {
  constexpr int kUsers = 40;
  constexpr int kItems = 150;
  data::RatingsBuilder builder;
  const std::vector<int> victim = {0, 17, 42, 77, 108, 149};  // item 0: only the victim's
  for (int i : victim) builder.Add("victim", absl::StrCat("i", i), 1, std::nullopt);
  std::mt19937 gen(5);
  std::uniform_int_distribution<int> item(1, kItems - 1);
  for (int u = 1; u < kUsers; ++u) {
    for (int j = 0; j < 8; ++j)
      builder.Add(absl::StrCat("u", u), absl::StrCat("i", item(gen)), 1, std::nullopt);
  }
  const data::RatingsDataset d =
      std::move(builder).Build(data::DuplicatePolicy::kKeepFirst).value();
  const v1::PriviRecKConfig config = Config(d, 48, 1, true);
  std::unique_ptr<PriviRecKUpdater> updater = PriviRecKUpdater::Create(config).value();
  ASSERT_TRUE(
      updater->ApplySum(PhaseSum(*updater, d), test_util::ParticipantIds(d.num_users())).ok());
  // What the coordinator sees: the degrees and X_0 (both in the plan), and the sum Y_1.
  const v1::PriviRecKModel seen = updater->model();
  const RowMatrix x0 = Eigen::Map<const RowMatrix>(seen.basis().data(), d.num_items(), 48);
  const RowMatrix y1 = DecodePowerSum(config, PhaseSum(*updater, d)).value();
  int single_raters = 0;
  for (int32_t t = 0; t < d.num_items(); ++t) {
    if (seen.degrees(t) != 1) continue;
    ++single_raters;
    const SparseSolution found = OrthogonalMatchingPursuit(x0, y1.row(t).transpose());
    const std::vector<int32_t>& items = found.support;
    const auto at_t = std::find(items.begin(), items.end(), t) - items.begin();
    ASSERT_LT(at_t, static_cast<Eigen::Index>(items.size())) << "item " << t;
    const double rater_degree = 1 / found.weights[at_t];  // t's weight: d_u^-1 V_t^-1 = d_u^-1
    // The truth: the one user who rated t.
    for (int32_t u = 0; u < d.num_users(); ++u) {
      std::vector<int32_t> truth(d.user(u).indices.begin(), d.user(u).indices.end());
      if (std::find(truth.begin(), truth.end(), t) == truth.end()) continue;
      std::sort(truth.begin(), truth.end());
      EXPECT_EQ(items, truth) << "item " << t;
      EXPECT_NEAR(rater_degree, static_cast<double>(truth.size()), 1e-6) << "item " << t;
    }
  }
  EXPECT_GE(single_raters, 1);  // at least the victim's item 0
}

// A participant lost from any phase: the sum of the others is refused with the reason, the state
// unchanged (the runtime then ends the fixed-population run).
TEST(PriviRecKTest, ASumWithoutTheWholePopulationIsRefused) {
  const data::RatingsDataset d = test_util::RandomImplicit(10, 8, 0.3, 2);
  std::unique_ptr<PriviRecKUpdater> updater =
      PriviRecKUpdater::Create(Config(d, 3, 2, true)).value();
  std::vector<uint32_t> fewer = test_util::ParticipantIds(d.num_users());
  fewer.pop_back();
  for (int phase : {0, 1}) {
    SCOPED_TRACE(absl::StrCat("phase ", phase));
    const v1::RoundPlan plan = updater->Plan().value();
    EXPECT_EQ(static_cast<int64_t>(plan.min_contributors()), d.num_users());
    EXPECT_EQ(static_cast<int64_t>(plan.max_contributors()), d.num_users());
    const std::string before = updater->SerializeState().value();
    const absl::Status refused = updater->ApplySum(PhaseSum(*updater, d), fewer);
    EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(refused.message().find("must all be in it"), absl::string_view::npos) << refused;
    EXPECT_EQ(updater->SerializeState().value(), before);
    EXPECT_EQ(updater->model().phase(), phase);
    ASSERT_TRUE(
        updater->ApplySum(PhaseSum(*updater, d), test_util::ParticipantIds(d.num_users())).ok());
  }
}

// A corrupted sum (a coordinate no n users can reach) is refused, not decoded.
TEST(PriviRecKTest, AnOutOfRangePowerSumIsRefused) {
  const data::RatingsDataset d = test_util::RandomImplicit(10, 8, 0.3, 4);
  const v1::PriviRecKConfig config = Config(d, 3, 1, true);
  std::unique_ptr<PriviRecKUpdater> updater = PriviRecKUpdater::Create(config).value();
  ASSERT_TRUE(
      updater->ApplySum(PhaseSum(*updater, d), test_util::ParticipantIds(d.num_users())).ok());
  std::vector<uint64_t> sum = PhaseSum(*updater, d);
  sum[0] = (uint64_t{1} << (PowerBits(config) - 1)) - 1;  // 2^(b-1) - 1 > n 2^f
  EXPECT_EQ(updater->ApplySum(sum, test_util::ParticipantIds(d.num_users())).code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_EQ(updater->round(), 0);
}

}  // namespace
}  // namespace fedmf::algorithms::privirec_k
