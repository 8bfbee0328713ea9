// VFL-SGDMF's party stage, run over s parties in process as the paper's Fig. 3(b): with one party
// and one local step per sync it is exactly central DP-SGD, and with three parties it learns.
#include "common/algorithms/vfl_sgdmf/local_stage.h"

#include <cmath>
#include <vector>

#include "Eigen/Core"
#include "common/algorithms/lib/fmf_sgd/central_dp_sgd.h"
#include "common/algorithms/lib/fmf_sgd/dp_sgd_step.h"
#include "common/algorithms/party_split.h"
#include "common/data/ratings_dataset.h"
#include "common/data/splits.h"
#include "common/dp/rng.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/lib/fmf_sgd/test_data.h"

namespace fedmf::algorithms::vfl_sgdmf {
namespace {

// 300 users rating 30 random items of 100 each.
data::RatingsDataset LowRank() { return testing::LowRankDataset(300, 100, 30, 11); }

fmf_sgd::DpSgdMfConfig Config() {
  fmf_sgd::DpSgdMfConfig c;
  c.rank = 5;
  c.sampling_rate = 0.2;
  c.steps = 200;
  c.learning_rate = 0.05;
  return c;
}

// One party holding every item, T = 200 syncs of T' = 1 step, the same generators: U and V are
// bit-identical to fmf_sgd's central run (the paper's s = 1 case), with and without noise.
TEST(VflSgdmfTest, OnePartyIsCentralDpSgd) {
  const data::TrainTest split = *data::SplitHoldoutPerUser(LowRank(), 0.1, 1);
  for (double z : {0.0, 0.8}) {
    fmf_sgd::DpSgdMfConfig c = Config();
    c.noise_multiplier = z;
    dp::Rng central_rng(5, 2);
    const fmf_sgd::CentralRun central =
        *fmf_sgd::TrainCentralDpSgdMf(split.train, c, 3, central_rng);

    const PartyShard shard = *VerticalParty(split.train, &split.test, 0, 1);
    dp::Rng init(3, 1);  // the central run's public initialization
    Eigen::MatrixXd users = *fmf_sgd::InitialEmbeddings(shard.train->num_users(), c, init);
    Eigen::MatrixXd items = *fmf_sgd::InitialEmbeddings(shard.train->num_items(), c, init);
    dp::Rng party_rng(5, 2);
    for (int64_t t = 0; t < c.steps; ++t) {
      users = PartySync(*shard.train, users, items, c, t, 1, 1.0, party_rng)->weighted_users;
    }
    EXPECT_EQ(users, central.model.users) << "z=" << z;
    EXPECT_EQ(items, central.model.items) << "z=" << z;
  }
}

// Three parties with disjoint item blocks, T = 20 syncs of T' = 10 steps, no noise: the weighted
// average of the parties' U, with each party's own V, predicts held-out ratings at under half the
// squared error of the training mean.
TEST(VflSgdmfTest, ThreePartiesLearnTogether) {
  const data::TrainTest split = *data::SplitHoldoutPerUser(LowRank(), 0.1, 2);
  const fmf_sgd::DpSgdMfConfig c = Config();
  std::vector<PartyShard> shards;
  std::vector<Eigen::MatrixXd> items;
  dp::Rng init(4, 1);
  Eigen::MatrixXd users = *fmf_sgd::InitialEmbeddings(split.train.num_users(), c, init);
  for (int k = 0; k < 3; ++k) {
    shards.push_back(*VerticalParty(split.train, &split.test, k, 3));
    items.push_back(*fmf_sgd::InitialEmbeddings(shards[k].train->num_items(), c, init));
  }
  std::vector<dp::Rng> rngs;
  for (int k = 0; k < 3; ++k) rngs.emplace_back(4, 10 + k);
  for (int64_t t = 0; t < 20; ++t) {
    Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(users.rows(), users.cols());
    for (int k = 0; k < 3; ++k) {
      const double weight = static_cast<double>(shards[k].global_items.size()) / 100;
      const PartyUpload up =
          *PartySync(*shards[k].train, users, items[k], c, t * 10, 10, weight, rngs[k]);
      EXPECT_EQ(up.sampled.size(), 10u);
      sum += up.weighted_users;
    }
    users = sum;
  }
  double error = 0, baseline = 0;
  int64_t count = 0;
  const double mean = split.train.MeanRating();
  for (int k = 0; k < 3; ++k) {
    const fmf_sgd::Embeddings model{users, items[k]};
    error += fmf_sgd::MeanSquaredError(*shards[k].test, model) * shards[k].test->num_ratings();
    for (int64_t r = 0; r < shards[k].test->num_ratings(); ++r) {
      baseline += std::pow(shards[k].test->rating(r).rating - mean, 2);
    }
    count += shards[k].test->num_ratings();
  }
  EXPECT_EQ(count, split.test.num_ratings());
  EXPECT_LT(error / count, 0.5 * baseline / count);
}

TEST(VflSgdmfTest, RefusesNegativeStepCounts) {
  const data::TrainTest split = *data::SplitHoldoutPerUser(LowRank(), 0.1, 1);
  Eigen::MatrixXd items = Eigen::MatrixXd::Ones(100, 5);
  dp::Rng rng(1);
  EXPECT_EQ(PartySync(split.train, Eigen::MatrixXd::Ones(300, 5), items, Config(), 0, -1, 1, rng)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::algorithms::vfl_sgdmf
