// PriviRec (common/algorithms/privirec/): its two sums run in-process over every user, decoded
// against the centralized graph_filter code (the independent reference) within the fixed-point
// bound; the scores of every filter equal the centralized ones; the fixed population; and the
// leak of docs/privacy-accounting.md ("PriviRec"): an item with a single rater gives that user's
// items away, from the aggregate alone.
#include "common/algorithms/privirec/privirec.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/graph_filter/build.h"
#include "common/algorithms/lib/graph_filter/normalized_interactions.h"
#include "common/algorithms/lib/graph_filter/scorer.h"
#include "common/algorithms/privirec/updater.h"
#include "common/algorithms/registry.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/lib/graph_filter/test_util.h"

namespace fedmf::algorithms::privirec {
namespace {

using graph_filter::SparseRows;

// One phase: every user's contribution from the plan's contributor, added mod 2^bits as the
// runtime does (SecAgg gives the same sum), applied.
absl::Status RunPhase(PriviRecUpdater& updater, const data::RatingsDataset& d) {
  const v1::RoundPlan plan = updater.Plan().value();
  std::unique_ptr<Contributor> contributor = MakeContributor(plan).value();
  std::vector<uint64_t> sum(plan.length(), 0);
  dp::Rng rng(1);
  for (int32_t u = 0; u < d.num_users(); ++u) {
    const Contribution c = contributor->Contribute(LocalData::User(d.user(u)), "", rng).value();
    EXPECT_TRUE(c.vector.is_sparse());
    if (absl::Status s = AddModPow2(c.vector, plan.bits(), absl::MakeSpan(sum)); !s.ok()) return s;
  }
  return updater.ApplySum(sum, test_util::ParticipantIds(d.num_users()));
}

std::unique_ptr<PriviRecUpdater> Summed(const data::RatingsDataset& d, const std::string& filter,
                                        int frac_bits = 0) {
  v1::PriviRecConfig c;
  c.set_num_items(d.num_items());
  c.set_num_users(d.num_users());
  c.set_filter(filter);
  c.set_frac_bits(frac_bits > 0 ? frac_bits : DefaultFracBits(d.num_users()));
  std::unique_ptr<PriviRecUpdater> updater = PriviRecUpdater::Create(c).value();
  EXPECT_TRUE(updater->fixed_population());
  EXPECT_TRUE(RunPhase(*updater, d).ok());
  EXPECT_TRUE(RunPhase(*updater, d).ok());
  EXPECT_EQ(updater->round(), 1);
  return updater;
}

TEST(PriviRecTest, UpperTriangleIndexing) {
  for (int32_t m : {1, 2, 7, 40981}) {
    uint64_t expected = 0;
    for (int32_t i = 0; i < std::min(m, 50); ++i) {
      for (int32_t j = i; j < m; ++j, ++expected) {
        ASSERT_EQ(UpperIndex(m, i, j), expected);
        ASSERT_EQ(UpperPair(m, expected), std::make_pair(i, j));
      }
    }
    EXPECT_EQ(UpperPair(m, UpperLength(m) - 1), std::make_pair(m - 1, m - 1));
  }
}

TEST(PriviRecTest, BitsLeaveNoWrap) {
  EXPECT_EQ(CountBits(1), 1);
  EXPECT_EQ(CountBits(943), 10);
  EXPECT_EQ(CountBits(29858), 15);
  EXPECT_EQ(DefaultFracBits(943), 51);
  EXPECT_EQ(DefaultFracBits(29858), 46);
  // n users each adding 2^f (weight 1) is the largest Gram sum: below 2^bits.
  v1::PriviRecConfig c;
  c.set_num_users(29858);
  c.set_frac_bits(46);
  EXPECT_LT(static_cast<double>(c.num_users()) * std::ldexp(1.0, c.frac_bits()),
            std::ldexp(1.0, GramBits(c)));
  EXPECT_LE(GramBits(c), kMaxSumBits);
}

// The decoded degrees are exact, the decoded P~ within n 2^-(f+1) of the centralized P~, at both
// normalizations (GF-CF's alpha 1/2, Turbo-CF's 0.6) and a coarse fixed point that makes the
// rounding visible.
TEST(PriviRecTest, DecodedSumsEqualTheCentralizedOnesWithinTheBound) {
  const data::RatingsDataset d = test_util::RandomImplicit(60, 40, 0.2, 5);
  for (const std::string filter : {"gf-cf", "turbo-cf"}) {
    for (int frac_bits : {0, 12}) {
      SCOPED_TRACE(absl::StrCat(filter, " f=", frac_bits));
      std::unique_ptr<PriviRecUpdater> updater = Summed(d, filter, frac_bits);
      const double alpha = FilterConfig(updater->model().config()).value().alpha;
      const graph_filter::NormalizedInteractions central =
          graph_filter::NormalizedInteractions::Create(d, alpha).value();
      EXPECT_EQ(Degrees(updater->model()), central.item_degrees());
      const Eigen::MatrixXd federated =
          Eigen::MatrixXd(DecodeGram(updater->model(), alpha).value());
      const Eigen::MatrixXd reference = Eigen::MatrixXd(central.Gram());
      const double bound = GramErrorBound(updater->model().config());
      const double error = (federated - reference).cwiseAbs().maxCoeff();
      EXPECT_LE(error, bound);
      if (frac_bits == 12) {
        EXPECT_GT(error, 0);  // the rounding is there, and bounded
      }
      EXPECT_TRUE(federated.isApprox(federated.transpose()));
    }
  }
}

// Every filter scores every user as the centralized build of graph_filter does.
TEST(PriviRecTest, ScoresEqualTheCentralizedFilters) {
  const data::RatingsDataset d = test_util::RandomImplicit(80, 50, 0.15, 9);
  std::vector<data::RatingRow> users;
  for (int32_t u = 0; u < d.num_users(); ++u) users.push_back(d.user(u));
  for (const std::string filter : {"gf-cf", "turbo-cf", "bspm-em", "bspm-lm"}) {
    SCOPED_TRACE(filter);
    graph_filter::GraphFilterConfig config = graph_filter::PublishedConfig(filter).value();
    config.rank = std::min<int64_t>(config.rank, 8);  // 51 items
    std::unique_ptr<PriviRecUpdater> updater = Summed(d, filter);
    const Eigen::MatrixXd central =
        graph_filter::GraphFilterScorer(graph_filter::BuildCentralFilter(d, config).value())
            .ScoresBatch(users)
            .value();
    const Eigen::MatrixXd federated =
        graph_filter::GraphFilterScorer(
            graph_filter::BuildFilterFromGram(Degrees(updater->model()),
                                              DecodeGram(updater->model(), config.alpha).value(),
                                              config)
                .value())
            .ScoresBatch(users)
            .value();
    EXPECT_LT((federated - central).cwiseAbs().maxCoeff(), 1e-8);
  }
}

// The contributor's own scorer (what a client recommends with) builds the published filter:
// GF-CF's k = 256 needs at least 257 items.
TEST(PriviRecTest, ContributorScoresWithThePublishedFilter) {
  const data::RatingsDataset d = test_util::RandomImplicit(300, 300, 0.03, 3);
  std::unique_ptr<PriviRecUpdater> updater = Summed(d, "gf-cf");
  std::unique_ptr<Contributor> contributor = MakeContributor(updater->Plan().value()).value();
  const Eigen::VectorXd scores = contributor->scorer().Scores(d.user(0)).value();
  const Eigen::VectorXd central =
      graph_filter::GraphFilterScorer(
          graph_filter::BuildCentralFilter(d, graph_filter::PublishedConfig("gf-cf").value())
              .value())
          .Scores(d.user(0))
          .value();
  EXPECT_LT((scores - central).cwiseAbs().maxCoeff(), 1e-8);
  dp::Rng rng(1);
  EXPECT_FALSE(contributor->Contribute(LocalData::User(d.user(0)), "", rng).ok());
}

// Every sum is of the whole population: a sum missing one user is refused, the state unchanged.
TEST(PriviRecTest, ASumWithoutTheWholePopulationIsRefused) {
  const data::RatingsDataset d = test_util::RandomImplicit(10, 8, 0.3, 2);
  v1::PriviRecConfig c;
  c.set_num_items(d.num_items());
  c.set_num_users(d.num_users());
  c.set_filter("gf-cf");
  c.set_frac_bits(DefaultFracBits(d.num_users()));
  std::unique_ptr<PriviRecUpdater> updater = PriviRecUpdater::Create(c).value();
  const v1::RoundPlan plan = updater->Plan().value();
  EXPECT_EQ(static_cast<int64_t>(plan.min_contributors()), d.num_users());
  EXPECT_EQ(static_cast<int64_t>(plan.max_contributors()), d.num_users());
  std::vector<uint32_t> fewer = test_util::ParticipantIds(d.num_users());
  fewer.pop_back();
  std::vector<uint64_t> sum(plan.length(), 0);
  EXPECT_EQ(updater->ApplySum(sum, fewer).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(updater->model().phase(), kDegreePhase);
}

// The leak (docs/privacy-accounting.md, "PriviRec: what the sums reveal"): item t has a single
// rater u. Its degree is 1 in the public degree sum, and row t of the public Gram sum P' is
// w_u R_u: its support is exactly u's items and its value w_u = d_u^-1 gives d_u. Anyone who
// receives the aggregate (the coordinator, every client) reconstructs u's whole row.
TEST(PriviRecTest, ASingleRaterItemRevealsItsRatersRow) {
  data::RatingsBuilder builder;
  const std::vector<std::vector<int>> rows = {{0, 1, 2, 3}, {1, 2, 4},       {0, 2, 5, 6},
                                              {1, 3, 5},    {0, 4, 6, 7, 8}, {2, 3, 4}};
  for (size_t u = 0; u < rows.size(); ++u) {
    for (int i : rows[u]) builder.Add(absl::StrCat("u", u), absl::StrCat("i", i), 1, std::nullopt);
  }
  const data::RatingsDataset d = std::move(builder).Build().value();
  std::unique_ptr<PriviRecUpdater> updater = Summed(d, "gf-cf");
  const v1::PriviRecModel& aggregate = updater->model();
  const int32_t m = aggregate.config().num_items();
  // The attacker sees only `aggregate`. Items of degree 1:
  int found = 0;
  for (int32_t t = 0; t < m; ++t) {
    if (aggregate.degrees(t) != 1) continue;
    ++found;
    // Row t of P' (upper triangle: (min, max) pairs), in fixed point.
    std::vector<int32_t> items;
    uint64_t code = 0;
    for (int k = 0; k < aggregate.gram_index_size(); ++k) {
      const auto [i, j] = UpperPair(m, aggregate.gram_index(k));
      if (i != t && j != t) continue;
      items.push_back(i == t ? j : i);
      code = aggregate.gram_sum(k);
    }
    std::sort(items.begin(), items.end());
    const double degree =
        1 / (static_cast<double>(code) * std::ldexp(1.0, -aggregate.config().frac_bits()));
    // The truth: the one user who rated t.
    int rater = -1;
    for (int32_t u = 0; u < d.num_users(); ++u) {
      const auto& idx = d.user(u).indices;
      if (std::find(idx.begin(), idx.end(), t) != idx.end()) rater = u;
    }
    ASSERT_GE(rater, 0);
    std::vector<int32_t> truth(d.user(rater).indices.begin(), d.user(rater).indices.end());
    std::sort(truth.begin(), truth.end());
    EXPECT_EQ(items, truth) << "item " << t;
    EXPECT_NEAR(degree, static_cast<double>(truth.size()), 1e-9);
  }
  EXPECT_EQ(found, 2);  // i7 and i8, both rated by user 4 only
}

}  // namespace
}  // namespace fedmf::algorithms::privirec
