// Tests of common/algorithms/fmf_sgd: config.h (sensitivities, schedule), dp_sgd_step.h and
// central_dp_sgd.h.
#include "common/algorithms/lib/fmf_sgd/dp_sgd_step.h"

#include <cmath>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/fmf_sgd/central_dp_sgd.h"
#include "common/algorithms/lib/fmf_sgd/config.h"
#include "common/algorithms/lib/fmf_sgd/embedding_clip.h"
#include "common/algorithms/lib/fmf_sgd/privacy.h"
#include "common/data/ratings_dataset.h"
#include "common/data/splits.h"
#include "common/dp/rng.h"
#include "common/dp/samplers.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/lib/fmf_sgd/test_data.h"
#include "tests/unit/common/dp_test_stats.h"

namespace fedmf::algorithms::fmf_sgd {
namespace {

struct Triple {
  int user;
  int item;
  double rating;
};

// A dataset with users 0..users-1 and items 0..items-1 (every id present) and `ratings`.
data::RatingsDataset Dataset(int users, int items, const std::vector<Triple>& ratings) {
  data::RatingsBuilder b;
  for (int u = 0; u < users; ++u) b.AddUser(absl::StrCat(u));
  for (int i = 0; i < items; ++i) b.AddItem(absl::StrCat(i));
  for (const Triple& t : ratings) {
    b.Add(absl::StrCat(t.user), absl::StrCat(t.item), static_cast<float>(t.rating), std::nullopt);
  }
  return *std::move(b).Build();
}

Eigen::MatrixXd RandomFeasibleRows(int rows, int p, double rating_max, dp::Rng& rng) {
  Eigen::MatrixXd m(rows, p);
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = 2 * dp::StandardNormal(rng);
  EXPECT_TRUE(ProjectRows(m, rating_max).ok());
  return m;
}

// The exact summed gradient of (r - <u, v>)^2 over every rating of `users`, unclipped.
Embeddings BruteForceGradient(const data::RatingsDataset& d, const Embeddings& model,
                              const std::vector<int32_t>& users) {
  Embeddings g{Eigen::MatrixXd::Zero(model.users.rows(), model.users.cols()),
               Eigen::MatrixXd::Zero(model.items.rows(), model.items.cols())};
  for (int32_t u : users) {
    for (int64_t k = 0; k < d.user(u).size(); ++k) {
      const int32_t j = d.user(u).indices[k];
      const double e = d.user(u).ratings[k] - model.users.row(u).dot(model.items.row(j));
      g.users.row(u) += -2 * e * model.items.row(j);
      g.items.row(j) += -2 * e * model.users.row(u);
    }
  }
  return g;
}

// The step's noiseless sum over every user (eta = 1, z = 0).
Embeddings ExactSum(const data::RatingsDataset& d, const Embeddings& model, DpSgdMfConfig c,
                    bool update_users) {
  c.sampling_rate = 1;
  c.noise_multiplier = 0;
  dp::Rng rng(1);
  NoisyGradient g = *NoisyGradientSum(d, model, c, update_users, rng);
  if (!update_users) g.users = Eigen::MatrixXd::Zero(model.users.rows(), model.users.cols());
  return {g.users, g.items};
}

double Distance(const Embeddings& a, const Embeddings& b) {
  return std::sqrt((a.users - b.users).squaredNorm() + (a.items - b.items).squaredNorm());
}

// Sensitivity by its definition: over random feasible embeddings and ratings in [0, R], the summed
// gradient with and without one rating (per rating) or one user's trimmed ratings (per user)
// differs by at most StepSensitivity, in both clipping modes and for U + V and V-only steps.
TEST(FmfDpSgdTest, NeighboursNeverDifferByMoreThanTheStatedSensitivity) {
  dp::Rng rng(3);
  constexpr double kR = 5;
  for (int trial = 0; trial < 300; ++trial) {
    DpSgdMfConfig c;
    c.rank = 1 + static_cast<int>(dp::UniformInt(rng, 6));
    c.rating_max = kR;
    c.unit = trial % 2 == 0 ? dp::PrivacyUnit::kRating : dp::PrivacyUnit::kUser;
    c.max_ratings_per_user = 1 + static_cast<int>(dp::UniformInt(rng, 4));
    c.clip = (trial / 2) % 2 == 0 ? ClipMode::kEmbedding : ClipMode::kGradient;
    c.gradient_clip = 0.5 + 10 * dp::UniformUnit(rng);
    const bool update_users = (trial / 4) % 2 == 0;
    // Every eighth pair of trials is the extreme case (EmbeddingSensitivityIsAttained).
    const bool extreme = (trial / 8) % 8 == 0;
    const int users = 3, items = 5;
    std::vector<Triple> with, without;
    for (int u = 0; u < users; ++u) {
      const int count = c.unit == dp::PrivacyUnit::kUser ? c.max_ratings_per_user : 3;
      for (int k = 0; k < count && k < items; ++k) {
        const double r = extreme ? 0 : kR * dp::UniformUnit(rng);
        with.push_back({u, k, r});
        // The neighbour lacks user 0's first rating, or all of user 0's ratings.
        if (u != 0 || (c.unit == dp::PrivacyUnit::kRating && k > 0)) without.push_back({u, k, r});
      }
    }
    Embeddings model{RandomFeasibleRows(users, c.rank, kR, rng),
                     RandomFeasibleRows(items, c.rank, kR, rng)};
    if (extreme) {
      model.users.setZero();
      model.items.setZero();
      model.users.col(0).setConstant(std::sqrt(kR));
      model.items.col(0).setConstant(std::sqrt(kR));
    }
    const double change =
        Distance(ExactSum(Dataset(users, items, with), model, c, update_users),
                 ExactSum(Dataset(users, items, without), model, c, update_users));
    ASSERT_LE(change, StepSensitivity(c, update_users) * (1 + 1e-12))
        << "trial " << trial << " clip " << ClipModeName(c.clip);
  }
}

// The worst case is attained: u = v = sqrt(R) e_1 and rating 0 give |r - <u, v>| = R, so one
// rating's gradient has norm 2 R^{3/2} in each block, and theta such ratings of one user reach
// 2 R^{3/2} sqrt(theta^2 + theta): the stated sensitivities are tight, not loose guesses.
TEST(FmfDpSgdTest, EmbeddingSensitivityIsAttained) {
  constexpr double kR = 5;
  DpSgdMfConfig c;
  c.rank = 2;
  c.rating_max = kR;
  c.max_ratings_per_user = 3;
  Eigen::MatrixXd corner = Eigen::MatrixXd::Zero(3, 2);
  corner.col(0).setConstant(std::sqrt(kR));
  const Embeddings model{corner.topRows(1), corner};
  const data::RatingsDataset one = Dataset(1, 3, {{0, 0, 0}});
  const data::RatingsDataset none = Dataset(1, 3, {});
  const data::RatingsDataset three = Dataset(1, 3, {{0, 0, 0}, {0, 1, 0}, {0, 2, 0}});
  const double g = 2 * std::pow(kR, 1.5);
  EXPECT_NEAR(Distance(ExactSum(one, model, c, true), ExactSum(none, model, c, true)),
              StepSensitivity(c, true), 1e-12 * g);
  EXPECT_NEAR(StepSensitivity(c, true), std::sqrt(2.0) * g, 1e-12 * g);
  EXPECT_NEAR(Distance(ExactSum(one, model, c, false), ExactSum(none, model, c, false)), g,
              1e-12 * g);
  c.unit = dp::PrivacyUnit::kUser;
  EXPECT_NEAR(Distance(ExactSum(three, model, c, true), ExactSum(none, model, c, true)),
              g * std::sqrt(12.0), 1e-12 * g);
  EXPECT_NEAR(StepSensitivity(c, true), g * std::sqrt(12.0), 1e-12 * g);
  EXPECT_NEAR(StepSensitivity(c, false), g * std::sqrt(3.0), 1e-12 * g);
  // The paper's per-user value is theta times the per-rating one.
  EXPECT_NEAR(PaperStepSensitivity(c, true), 3 * std::sqrt(2.0) * g, 1e-12 * g);
}

TEST(FmfDpSgdTest, NoiselessSumIsTheGradientOfTheSquaredError) {
  dp::Rng rng(4);
  const data::RatingsDataset d = testing::LowRankDataset(20, 15, 6, 5);
  DpSgdMfConfig c;
  c.rank = 4;
  const Embeddings model{RandomFeasibleRows(20, 4, 5, rng), RandomFeasibleRows(15, 4, 5, rng)};
  std::vector<int32_t> all(20);
  for (int u = 0; u < 20; ++u) all[u] = u;
  EXPECT_LE(Distance(ExactSum(d, model, c, true), BruteForceGradient(d, model, all)), 1e-12);
}

// The noise the step adds: residual = noisy sum - exact sum of the users it sampled, over every
// coordinate of U and V and 20 steps ((150 + 120) x 8 x 20 = 43200 values): mean 0 and variance
// (z * 2 sqrt(2) R^{3/2})^2 within 5 CLT standard errors, the value the trainer's ledger entry
// records as noise_stddev; the sampled fraction is eta within 5 standard errors.
TEST(FmfDpSgdTest, NoiseMatchesTheLedgerEntry) {
  dp::Rng model_rng(5);
  const int users = 150, items = 120;
  const data::RatingsDataset d = testing::LowRankDataset(users, items, 10, 6);
  DpSgdMfConfig c;
  c.rank = 8;
  c.sampling_rate = 0.3;
  c.noise_multiplier = 0.07;
  c.steps = 20;
  const Embeddings model{RandomFeasibleRows(users, 8, 5, model_rng),
                         RandomFeasibleRows(items, 8, 5, model_rng)};
  const double expected_stddev = 0.07 * 2 * std::sqrt(2.0) * std::pow(5.0, 1.5);
  dp::Rng rng(6);
  std::vector<double> residuals;
  int64_t sampled = 0;
  for (int step = 0; step < 20; ++step) {
    const NoisyGradient g = *NoisyGradientSum(d, model, c, true, rng);
    sampled += static_cast<int64_t>(g.sampled.size());
    const Embeddings exact = BruteForceGradient(d, model, g.sampled);
    for (Eigen::Index k = 0; k < g.users.size(); ++k) {
      residuals.push_back(g.users.data()[k] - exact.users.data()[k]);
    }
    for (Eigen::Index k = 0; k < g.items.size(); ++k) {
      residuals.push_back(g.items.data()[k] - exact.items.data()[k]);
    }
    const dp::LedgerEntry entry = *StepEntry(c, true, step, g.sampled.size(), *StepCurve(c));
    double ledger_stddev = -1;
    for (const auto& [name, value] : entry.params) {
      if (name == "noise_stddev") ledger_stddev = value;
    }
    ASSERT_DOUBLE_EQ(ledger_stddev, g.noise_stddev);
    ASSERT_NEAR(g.noise_stddev, expected_stddev, 1e-12);
  }
  const dp::testing::Moments m = dp::testing::ComputeMoments(residuals);
  EXPECT_NEAR(m.mean, 0, dp::testing::kSigmas * m.mean_se);
  EXPECT_NEAR(m.variance, expected_stddev * expected_stddev, dp::testing::kSigmas * m.variance_se);
  const double draws = 20.0 * users;
  EXPECT_NEAR(sampled / draws, 0.3, dp::testing::kSigmas * dp::testing::FrequencySe(0.3, draws));
}

TEST(FmfDpSgdTest, LearningRateDecaysLinearlyThenStays) {
  DpSgdMfConfig c;
  c.learning_rate = 2;
  c.final_learning_rate_fraction = 0.25;
  c.steps = 90;
  c.item_only_steps = 10;  // 100 steps: decay over the first 80
  EXPECT_DOUBLE_EQ(LearningRate(c, 0), 2);
  EXPECT_DOUBLE_EQ(LearningRate(c, 40), 2 * (1 - 0.75 * 0.5));
  EXPECT_DOUBLE_EQ(LearningRate(c, 80), 0.5);
  EXPECT_DOUBLE_EQ(LearningRate(c, 99), 0.5);
}

// Without noise, central training fits low-rank data better than predicting the training mean
// (an independent yardstick) on held-out ratings; with noise, the ledger has one entry per noisy
// step and the composed (epsilon, delta) is the budget the noise was calibrated for.
TEST(FmfDpSgdTest, CentralRunLearnsAndRecordsEveryNoisyStep) {
  const int users = 300, items = 100;
  const data::RatingsDataset all = testing::LowRankDataset(users, items, 30, 7);
  const data::TrainTest split = *data::SplitHoldoutPerUser(all, 0.1, 1);
  DpSgdMfConfig c;
  c.rank = 5;
  c.sampling_rate = 0.2;
  c.steps = 400;
  c.learning_rate = 0.05;
  dp::Rng rng(8);
  const CentralRun plain = *TrainCentralDpSgdMf(split.train, c, 1, rng);
  EXPECT_TRUE(plain.ledger.entries().empty());
  const double mean = split.train.MeanRating();
  double baseline = 0;
  for (int64_t k = 0; k < split.test.num_ratings(); ++k) {
    baseline += std::pow(split.test.rating(k).rating - mean, 2);
  }
  baseline /= static_cast<double>(split.test.num_ratings());
  EXPECT_LT(MeanSquaredError(split.test, plain.model), 0.5 * baseline);

  c.unit = dp::PrivacyUnit::kUser;
  c.max_ratings_per_user = 5;
  c.steps = 50;
  c.item_only_steps = 10;
  c.noise_multiplier =
      *CalibrateNoiseMultiplier(c, dp::PrivacyBudget::ApproxDp(2, 1e-5, dp::PrivacyUnit::kUser));
  const CentralRun noisy = *TrainCentralDpSgdMf(split.train, c, 1, rng);
  EXPECT_EQ(noisy.trained_ratings, users * 5);
  ASSERT_EQ(noisy.ledger.entries().size(), 60u);
  EXPECT_EQ(noisy.ledger.entries().back().unit, dp::PrivacyUnit::kUser);
  const dp::PrivacyReport report = *noisy.ledger.Report(1e-5);
  EXPECT_LE(report.improved.epsilon, 2);
  EXPECT_GE(report.improved.epsilon, 2 * (1 - 1e-6));
}

TEST(FmfDpSgdTest, RefusesBadConfigsAndData) {
  DpSgdMfConfig c;
  c.sampling_rate = 0;
  EXPECT_EQ(ValidateConfig(c).code(), absl::StatusCode::kInvalidArgument);
  c = {};
  c.init_prediction = 6;  // above R = 5
  EXPECT_EQ(ValidateConfig(c).code(), absl::StatusCode::kInvalidArgument);
  c = {};
  c.rank = 2;
  const Embeddings model{Eigen::MatrixXd::Ones(1, 2), Eigen::MatrixXd::Ones(2, 2)};
  EXPECT_EQ(CheckTrainingData(Dataset(1, 2, {{0, 0, 6}}), model, c).code(),
            absl::StatusCode::kInvalidArgument);  // rating above R
  c.unit = dp::PrivacyUnit::kUser;
  c.max_ratings_per_user = 1;
  EXPECT_EQ(CheckTrainingData(Dataset(1, 2, {{0, 0, 1}, {0, 1, 1}}), model, c).code(),
            absl::StatusCode::kFailedPrecondition);  // untrimmed
  EXPECT_FALSE(ParseClipMode("norm").ok());
}

}  // namespace
}  // namespace fedmf::algorithms::fmf_sgd
