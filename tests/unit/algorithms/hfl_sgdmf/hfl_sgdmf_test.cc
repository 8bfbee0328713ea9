// HFL-SGDMF in process (common/algorithms/hfl_sgdmf) against independent references: stage 1 is
// brute-force full-batch gradient descent on U; the coordinator's V is the n_k / n weighted mean
// of party models recomputed by brute force; one party equals fmf_sgd's noisy V steps run
// directly; the accounting composes every sync while the paper's Proposition 3 counts T' steps.
#include <algorithm>
#include <cmath>
#include <vector>

#include "Eigen/Core"
#include "common/algorithms/hfl_sgdmf/config.h"
#include "common/algorithms/hfl_sgdmf/in_process_run.h"
#include "common/algorithms/hfl_sgdmf/local_stage.h"
#include "common/algorithms/hfl_sgdmf/privacy.h"
#include "common/algorithms/lib/fmf_party/party_round.h"
#include "common/algorithms/lib/fmf_sgd/config.h"
#include "common/algorithms/lib/fmf_sgd/dp_sgd_step.h"
#include "common/data/ratings_dataset.h"
#include "common/data/splits.h"
#include "common/dp/rng.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/lib/fmf_sgd/test_data.h"

namespace fedmf::algorithms::hfl_sgdmf {
namespace {

HflConfig Config() {
  HflConfig c;
  c.step.rank = 4;
  c.step.unit = dp::PrivacyUnit::kUser;
  c.step.max_ratings_per_user = 100;  // above every user's count: trimming keeps everything
  c.step.sampling_rate = 1;
  c.step.learning_rate = 0.05;
  c.parties = 1;
  c.syncs = 1;
  c.local_steps = 1;
  c.pretrain_steps = 0;
  c.finetune_steps = 0;
  return c;
}

// The paper's Pi by its definition: negative entries to 0, then scale down to norm sqrt(R).
Eigen::RowVectorXd Pi(Eigen::RowVectorXd x, double rating_max) {
  x = x.cwiseMax(0.0);
  const double norm = x.norm();
  if (norm > std::sqrt(rating_max)) x *= std::sqrt(rating_max) / norm;
  return x;
}

// One full-batch step of U (or of V) on `data` (users = rows of `users`), U and V in place.
void BruteForceStep(const data::RatingsDataset& data, double rate, bool step_users,
                    Eigen::MatrixXd& users, Eigen::MatrixXd& items, double rating_max) {
  Eigen::MatrixXd gu = Eigen::MatrixXd::Zero(users.rows(), users.cols());
  Eigen::MatrixXd gv = Eigen::MatrixXd::Zero(items.rows(), items.cols());
  for (int32_t u = 0; u < data.num_users(); ++u) {
    const data::RatingRow row = data.user(u);
    for (int64_t k = 0; k < row.size(); ++k) {
      const int32_t j = row.indices[k];
      const double e = row.ratings[k] - users.row(u).dot(items.row(j));
      gu.row(u) += -2 * e * items.row(j);
      gv.row(j) += -2 * e * users.row(u);
    }
  }
  const double batch = static_cast<double>(data.num_users());  // eta = 1
  if (step_users) {
    for (Eigen::Index u = 0; u < users.rows(); ++u) {
      users.row(u) = Pi(users.row(u) - rate / batch * gu.row(u), rating_max);
    }
  } else {
    for (Eigen::Index j = 0; j < items.rows(); ++j) {
      items.row(j) = Pi(items.row(j) - rate / batch * gv.row(j), rating_max);
    }
  }
}

fmf_sgd::Embeddings Initial(const data::RatingsDataset& data, const HflConfig& c, uint64_t seed) {
  dp::Rng init(seed, 1);
  fmf_sgd::Embeddings m;
  m.users = *fmf_sgd::InitialEmbeddings(data.num_users(), c.step, init);
  m.items = *fmf_sgd::InitialEmbeddings(data.num_items(), c.step, init);
  return m;
}

TEST(HflSgdmfTest, PretrainIsFullBatchGradientDescentOnU) {
  const data::RatingsDataset data = testing::LowRankDataset(30, 20, 8, 3);
  HflConfig c = Config();
  c.pretrain_steps = 6;
  fmf_sgd::Embeddings model = Initial(data, c, 7);
  Eigen::MatrixXd users = model.users, items = model.items;
  ASSERT_TRUE(PretrainUsers(data, c, model).ok());
  const fmf_sgd::DpSgdMfConfig schedule = LocalStageConfig(c, c.pretrain_steps);
  for (int64_t t = 0; t < c.pretrain_steps; ++t) {
    BruteForceStep(data, fmf_sgd::LearningRate(schedule, t), true, users, items, 5);
  }
  EXPECT_LT((model.users - users).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_EQ(model.items, items);  // V does not move in stage 1
  // It learns: the train error falls.
  EXPECT_LT(fmf_sgd::MeanSquaredError(data, model),
            fmf_sgd::MeanSquaredError(data, Initial(data, c, 7)));
}

// Three parties of 10, 10 and 11 users (HorizontalParty's blocks), no noise, full batch: after
// one sync of T' = 2 steps the coordinator's V is sum_k (n_k / n) V^(k), each V^(k) two
// brute-force V steps on party k's users from the initial V.
TEST(HflSgdmfTest, SyncAveragesPartyModelsWeightedByTheirUsers) {
  const data::RatingsDataset data = testing::LowRankDataset(31, 20, 8, 4);
  HflConfig c = Config();
  c.parties = 3;
  c.local_steps = 2;
  absl::StatusOr<HflRun> run = RunInProcess(data, c, 9, /*noise_seed=*/1);
  ASSERT_TRUE(run.ok()) << run.status();
  const fmf_sgd::Embeddings init = Initial(data, c, 9);
  const fmf_sgd::DpSgdMfConfig schedule = NoisyStageConfig(c);
  Eigen::MatrixXd average = Eigen::MatrixXd::Zero(init.items.rows(), init.items.cols());
  const int32_t first[] = {0, 10, 20, 31};
  for (int k = 0; k < 3; ++k) {
    std::vector<int32_t> users;
    for (int32_t u = first[k]; u < first[k + 1]; ++u) users.push_back(u);
    ASSERT_EQ(run->parties[k].users, users);
    data::RatingsBuilder b;
    for (int32_t u : users) b.AddUser(data.user_id(u));
    for (int32_t j = 0; j < data.num_items(); ++j) b.AddItem(data.item_id(j));
    for (int32_t u : users) {
      const data::RatingRow row = data.user(u);
      for (int64_t i = 0; i < row.size(); ++i) {
        b.Add(data.user_id(u), data.item_id(row.indices[i]), row.ratings[i], std::nullopt);
      }
    }
    const data::RatingsDataset party = *std::move(b).Build();
    Eigen::MatrixXd u = init.users.middleRows(first[k], first[k + 1] - first[k]);
    Eigen::MatrixXd v = init.items;
    for (int64_t t = 0; t < c.local_steps; ++t) {
      BruteForceStep(party, fmf_sgd::LearningRate(schedule, t), false, u, v, 5);
    }
    average += (static_cast<double>(users.size()) / 31) * v;
  }
  for (const PartyModel& p : run->parties) {
    EXPECT_LT((p.items_before - average).cwiseAbs().maxCoeff(), 1e-12);
  }
}

// HFL-synSGD without noise at full batch: summing the parties' V gradients at every step and
// dividing by eta n is brute-force gradient descent on V over all users, whatever the split.
TEST(HflSgdmfTest, SynSgdStepsOnTheSumOfThePartiesGradients) {
  const data::RatingsDataset data = testing::LowRankDataset(31, 20, 8, 8);
  HflConfig c = Config();
  c.mode = Mode::kSynSgd;
  c.parties = 3;
  c.syncs = 1;
  c.local_steps = 3;
  absl::StatusOr<HflRun> run = RunInProcess(data, c, 21, /*noise_seed=*/1);
  ASSERT_TRUE(run.ok()) << run.status();
  fmf_sgd::Embeddings want = Initial(data, c, 21);
  const fmf_sgd::DpSgdMfConfig schedule = NoisyStageConfig(c);
  for (int64_t t = 0; t < 3; ++t) {
    BruteForceStep(data, fmf_sgd::LearningRate(schedule, t), false, want.users, want.items, 5);
  }
  for (const PartyModel& p : run->parties) {
    EXPECT_LT((p.items_before - want.items).cwiseAbs().maxCoeff(), 1e-12);
  }
}

// Train-both at one party without noise: each of the T' steps is a U step then a V step.
TEST(HflSgdmfTest, TrainBothAlternatesUserAndItemSteps) {
  const data::RatingsDataset data = testing::LowRankDataset(20, 15, 6, 9);
  HflConfig c = Config();
  c.mode = Mode::kTrainBoth;
  c.pretrain_steps = 50;  // ignored: train-both has no stage 1
  c.local_steps = 3;
  absl::StatusOr<HflRun> run = RunInProcess(data, c, 4, /*noise_seed=*/1);
  ASSERT_TRUE(run.ok()) << run.status();
  fmf_sgd::Embeddings want = Initial(data, c, 4);
  const fmf_sgd::DpSgdMfConfig schedule = NoisyStageConfig(c);
  for (int64_t t = 0; t < 3; ++t) {
    const double rate = fmf_sgd::LearningRate(schedule, t);
    BruteForceStep(data, rate, true, want.users, want.items, 5);
    BruteForceStep(data, rate, false, want.users, want.items, 5);
  }
  EXPECT_LT((run->parties[0].users_before - want.users).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((run->parties[0].items_before - want.items).cwiseAbs().maxCoeff(), 1e-12);
}

// One party, pre-train-U: the published V is fmf_sgd's noisy V-only steps run directly on the
// trimmed data after stage 1, sync t's with the party's round-t generator (its key: the first two
// words of party 0's generator dp::Rng(noise_seed, 1)); the average of one upload is itself.
TEST(HflSgdmfTest, OnePartyIsNoisyVStepsAfterPretraining) {
  const data::RatingsDataset data = testing::LowRankDataset(40, 25, 12, 5);
  HflConfig c = Config();
  c.step.max_ratings_per_user = 6;
  c.step.sampling_rate = 0.3;
  c.step.noise_multiplier = 0.7;
  c.syncs = 4;
  c.local_steps = 3;
  c.pretrain_steps = 5;
  absl::StatusOr<HflRun> run = RunInProcess(data, c, 13, /*noise_seed=*/11);
  ASSERT_TRUE(run.ok()) << run.status();

  fmf_sgd::Embeddings direct = Initial(data, c, 13);
  ASSERT_TRUE(PretrainUsers(data, c, direct).ok());
  const data::RatingsDataset trimmed = *data::TrimPerUser(data, 6, 13);
  dp::Rng party_rng(11, 1);
  const uint64_t key[2] = {party_rng(), party_rng()};
  for (int64_t t = 0; t < 4; ++t) {
    dp::Rng sync_noise = fmf_party::RoundNoiseRng(key, t);
    ASSERT_TRUE(fmf_sgd::RunNoisySteps(trimmed, NoisyStageConfig(c), 3 * t, 3, false, 1, sync_noise,
                                       direct, {})
                    .ok());
  }
  EXPECT_EQ(run->parties[0].items_before, direct.items);
  EXPECT_EQ(run->parties[0].users_before, direct.users);
  ASSERT_EQ(run->ledgers.size(), 1u);
  EXPECT_EQ(run->ledgers[0].entries().size(), 12u);  // every noisy step, not only T'
}

TEST(HflSgdmfTest, LocalOnlyAddsNoNoiseAndRecordsNothing) {
  const data::RatingsDataset data = testing::LowRankDataset(30, 20, 8, 6);
  HflConfig c = Config();
  c.mode = Mode::kLocalOnly;
  c.parties = 2;
  c.step.noise_multiplier = 2;
  absl::StatusOr<HflRun> run = RunInProcess(data, c, 1, /*noise_seed=*/1);
  ASSERT_TRUE(run.ok()) << run.status();
  for (const dp::PrivacyLedger& l : run->ledgers) EXPECT_TRUE(l.entries().empty());
  EXPECT_EQ(NoisyStepsPerUser(c), 0);
}

TEST(HflSgdmfTest, PerRatingPrivacyIsRefused) {
  HflConfig c = Config();
  c.step.unit = dp::PrivacyUnit::kRating;
  const absl::Status s = ValidateConfig(c);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("unit must be user"), std::string::npos) << s;
}

// Ours composes all T T' steps; Proposition 3 counts T': equal with one sync, smaller with more.
TEST(HflSgdmfTest, AccountingComposesEverySync) {
  HflConfig c = Config();
  c.step.sampling_rate = 0.01;
  c.local_steps = 10;
  c.syncs = 1;
  c.step.noise_multiplier = *CalibrateNoiseMultiplier(c, 1, 1e-5);
  absl::StatusOr<RunEpsilon> one = RunEpsilonAt(c, 1e-5);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_DOUBLE_EQ(one->ours, one->paper);
  EXPECT_LE(one->ours, 1 + 1e-9);
  c.syncs = 100;
  c.step.noise_multiplier = *CalibrateNoiseMultiplier(c, 1, 1e-5);
  absl::StatusOr<RunEpsilon> many = RunEpsilonAt(c, 1e-5);
  ASSERT_TRUE(many.ok()) << many.status();
  EXPECT_LE(many->ours, 1 + 1e-9);
  EXPECT_GT(many->ours, 0.9);   // calibrated: the smallest z that fits
  EXPECT_LT(many->paper, 0.5);  // T' = 10 of the 1000 steps
}

}  // namespace
}  // namespace fedmf::algorithms::hfl_sgdmf
