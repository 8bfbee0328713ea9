// lfl-sgdmf (common/algorithms/lfl_sgdmf/): the two-phase noise left in the gradient estimate for
// every dropout pattern (statistical, against the closed form), who phase 1 is for, the ledger's
// charge of the server's view, the user's gradient upload and pre-training, and the updater's
// state. The networked runs are in tests/integration.
#include "common/algorithms/lfl_sgdmf/lfl_sgdmf.h"

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lfl_sgdmf/contributor.h"
#include "common/algorithms/lfl_sgdmf/updater.h"
#include "common/algorithms/lib/fmf_sgd/embedding_clip.h"
#include "common/algorithms/matrix_proto.h"
#include "common/dp/rng.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/lfl_sgdmf/test_config.h"
#include "tests/unit/algorithms/three_users_test_util.h"
#include "tests/unit/common/dp_test_stats.h"

namespace fedmf::algorithms::lfl_sgdmf {
namespace {

using dp::testing::ModularSum;
using ::testing::HasSubstr;

constexpr int64_t kCohort = 10;
constexpr double kOmega = 0.3;  // n_min = 7
constexpr double kSigma = 1.5;

v1::LflSgdmfConfig Config(v1::LflNoiseMode noise, int32_t num_items = 3) {
  return testing::SmallConfig(noise, kCohort, num_items, kCohort, kOmega, kSigma);
}

LocalData NoRatings(uint32_t id) {
  LocalData d = LocalData::User({});
  d.participant_id = id;
  return d;
}

std::vector<uint32_t> Ids(int64_t n) {
  std::vector<uint32_t> ids;
  for (int64_t i = 1; i <= n; ++i) ids.push_back(static_cast<uint32_t>(i));
  return ids;
}

// Variance per coordinate of the noise in the server's gradient estimate, derived here from
// the protocol, not from the code under test: phase 1 leaves (n1 - n2) xi's and, for the n2
// who answered, the estimate S1 + lambda S2 of their -xi + xi'.
double ExpectedNoiseVariance(v1::LflNoiseMode mode, int64_t n1, int64_t n2) {
  const double n_min = 7;
  const double k = mode == v1::LFL_NOISE_TWO_PHASE ? 2 : 1;
  const double v1 = k * kSigma * kSigma / n_min;
  const double v2 = k * kSigma * kSigma / static_cast<double>(n1);
  const double lost = static_cast<double>(n1 - n2) * v1;
  if (mode == v1::LFL_NOISE_TWO_PHASE_PAPER) return lost + static_cast<double>(n2) * v2;
  // Best linear estimate: Var(a) Var(c) / (Var(a) + Var(c)) for a = sum of the answered xi,
  // c = sum of their xi'.
  const double va = static_cast<double>(n2) * v1;
  const double vc = static_cast<double>(n2) * v2;
  return lost + (va + vc > 0 ? va * vc / (va + vc) : 0);
}

// Runs phase 0 with users 1..n1 and phase 1 with users 1..n2 of them `reps` times (users
// without ratings: the uploads are pure noise) and returns the sample variance of the estimate's
// coordinates.
double MeasuredNoiseVariance(v1::LflNoiseMode mode, int64_t n1, int64_t n2, int reps) {
  const v1::LflSgdmfConfig c = Config(mode);
  absl::StatusOr<std::unique_ptr<LflSgdmfUpdater>> updater = LflSgdmfUpdater::Create(c);
  EXPECT_TRUE(updater.ok()) << updater.status();
  const int bits = *SumBits(c);
  absl::StatusOr<v1::RoundPlan> plan0 = (*updater)->Plan();
  absl::StatusOr<std::unique_ptr<LflSgdmfContributor>> phase0 = LflSgdmfContributor::Create(*plan0);
  EXPECT_TRUE(phase0.ok()) << phase0.status();
  // Any phase-0 sum of n1 users moves the updater to phase 1, whose plan says n1.
  std::vector<uint64_t> zero(static_cast<size_t>(UploadLength(c)), 0);
  EXPECT_TRUE((*updater)->ApplySum(zero, Ids(n1)).ok());
  absl::StatusOr<v1::RoundPlan> plan1 = (*updater)->Plan();
  EXPECT_EQ(plan1->phase(), 1);
  absl::StatusOr<std::unique_ptr<LflSgdmfContributor>> phase1 = LflSgdmfContributor::Create(*plan1);
  EXPECT_TRUE(phase1.ok()) << phase1.status();
  const double lambda = ReplacementWeight(c, n1, n2);

  dp::Rng rng(1000 * static_cast<uint64_t>(n1) + static_cast<uint64_t>(n2), mode);
  double sum_sq = 0;
  int64_t count = 0;
  for (int r = 0; r < reps; ++r) {
    std::vector<std::vector<uint64_t>> uploads0, uploads1;
    for (uint32_t id = 1; id <= n1; ++id) {
      absl::StatusOr<Contribution> c0 = (*phase0)->Contribute(NoRatings(id), "", rng);
      EXPECT_TRUE(c0.ok()) << c0.status();
      uploads0.push_back(c0->vector.values());
      if (id > n2) continue;  // lost between the phases
      absl::StatusOr<Contribution> c1 = (*phase1)->Contribute(NoRatings(id), c0->state, rng);
      EXPECT_TRUE(c1.ok()) << c1.status();
      uploads1.push_back(c1->vector.values());
    }
    Eigen::VectorXd estimate = *DecodeSum(c, ModularSum(uploads0, bits));
    if (n2 > 0) estimate += lambda * *DecodeSum(c, ModularSum(uploads1, bits));
    sum_sq += estimate.squaredNorm();
    count += estimate.size();
  }
  return sum_sq / static_cast<double>(count);
}

TEST(LflSgdmfTest, TwoPhaseNoiseLeavesTheIntendedVarianceForEveryDropoutPattern) {
  // 600 repetitions x 6 coordinates: the sample variance of a zero-mean Gaussian has relative
  // standard error sqrt(2 / 3600) = 2.4%; the bound is 5 of those.
  constexpr int kReps = 600;
  const std::pair<int64_t, int64_t> patterns[] = {{10, 10}, {10, 7}, {8, 8}, {8, 6}, {7, 5}};
  for (v1::LflNoiseMode mode : {v1::LFL_NOISE_TWO_PHASE, v1::LFL_NOISE_TWO_PHASE_PAPER}) {
    for (const auto& [n1, n2] : patterns) {
      const double expected = ExpectedNoiseVariance(mode, n1, n2);
      const double measured = MeasuredNoiseVariance(mode, n1, n2, kReps);
      EXPECT_NEAR(measured / expected, 1, 5 * std::sqrt(2.0 / (kReps * 6)))
          << NoiseModeName(mode) << " n1=" << n1 << " n2=" << n2 << " expected " << expected
          << " measured " << measured;
      // The updater's own account of the view agrees with the closed form (sound mode: the
      // estimate's noise is exactly what the view holds).
      if (mode == v1::LFL_NOISE_TWO_PHASE) {
        const double view = ViewNoiseStddev(Config(mode), n1, n2);
        EXPECT_NEAR(view * view, expected, 1e-12 * expected);
      }
    }
  }
}

// Summed noise (fedmf-sim --summed_noise): the coordinator's draws for S_1 and S_2 are jointly
// Gaussian with the moments of the users' shares, derived here from the protocol: Var(S_1) =
// n1 v1, Var(S_2) = n2 (v1 + v2), Cov(S_1, S_2) = -n2 v1 (the n2 phase-0 shares S_2 removes), so
// the estimate S_1 + lambda S_2 has the per-user path's noise for every dropout pattern.
TEST(LflSgdmfTest, SummedNoiseHasTheMomentsOfTheUsersShares) {
  constexpr int kDim = 20000;  // coordinates: relative standard error of a variance ~1%
  const std::pair<int64_t, int64_t> patterns[] = {{10, 10}, {10, 7}, {8, 6}, {7, 5}};
  for (v1::LflNoiseMode mode : {v1::LFL_NOISE_TWO_PHASE, v1::LFL_NOISE_TWO_PHASE_PAPER}) {
    v1::LflSgdmfConfig c = Config(mode);
    c.set_simulation_summed_noise(true);
    const double k = mode == v1::LFL_NOISE_TWO_PHASE ? 2 : 1;
    const double v1 = k * kSigma * kSigma / 7;
    for (const auto& [n1, n2] : patterns) {
      const double v2 = k * kSigma * kSigma / static_cast<double>(n1);
      dp::Rng rng(static_cast<uint64_t>(10 * n1 + n2), mode);
      const Eigen::VectorXd s1 = SummedPhase0Noise(c, n1, kDim, rng);
      const Eigen::VectorXd s2 = SummedPhase1Noise(c, s1, n1, n2, rng);
      const auto mean_of = [](const Eigen::VectorXd& x) { return x.sum() / kDim; };
      const double var1 = s1.squaredNorm() / kDim;
      const double var2 = s2.squaredNorm() / kDim;
      const double cov = s1.dot(s2) / kDim;
      const double tolerance = 5 * std::sqrt(2.0 / kDim);  // relative, for each second moment
      const std::string where = absl::StrCat(NoiseModeName(mode), " n1=", n1, " n2=", n2);
      EXPECT_NEAR(mean_of(s1), 0, 5 * std::sqrt(n1 * v1 / kDim)) << where;
      EXPECT_NEAR(var1 / (n1 * v1), 1, tolerance) << where;
      EXPECT_NEAR(var2 / (n2 * (v1 + v2)), 1, tolerance) << where;
      EXPECT_NEAR(cov / (-n2 * v1), 1, 3 * tolerance) << where;
      const double lambda = ReplacementWeight(c, n1, n2);
      const double estimate = (s1 + lambda * s2).squaredNorm() / kDim;
      EXPECT_NEAR(estimate / ExpectedNoiseVariance(mode, n1, n2), 1, 3 * tolerance) << where;
    }
  }
}

// With summed noise a user uploads only its rating's row (sparse) and nothing in phase 1, once;
// the updater keeps S_1's noise while phase 1 is pending (restorable), and applies the round.
TEST(LflSgdmfTest, SummedNoiseUploadsTheRowAndTheUpdaterDrawsTheNoise) {
  v1::LflSgdmfConfig c = Config(v1::LFL_NOISE_TWO_PHASE, /*num_items=*/6);
  c.set_simulation_summed_noise(true);
  std::unique_ptr<LflSgdmfUpdater> updater = *LflSgdmfUpdater::Create(c);
  std::unique_ptr<LflSgdmfContributor> phase0 = *LflSgdmfContributor::Create(*updater->Plan());
  dp::Rng rng(4);
  const LocalData user = test_util::User(0);
  const absl::StatusOr<Contribution> upload = phase0->Contribute(user, "", rng);
  ASSERT_TRUE(upload.ok()) << upload.status();
  ASSERT_TRUE(upload->vector.is_sparse());
  ASSERT_EQ(upload->vector.indices().size(), 2u);  // one item's p = 2 values
  EXPECT_EQ(upload->vector.indices()[0] % 2, 0u);
  EXPECT_EQ(upload->vector.indices()[1], upload->vector.indices()[0] + 1);

  std::vector<uint64_t> zero(static_cast<size_t>(UploadLength(c)), 0);
  ASSERT_TRUE(updater->ApplySum(zero, Ids(9)).ok());
  v1::LflSgdmfState pending;
  ASSERT_TRUE(pending.ParseFromString(*updater->SerializeState()));
  EXPECT_EQ(pending.phase1_noise_size(), UploadLength(c));
  // A zero sum plus its noise.
  EXPECT_EQ(std::vector<double>(pending.phase1_sum().begin(), pending.phase1_sum().end()),
            std::vector<double>(pending.phase1_noise().begin(), pending.phase1_noise().end()));
  std::unique_ptr<LflSgdmfUpdater> restored =
      *LflSgdmfUpdater::Restore(pending.SerializeAsString());
  pending.clear_phase1_noise();
  EXPECT_FALSE(LflSgdmfUpdater::Restore(pending.SerializeAsString()).ok());

  std::unique_ptr<LflSgdmfContributor> phase1 = *LflSgdmfContributor::Create(*updater->Plan());
  const absl::StatusOr<Contribution> replacement = phase1->Contribute(user, upload->state, rng);
  ASSERT_TRUE(replacement.ok()) << replacement.status();
  EXPECT_TRUE(replacement->vector.is_sparse());
  EXPECT_TRUE(replacement->vector.values().empty());
  EXPECT_EQ(phase1->Contribute(user, replacement->state, rng).status().code(),
            absl::StatusCode::kFailedPrecondition);  // once
  ASSERT_TRUE(restored->ApplySum(zero, Ids(8)).ok());
  EXPECT_EQ(restored->round(), 1);
  EXPECT_NE(restored->SerializeState().value(), updater->SerializeState().value());

  v1::LflSgdmfConfig noiseless = Config(v1::LFL_NOISE_NONE);
  noiseless.set_simulation_summed_noise(true);
  EXPECT_THAT(ValidateConfig(noiseless).message(), HasSubstr("simulation_summed_noise"));
}

TEST(LflSgdmfTest, SoundModeHoldsSigmaInTheViewPaperModeOnlyHalf) {
  for (int64_t n1 = 7; n1 <= kCohort; ++n1) {
    for (int64_t n2 = 0; n2 <= n1; ++n2) {
      const double sound = ViewNoiseStddev(Config(v1::LFL_NOISE_TWO_PHASE), n1, n2);
      EXPECT_GE(sound, kSigma * (1 - 1e-12)) << n1 << " " << n2;
    }
  }
  // Paper: nobody lost and n1 = n_min leaves the view sigma^2 / 2, not the claimed sigma^2.
  const double paper = ViewNoiseStddev(Config(v1::LFL_NOISE_TWO_PHASE_PAPER), 7, 7);
  EXPECT_NEAR(paper * paper, kSigma * kSigma / 2, 1e-12);
}

TEST(LflSgdmfTest, PhaseOneIsForPhaseZerosContributorsOnly) {
  const v1::LflSgdmfConfig c = Config(v1::LFL_NOISE_TWO_PHASE);
  std::unique_ptr<LflSgdmfUpdater> updater = *LflSgdmfUpdater::Create(c);
  EXPECT_TRUE(updater->PhaseParticipants().empty());  // phase 0: the runtime's cohort
  const std::vector<uint32_t> survivors = {1, 2, 4, 5, 7, 8, 9, 10};
  std::vector<uint64_t> zero(static_cast<size_t>(UploadLength(c)), 0);
  ASSERT_TRUE(updater->ApplySum(zero, survivors).ok());
  EXPECT_EQ(updater->PhaseParticipants(), survivors);
  const v1::RoundPlan plan = *updater->Plan();
  EXPECT_EQ(plan.phase(), 1);
  EXPECT_EQ(plan.max_contributors(), survivors.size());
  EXPECT_EQ(plan.min_contributors(), 6u);  // ceil(0.7 * 8)
  // User 3 sent nothing in phase 0: its phase-1 sum is refused, the state unchanged.
  const std::vector<uint32_t> with_stranger = {1, 2, 3, 4, 5, 7};
  EXPECT_THAT(updater->ApplySum(zero, with_stranger).message(), HasSubstr("contributor 3"));
  EXPECT_EQ(updater->PhaseParticipants(), survivors);
  // A device without this round's phase-0 noise cannot contribute to phase 1.
  std::unique_ptr<LflSgdmfContributor> phase1 = *LflSgdmfContributor::Create(plan);
  dp::Rng rng(3);
  EXPECT_EQ(phase1->Contribute(NoRatings(3), "", rng).status().code(),
            absl::StatusCode::kFailedPrecondition);
  // An abandoned phase 1 goes back to phase 0 of the same round.
  updater->AbandonRound();
  EXPECT_EQ(updater->Plan()->phase(), 0);
  EXPECT_EQ(updater->round(), 0);
  EXPECT_TRUE(updater->PhaseParticipants().empty());
}

// Phase 1's plan carries no V (the users hold it from phase 0 of the round); a phase-1 plan that
// carries one is refused, and so is phase 1 at a device whose phase-0 noise is of another round.
TEST(LflSgdmfTest, PhaseOnePlanCarriesNoItemFactors) {
  const v1::LflSgdmfConfig c = Config(v1::LFL_NOISE_TWO_PHASE, /*num_items=*/6);
  std::unique_ptr<LflSgdmfUpdater> updater = *LflSgdmfUpdater::Create(c);
  const v1::RoundPlan plan0 = *updater->Plan();
  std::unique_ptr<LflSgdmfContributor> phase0 = *LflSgdmfContributor::Create(plan0);
  EXPECT_TRUE(phase0->carries_model());
  EXPECT_EQ(phase0->scorer().num_items(), 6);
  dp::Rng rng(5);
  absl::StatusOr<Contribution> round0 = phase0->Contribute(test_util::User(0), "", rng);
  ASSERT_TRUE(round0.ok()) << round0.status();

  std::vector<uint64_t> zero(static_cast<size_t>(UploadLength(c)), 0);
  ASSERT_TRUE(updater->ApplySum(zero, Ids(8)).ok());
  const v1::RoundPlan plan1 = *updater->Plan();
  ASSERT_EQ(plan1.phase(), 1);
  v1::LflSgdmfBroadcast broadcast1;
  ASSERT_TRUE(broadcast1.ParseFromString(plan1.payload()));
  EXPECT_FALSE(broadcast1.has_item_factors());
  EXPECT_EQ(broadcast1.phase1_survivors(), 8);
  // m p = 12 doubles less than phase 0's plan, at least.
  EXPECT_LE(plan1.payload().size() + 12 * sizeof(double), plan0.payload().size());
  std::unique_ptr<LflSgdmfContributor> phase1 = *LflSgdmfContributor::Create(plan1);
  EXPECT_FALSE(phase1->carries_model());
  // Phase 1 needs only the user's phase-0 key: the upload is -xi + xi'.
  absl::StatusOr<Contribution> replacement =
      phase1->Contribute(test_util::User(0), round0->state, rng);
  ASSERT_TRUE(replacement.ok()) << replacement.status();
  EXPECT_EQ(replacement->user_factor, round0->user_factor);

  v1::LflSgdmfBroadcast with_v = broadcast1;
  *with_v.mutable_item_factors() = MatrixToProto(InitialItemFactors(c));
  v1::RoundPlan bad_plan = plan1;
  bad_plan.set_payload(with_v.SerializeAsString());
  EXPECT_THAT(LflSgdmfContributor::Create(bad_plan).status().message(),
              HasSubstr("phase 1 carries item factors"));

  // The next round's phase 1 at a device that took phase 0 of round 0 only.
  ASSERT_TRUE(updater->ApplySum(zero, Ids(8)).ok());  // round 0 applied
  ASSERT_TRUE(updater->ApplySum(zero, Ids(8)).ok());  // round 1's phase 0, by others
  const v1::RoundPlan next_plan1 = *updater->Plan();
  ASSERT_EQ(next_plan1.round(), 1);
  ASSERT_EQ(next_plan1.phase(), 1);
  absl::StatusOr<Contribution> stale = (*LflSgdmfContributor::Create(next_plan1))
                                           ->Contribute(test_util::User(0), round0->state, rng);
  EXPECT_EQ(stale.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(stale.status().message(), HasSubstr("phase 1 of round 1"));
}

TEST(LflSgdmfTest, LedgerChargesTheViewOfBothSums) {
  const std::vector<double> orders = {2, 4, 16, 64};
  for (v1::LflNoiseMode mode : {v1::LFL_NOISE_TWO_PHASE, v1::LFL_NOISE_TWO_PHASE_PAPER}) {
    const v1::LflSgdmfConfig c = Config(mode);
    const double k = mode == v1::LFL_NOISE_TWO_PHASE ? 2 : 1;
    for (int64_t n1 = 7; n1 <= kCohort; ++n1) {
      const dp::LedgerEntry first = **PhaseRelease(c, 3, 0, n1, orders);
      const dp::LedgerEntry second = **PhaseRelease(c, 3, 1, n1, orders);
      // The pair with everyone answering: Var = n1 v1 v2 / (v1 + v2).
      const double v1 = k * kSigma * kSigma / 7, v2 = k * kSigma * kSigma / n1;
      const double pair_variance = static_cast<double>(n1) * v1 * v2 / (v1 + v2);
      const double delta = Sensitivity(c);
      for (size_t a = 0; a < orders.size(); ++a) {
        EXPECT_NEAR(first.rdp[a], orders[a] * delta * delta / (2 * n1 * v1), 1e-9 * first.rdp[a]);
        EXPECT_NEAR(first.rdp[a] + second.rdp[a], orders[a] * delta * delta / (2 * pair_variance),
                    1e-9 * second.rdp[a]);
      }
      EXPECT_EQ(first.unit, dp::PrivacyUnit::kUser);
    }
  }
  EXPECT_FALSE(PhaseRelease(Config(v1::LFL_NOISE_NONE), 0, 0, 10, orders)->has_value());
}

// Before phase 0 the coordinator checks the whole round: the bound is the view's Gaussian at
// n_1 = n_min (closed forms: sigma^2 single and two-phase, sigma^2 / 2 in the paper's mode), and
// what the phases then charge together never exceeds it for any n_1 in [n_min, n].
TEST(LflSgdmfTest, RoundBoundCoversBothPhasesForEveryPhaseOneCount) {
  const std::vector<double> orders = {2, 4, 16, 64};
  for (v1::LflNoiseMode mode :
       {v1::LFL_NOISE_SINGLE, v1::LFL_NOISE_TWO_PHASE, v1::LFL_NOISE_TWO_PHASE_PAPER}) {
    const v1::LflSgdmfConfig c = Config(mode);
    const double view_variance =
        mode == v1::LFL_NOISE_TWO_PHASE_PAPER ? kSigma * kSigma / 2 : kSigma * kSigma;
    const dp::LedgerEntry bound = **RoundReleaseBound(c, 3, orders);
    const double delta = Sensitivity(c);
    for (size_t a = 0; a < orders.size(); ++a) {
      EXPECT_NEAR(bound.rdp[a], orders[a] * delta * delta / (2 * view_variance),
                  1e-9 * bound.rdp[a])
          << NoiseModeName(mode);
    }
    for (int64_t n1 = c.min_contributors(); n1 <= kCohort; ++n1) {
      std::vector<double> charged = (**PhaseRelease(c, 3, 0, n1, orders)).rdp;
      if (HasPhase1(c)) {
        const dp::LedgerEntry second = **PhaseRelease(c, 3, 1, n1, orders);
        for (size_t a = 0; a < orders.size(); ++a) charged[a] += second.rdp[a];
      }
      for (size_t a = 0; a < orders.size(); ++a) {
        EXPECT_LE(charged[a], bound.rdp[a] * (1 + 1e-12)) << NoiseModeName(mode) << " n1 " << n1;
      }
    }
    // The updater offers it before phase 0.
    std::unique_ptr<LflSgdmfUpdater> updater = *LflSgdmfUpdater::Create(c);
    EXPECT_EQ((**updater->RemainingRoundPrivacyBound(kCohort, orders)).rdp, bound.rdp);
  }
  EXPECT_FALSE(RoundReleaseBound(Config(v1::LFL_NOISE_NONE), 0, {2})->has_value());
}

TEST(LflSgdmfTest, UploadIsOneRatingsItemGradient) {
  const v1::LflSgdmfConfig c = Config(v1::LFL_NOISE_NONE, /*num_items=*/6);
  std::unique_ptr<LflSgdmfUpdater> updater = *LflSgdmfUpdater::Create(c);
  std::unique_ptr<LflSgdmfContributor> contributor = *LflSgdmfContributor::Create(*updater->Plan());
  const Eigen::MatrixXd v = InitialItemFactors(c);
  const double bound = fmf_sgd::RatingGradientBound(c.rating_max());
  dp::Rng rng(8);
  for (int user = 0; user < 3; ++user) {
    const LocalData data = test_util::User(user);
    for (int trial = 0; trial < 10; ++trial) {
      absl::StatusOr<Contribution> out = contributor->Contribute(data, "", rng);
      ASSERT_TRUE(out.ok()) << out.status();
      const Eigen::VectorXd g = *DecodeSum(c, out->vector.values());
      const Eigen::VectorXd& u = out->user_factor;
      int rows = 0;
      for (int j = 0; j < c.num_items(); ++j) {
        const Eigen::VectorXd row = g.segment(2 * j, 2);
        if (row.norm() < 1e-4) continue;
        ++rows;
        // Which of the user's ratings was sampled: the row's item.
        int k = 0;
        while (k < 3 && test_util::kItems[user][k] != j) ++k;
        ASSERT_LT(k, 3) << "gradient row " << j << " is not an item user " << user << " rated";
        const double residual = test_util::kRatings[user][k] - u.dot(v.row(j));
        EXPECT_LT((row + 2 * residual * u).norm(), 1e-4);
        EXPECT_LE(row.norm(), bound + 1e-4);
      }
      EXPECT_LE(rows, 1);
      // u_i is in the embedding set and stays on the device (state), the same every round.
      EXPECT_LE(u.norm(), std::sqrt(c.rating_max()) + 1e-12);
      EXPECT_GE(u.minCoeff(), 0);
      const v1::LflSgdmfUserState state = **DecodeUserState(out->state, c.rank());
      EXPECT_EQ(Eigen::Map<const Eigen::VectorXd>(state.user_factor().data(), 2), u);
    }
  }
}

TEST(LflSgdmfTest, PretrainingFitsTheUsersRatings) {
  const v1::LflSgdmfConfig c = Config(v1::LFL_NOISE_NONE, 6);
  const Eigen::MatrixXd v = InitialItemFactors(c);
  for (int user = 0; user < 3; ++user) {
    const LocalData data = test_util::User(user);
    const Eigen::VectorXd u0 = InitialUserFactor(c, data.participant_id);
    const Eigen::VectorXd u = PretrainUserFactor(v, u0, data.train, 200, 0.01, c.rating_max());
    auto error = [&](const Eigen::VectorXd& x) {
      double e = 0;
      for (int k = 0; k < 3; ++k) {
        e += std::pow(test_util::kRatings[user][k] - x.dot(v.row(test_util::kItems[user][k])), 2);
      }
      return e;
    };
    EXPECT_LT(error(u), error(u0)) << "user " << user;
  }
}

TEST(LflSgdmfTest, StateRoundTripAndCorruptState) {
  const v1::LflSgdmfConfig c = Config(v1::LFL_NOISE_TWO_PHASE);
  std::unique_ptr<LflSgdmfUpdater> updater = *LflSgdmfUpdater::Create(c);
  std::vector<uint64_t> zero(static_cast<size_t>(UploadLength(c)), 0);
  ASSERT_TRUE(updater->ApplySum(zero, Ids(9)).ok());  // phase 1 pending
  absl::StatusOr<std::unique_ptr<LflSgdmfUpdater>> restored =
      LflSgdmfUpdater::Restore(*updater->SerializeState());
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ((*restored)->PhaseParticipants(), Ids(9));
  EXPECT_EQ((*restored)->Plan()->SerializeAsString(), updater->Plan()->SerializeAsString());
  ASSERT_TRUE((*restored)->ApplySum(zero, Ids(8)).ok());
  EXPECT_EQ((*restored)->round(), 1);
  EXPECT_FALSE(LflSgdmfUpdater::Restore("garbage").ok());
  v1::LflSgdmfState bad;
  bad.ParseFromString(*updater->SerializeState());
  bad.mutable_phase1_sum()->RemoveLast();
  EXPECT_FALSE(LflSgdmfUpdater::Restore(bad.SerializeAsString()).ok());
  EXPECT_FALSE(DecodeUserState("not a state", 2).ok());
}

TEST(LflSgdmfTest, ConfigValidation) {
  v1::LflSgdmfConfig c = Config(v1::LFL_NOISE_TWO_PHASE);
  c.set_min_contributors(3);
  EXPECT_THAT(ValidateConfig(c).message(), HasSubstr("min_contributors=3"));
  c = Config(v1::LFL_NOISE_TWO_PHASE);
  c.set_omega(1);
  EXPECT_THAT(ValidateConfig(c).message(), HasSubstr("omega=1"));
  EXPECT_FALSE(ParseNoiseMode("double").ok());
  EXPECT_EQ(*ParseNoiseMode("two-phase-paper"), v1::LFL_NOISE_TWO_PHASE_PAPER);
  // Calibrated: T releases of a view holding sigma fit the budget, a smaller sigma would not.
  c = Config(v1::LFL_NOISE_TWO_PHASE);
  c.set_noise_std(0);
  std::unique_ptr<LflSgdmfUpdater> calibrated = *LflSgdmfUpdater::Create(c);
  EXPECT_GT(calibrated->config().noise_std(), 0);
  EXPECT_TRUE(calibrated->budget().has_value());
  EXPECT_FALSE((*LflSgdmfUpdater::Create(Config(v1::LFL_NOISE_TWO_PHASE_PAPER)))->budget());
}

}  // namespace
}  // namespace fedmf::algorithms::lfl_sgdmf
