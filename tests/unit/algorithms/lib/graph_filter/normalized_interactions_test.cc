// R~ and P~ of common/algorithms/graph_filter against their dense definitions.
#include "common/algorithms/lib/graph_filter/normalized_interactions.h"

#include <vector>

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/lib/graph_filter/test_util.h"

namespace fedmf::algorithms::graph_filter {
namespace {

using test_util::DenseGramHalf;
using test_util::DenseNormalized;
using test_util::DenseR;
using test_util::RandomImplicit;

std::vector<data::RatingRow> AllUsers(const data::RatingsDataset& d) {
  std::vector<data::RatingRow> rows;
  for (int32_t u = 0; u < d.num_users(); ++u) rows.push_back(d.user(u));
  return rows;
}

TEST(NormalizedInteractionsTest, GramIsTheDenseFormulaInEveryForm) {
  const data::RatingsDataset d = RandomImplicit(40, 25, 0.15, 7);
  const Eigen::MatrixXd r = DenseR(d);
  const Eigen::MatrixXd gram = DenseGramHalf(r);
  const NormalizedInteractions n = NormalizedInteractions::Create(d, 0.5).value();
  EXPECT_EQ(n.num_users(), 41);
  EXPECT_EQ(n.num_items(), 26);
  EXPECT_TRUE(n.user_degrees().isApprox(test_util::UserDegrees(r)));
  EXPECT_TRUE(n.item_degrees().isApprox(test_util::ItemDegrees(r)));
  EXPECT_LT((Eigen::MatrixXd(n.by_user()) - DenseNormalized(r, 0.5)).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LT(
      (Eigen::MatrixXd(n.by_item()) - DenseNormalized(r, 0.5).transpose()).cwiseAbs().maxCoeff(),
      1e-15);

  // Explicit, sparse: only the item pairs with a common user, columns ascending.
  const SparseRows explicit_gram = n.Gram();
  EXPECT_LT((Eigen::MatrixXd(explicit_gram) - gram).cwiseAbs().maxCoeff(), 1e-14);
  const Eigen::MatrixXd co = r.transpose() * r;
  EXPECT_EQ(explicit_gram.nonZeros(), (co.array() > 0).count());

  // Factored, on a dense block and on users' rows.
  const Block x = Block::Random(26, 5);
  EXPECT_LT((Eigen::MatrixXd(n.GramTimes(x)) - gram * Eigen::MatrixXd(x)).cwiseAbs().maxCoeff(),
            1e-14);
  const std::vector<data::RatingRow> users = AllUsers(d);
  const Eigen::MatrixXd expected = gram * r.transpose();  // column u: P~ r_u^T
  EXPECT_LT((Eigen::MatrixXd(n.GramTimesUsers(users)) - expected).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(NormalizedInteractionsTest, OtherAlphas) {
  const data::RatingsDataset d = RandomImplicit(30, 20, 0.2, 11);
  const Eigen::MatrixXd r = DenseR(d);
  for (double alpha : {0.0, 0.6, 1.0}) {
    SCOPED_TRACE(alpha);
    const NormalizedInteractions n = NormalizedInteractions::Create(d, alpha).value();
    const Eigen::MatrixXd normalized = DenseNormalized(r, alpha);
    EXPECT_LT((Eigen::MatrixXd(n.by_user()) - normalized).cwiseAbs().maxCoeff(), 1e-15);
    const Eigen::MatrixXd gram = normalized.transpose() * normalized;
    EXPECT_LT((Eigen::MatrixXd(n.Gram()) - gram).cwiseAbs().maxCoeff(), 1e-14);
    const Block x = Block::Random(21, 3);
    EXPECT_LT((Eigen::MatrixXd(n.GramTimes(x)) - gram * Eigen::MatrixXd(x)).cwiseAbs().maxCoeff(),
              1e-14);
  }
}

TEST(NormalizedInteractionsTest, RejectsBadAlphaAndEmptyData) {
  const data::RatingsDataset d = RandomImplicit(5, 5, 0.5, 1);
  EXPECT_EQ(NormalizedInteractions::Create(d, 1.5).status().message(),
            "normalization alpha = 1.5: needs 0 <= alpha <= 1");
  EXPECT_FALSE(NormalizedInteractions::Create(d, -0.1).ok());
  data::RatingsBuilder builder;
  builder.AddUser("u");
  builder.AddItem("i");
  const data::RatingsDataset empty = std::move(builder).Build().value();
  EXPECT_EQ(NormalizedInteractions::Create(empty, 0.5).status().message(),
            "the training data has no interactions");
}

}  // namespace
}  // namespace fedmf::algorithms::graph_filter
