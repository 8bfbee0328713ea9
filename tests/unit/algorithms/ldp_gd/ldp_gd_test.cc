// ldp-gd and ldp-gd-dr (common/algorithms/ldp_gd/): the report's encoding and check, the
// estimator's agreement with the paper's and its unbiasedness, the per-report privacy ratio,
// the k-round budget, the user's own state, and the server's step. The networked runs are in
// tests/integration/ldp_gd_test.sh.
#include "common/algorithms/ldp_gd/ldp_gd.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/algorithms/ldp_gd/central_gd.h"
#include "common/algorithms/ldp_gd/contributor.h"
#include "common/algorithms/ldp_gd/updater.h"
#include "common/algorithms/ldp_gd/user_step.h"
#include "common/algorithms/registry.h"
#include "common/dp/privacy_ledger.h"
#include "common/dp/rng.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/three_users_test_util.h"

namespace fedmf::algorithms::ldp_gd {
namespace {

using ::testing::HasSubstr;

v1::LdpGdConfig Config(v1::LdpProjectionMode projection = v1::LDP_PROJECTION_NONE) {
  v1::LdpGdConfig c;
  c.set_num_users(3);
  c.set_num_items(6);
  c.set_rank(2);
  c.set_rounds(4);
  c.set_epsilon(1);
  c.set_learning_rate(1);
  c.set_lambda_u(0.01);
  c.set_lambda_v(0.01);
  c.set_correction(true);
  c.set_projection(projection);
  if (projection != v1::LDP_PROJECTION_NONE) {
    c.set_projection_dim(3);
    c.set_entries(v1::LDP_ENTRIES_GAUSSIAN);
  }
  c.set_seed(5);
  c.set_init_scale(0.5);
  c.set_cohort_size(3);
  c.set_min_contributors(1);
  c.set_score_lambda(0.25);
  c.set_score_kappa(15);
  return c;
}

using test_util::kItems;
using test_util::kRatings;
using test_util::User;

TEST(LdpGdTest, ConfigAndPlanValidation) {
  v1::LdpGdConfig bad = Config(v1::LDP_PROJECTION_FIXED_PSEUDOINVERSE);
  bad.set_projection_dim(6);  // q must be below m
  EXPECT_THAT(LdpGdUpdater::Create(bad).status().message(), HasSubstr("projection_dim=6"));
  bad = Config();
  bad.set_epsilon(0);
  EXPECT_THAT(LdpGdUpdater::Create(bad).status().message(), HasSubstr("epsilon=0"));
  auto updater = LdpGdUpdater::Create(Config()).value();
  v1::RoundPlan plan = updater->Plan().value();
  EXPECT_EQ(plan.algorithm(), "ldp-gd");
  EXPECT_EQ(plan.combination(), v1::COMBINATION_CLEAR);
  EXPECT_EQ(plan.length(), 12u);  // m d
  plan.set_length(13);
  EXPECT_THAT(LdpGdContributor::Create(plan).status().message(), HasSubstr("length=13"));
  plan = updater->Plan().value();
  plan.set_algorithm("ldp-gd-dr");
  EXPECT_FALSE(LdpGdContributor::Create(plan).ok());
  plan = updater->Plan().value();
  plan.set_combination(v1::COMBINATION_SECURE_SUM);
  EXPECT_FALSE(LdpGdContributor::Create(plan).ok());
  EXPECT_TRUE(MakeContributor(updater->Plan().value()).ok());
  auto dr = LdpGdUpdater::Create(Config(v1::LDP_PROJECTION_FRESH_TRANSPOSE)).value();
  EXPECT_EQ(dr->Plan()->algorithm(), "ldp-gd-dr");
  EXPECT_EQ(dr->Plan()->length(), 6u);  // q d
}

// What the coordinator decodes from the sum of encoded reports is the paper's estimator
// (binary_rr.h BinaryRrEstimateMean) over the same reports, coordinate s at (s / d, s % d).
TEST(LdpGdTest, DecodedSumIsThePapersEstimator) {
  const v1::LdpGdConfig c = Config();
  const std::vector<dp::BinaryRrReport> reports = {{3, true},   {3, true},  {0, false},
                                                   {11, false}, {3, false}, {7, true}};
  std::vector<uint64_t> sum(ReportDim(c), 0);
  for (const dp::BinaryRrReport& r : reports) {
    ASSERT_TRUE(AddModPow2(EncodeReport(r), kBits, absl::MakeSpan(sum)).ok());
  }
  const Eigen::MatrixXd mean = DecodeMeanReport(c, sum, 6).value();
  const Eigen::VectorXd paper = dp::BinaryRrEstimateMean(reports, 12, RoundEpsilon(c)).value();
  for (int64_t s = 0; s < 12; ++s) {
    EXPECT_DOUBLE_EQ(mean(s / 2, s % 2), paper[s]) << "coordinate " << s;
  }
  // A sum that counts more reports than contributors is refused.
  EXPECT_FALSE(DecodeMeanReport(c, sum, 3).ok());
  EXPECT_FALSE(DecodeMeanReport(c, std::vector<uint64_t>(11, 0), 6).ok());
}

// One report's probability ratio between any two gradients is at most e^{eps/k}, and reached.
TEST(LdpGdTest, OneReportIsEpsOverKLdp) {
  const double eps = RoundEpsilon(Config());  // 0.25
  double max_ratio = 0;
  for (double x = -2; x <= 2; x += 0.01) {
    for (double y = -2; y <= 2; y += 0.01) {
      const double px = dp::BinaryRrPositiveProbability(x, eps);
      const double py = dp::BinaryRrPositiveProbability(y, eps);
      // P(s, T | x) = P(T | x_s) / D for every picked s: the 1/D cancels in the ratio.
      max_ratio = std::max({max_ratio, px / py, (1 - px) / (1 - py)});
    }
  }
  EXPECT_LE(max_ratio, std::exp(eps) * (1 + 1e-12));
  EXPECT_NEAR(max_ratio, std::exp(eps), 1e-9);
}

// Over 1e5 simulated users, the decoded mean of the contributors' reports is within 5 standard
// deviations (CLT: Var = (1/N^2) sum_i (B^2 / D - x_is^2) <= B^2 / (D N)) of the users' mean
// clamped gradient, in every coordinate, for Private GD and for the projected gradient of GD-DR.
// A process builds a round's Phi once while something holds it, whoever asks (its client hosts
// and its coordinator in fedmf-sim).
TEST(LdpGdTest, AProcessSharesEachPhiWhileItIsHeld) {
  const v1::LdpGdConfig paper = Config(v1::LDP_PROJECTION_FIXED_PSEUDOINVERSE);
  const std::shared_ptr<const dp::GaussianProjection> held = RoundProjection(paper, 0).value();
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(RoundProjection(paper, 3).value(), held);  // one Phi for the run
  const v1::LdpGdConfig fresh = Config(v1::LDP_PROJECTION_FRESH_TRANSPOSE);
  const std::shared_ptr<const dp::GaussianProjection> round0 = RoundProjection(fresh, 0).value();
  EXPECT_EQ(RoundProjection(fresh, 0).value(), round0);
  EXPECT_NE(RoundProjection(fresh, 1).value()->matrix(), round0->matrix());
  // Only the last one is kept for sharing: another is built again, the same matrix.
  EXPECT_EQ(RoundProjection(paper, 0).value()->matrix(), held->matrix());
  EXPECT_EQ(RoundProjection(Config(v1::LDP_PROJECTION_NONE), 0).value(), nullptr);
}

TEST(LdpGdTest, EstimatorIsUnbiasedOverManyUsers) {
  for (v1::LdpProjectionMode mode : {v1::LDP_PROJECTION_NONE, v1::LDP_PROJECTION_FRESH_TRANSPOSE}) {
    v1::LdpGdConfig c = Config(mode);
    c.set_epsilon(8);  // eps/k = 2: fewer users needed for a tight bound
    auto updater = LdpGdUpdater::Create(c).value();
    auto contributor = LdpGdContributor::Create(updater->Plan().value()).value();
    const int64_t dim = ReportDim(c);
    const int d = c.rank();
    // Each of the three users' clamped gradient, from their own first factor.
    std::vector<Eigen::VectorXd> x(3, Eigen::VectorXd(dim));
    const std::shared_ptr<const dp::GaussianProjection> phi = RoundProjection(c, 0).value();
    const Eigen::MatrixXd& v = contributor->scorer().item_factors();
    for (int i = 0; i < 3; ++i) {
      const LocalData user = User(i);
      const Eigen::VectorXd u = InitialUserFactor(c, user.participant_id);
      const Eigen::VectorXd e = Residuals(v, u, user.train);
      for (int64_t s = 0; s < dim; ++s) {
        const double g = phi ? ProjectedGradientEntry(phi->matrix(), u, user.train, e, s / d,
                                                      static_cast<int>(s % d))
                             : ItemGradientEntry(u, user.train, e, static_cast<int32_t>(s / d),
                                                 static_cast<int>(s % d));
        x[i][s] = std::clamp(g, -1.0, 1.0);
      }
    }
    constexpr int kUsers = 100000;
    std::vector<uint64_t> sum(dim, 0);
    Eigen::VectorXd truth = Eigen::VectorXd::Zero(dim);
    dp::Rng rng(17);
    for (int n = 0; n < kUsers; ++n) {
      const Contribution report = contributor->Contribute(User(n % 3), "", rng).value();
      ASSERT_TRUE(updater->CheckUpload(report.vector).ok());
      ASSERT_TRUE(AddModPow2(report.vector, kBits, absl::MakeSpan(sum)).ok());
      truth += x[n % 3] / kUsers;
    }
    const Eigen::MatrixXd mean = DecodeMeanReport(c, sum, kUsers).value();
    const double b = dp::BinaryRrMagnitude(dim, RoundEpsilon(c));
    const double sigma = b / std::sqrt(static_cast<double>(dim) * kUsers);
    for (int64_t s = 0; s < dim; ++s) {
      EXPECT_LE(std::abs(mean(s / d, s % d) - truth[s]), 5 * sigma)
          << "mode " << mode << " coordinate " << s << " truth " << truth[s];
    }
  }
}

// The server refuses any clear upload that is not exactly one report.
TEST(LdpGdTest, MalformedReportsAreRefused) {
  auto updater = LdpGdUpdater::Create(Config()).value();
  EXPECT_TRUE(updater->CheckUpload(ContributionVector::Sparse({4}, {1})).ok());
  EXPECT_TRUE(updater->CheckUpload(ContributionVector::Sparse({11}, {(1ULL << 32) - 1})).ok());
  EXPECT_THAT(updater->CheckUpload(ContributionVector::Sparse({1, 4}, {1, 1})).message(),
              HasSubstr("exactly one coordinate"));
  EXPECT_THAT(updater->CheckUpload(ContributionVector::Sparse({4}, {2})).message(),
              HasSubstr("neither +B"));
  EXPECT_THAT(updater->CheckUpload(ContributionVector::Sparse({12}, {1})).message(),
              HasSubstr("outside [0, 12)"));
  EXPECT_FALSE(updater->CheckUpload(ContributionVector::Dense(std::vector<uint64_t>(12, 0))).ok());
  EXPECT_FALSE(updater->CheckUpload(ContributionVector::Sparse({}, {})).ok());
}

// k rounds of eps/k spend exactly eps on the ledger; round k + 1 does not fit, and the updater
// refuses a sum after round k.
TEST(LdpGdTest, LedgerSpendsEpsilonInExactlyKRounds) {
  for (int k : {1, 3, 7, 10, 50}) {
    for (double eps : {0.05, 0.1, 1.6}) {
      v1::LdpGdConfig c = Config();
      c.set_rounds(k);
      c.set_epsilon(eps);
      auto updater = LdpGdUpdater::Create(c).value();
      dp::PrivacyLedger ledger = dp::PrivacyLedger::Create().value();
      const dp::PrivacyBudget budget = *updater->budget();
      std::vector<uint64_t> sum(ReportDim(c), 0);
      for (int t = 0; t < k; ++t) {
        const dp::LedgerEntry entry = updater->RoundPrivacy(3, {}).value().value();
        ASSERT_TRUE(ledger.CanAfford(entry, budget).value()) << "k=" << k << " eps=" << eps;
        ASSERT_TRUE(ledger.Append(entry).ok());
        ASSERT_TRUE(updater->ApplySum(sum, std::vector<uint32_t>{1, 2, 3}).ok());
      }
      EXPECT_NEAR(ledger.spent().pure_epsilon(), eps, 1e-12 * eps);
      const dp::LedgerEntry next = updater->RoundPrivacy(3, {}).value().value();
      EXPECT_FALSE(ledger.CanAfford(next, budget).value()) << "k=" << k << " eps=" << eps;
      EXPECT_EQ(updater->ApplySum(sum, std::vector<uint32_t>{1}).code(),
                absl::StatusCode::kFailedPrecondition);
    }
  }
}

// The user's factor lives in their state: u_i^0 from the public seed first, then one step on
// each new V; a retried round steps nothing; a corrupt state and a party are refused.
TEST(LdpGdTest, UserFactorIsTheParticipantsState) {
  const v1::LdpGdConfig c = Config();
  auto updater = LdpGdUpdater::Create(c).value();
  auto round0 = LdpGdContributor::Create(updater->Plan().value()).value();
  dp::Rng rng(3);
  const LocalData user = User(1);
  const Contribution first = round0->Contribute(user, "", rng).value();
  EXPECT_EQ(first.user_factor, InitialUserFactor(c, 2));
  EXPECT_EQ(round0->Contribute(user, first.state, rng)->user_factor, first.user_factor);
  EXPECT_EQ(round0->ParticipantCost(user, "").value()->pure_epsilon, RoundEpsilon(c));

  std::vector<uint64_t> sum(ReportDim(c), 0);
  ASSERT_TRUE(AddModPow2(first.vector, kBits, absl::MakeSpan(sum)).ok());
  ASSERT_TRUE(updater->ApplySum(sum, std::vector<uint32_t>{2}).ok());
  auto round1 = LdpGdContributor::Create(updater->Plan().value()).value();
  const Contribution second = round1->Contribute(user, first.state, rng).value();
  const Eigen::VectorXd expected =
      StepUserFactor(updater->item_factors(), first.user_factor, user.train, c.num_users(),
                     c.lambda_u(), UserStep(c, 0));
  EXPECT_LT((second.user_factor - expected).norm(), 1e-15);
  EXPECT_EQ(DecodeUserState(second.state, c.rank()).value()->round(), 1);

  EXPECT_EQ(round1->Contribute(user, "garbage", rng).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto shard = std::make_shared<PartyShard>();
  EXPECT_THAT(round1->Contribute(LocalData::Party(shard), "", rng).status().message(),
              HasSubstr("per user"));
}

// The server's step: V <- V - (gamma_t / f_k) (mean report + 2 lambda_v V), with Phi^+ (paper)
// or Phi_t^T (unbiased) recovery of a projected mean; the state survives a restore.
TEST(LdpGdTest, ServerStepsVWithTheRecoveredMean) {
  for (v1::LdpProjectionMode mode :
       {v1::LDP_PROJECTION_NONE, v1::LDP_PROJECTION_FIXED_PSEUDOINVERSE,
        v1::LDP_PROJECTION_FRESH_TRANSPOSE}) {
    const v1::LdpGdConfig c = Config(mode);
    auto updater = LdpGdUpdater::Create(c).value();
    ASSERT_TRUE(updater->ApplySum(std::vector<uint64_t>(ReportDim(c), 0), std::vector<uint32_t>{1})
                    .ok());  // round 0: a zero mean
    const Eigen::MatrixXd v1 = updater->item_factors();
    std::vector<uint64_t> sum(ReportDim(c), 0);
    sum[1] = 1;
    sum[4] = (1ULL << 32) - 1;
    ASSERT_TRUE(updater->ApplySum(sum, std::vector<uint32_t>{1, 3}).ok());
    const Eigen::MatrixXd mean = DecodeMeanReport(c, sum, 2).value();
    Eigen::MatrixXd gradient = mean;
    if (mode == v1::LDP_PROJECTION_FIXED_PSEUDOINVERSE) {
      gradient = dp::ProjectionRecovery::Create(RoundProjection(c, 1).value())
                     .value()
                     .Recover(mean)
                     .value();
      // One Phi for the whole run.
      EXPECT_EQ(RoundProjection(c, 1).value()->matrix(), RoundProjection(c, 0).value()->matrix());
    } else if (mode == v1::LDP_PROJECTION_FRESH_TRANSPOSE) {
      gradient = RoundProjection(c, 1).value()->matrix().transpose() * mean;
      EXPECT_NE(RoundProjection(c, 1).value()->matrix(), RoundProjection(c, 0).value()->matrix());
    }
    const Eigen::MatrixXd expected = v1 - ItemStep(c, 1) * (gradient + 2 * c.lambda_v() * v1);
    EXPECT_LT((updater->item_factors() - expected).norm(), 1e-12) << "mode " << mode;
    EXPECT_DOUBLE_EQ(ItemStep(c, 1), 0.5 / 16);  // gamma_0 / 2 / k^2
    auto restored = LdpGdUpdater::Restore(updater->SerializeState().value()).value();
    EXPECT_EQ(restored->item_factors(), updater->item_factors());
    EXPECT_EQ(restored->round(), 2);
  }
  EXPECT_FALSE(LdpGdUpdater::Restore("garbage").ok());
}

// The central non-private GD takes the contributors' exact steps: its first V step is the mean
// of the users' gradients at u_i^0 and V_0.
TEST(LdpGdTest, CentralGdStepsWithTheExactMeanGradient) {
  data::RatingsBuilder builder;
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 3; ++k) {
      builder.Add(absl::StrCat("u", i), absl::StrCat("i", kItems[i][k]), kRatings[i][k],
                  std::nullopt);
    }
  }
  // Items are indexed by first appearance: i0 i2 i5 i1 i3 i4; the config only needs the shape.
  const data::RatingsDataset train = std::move(builder).Build().value();
  v1::LdpGdConfig c = Config();
  c.set_rounds(1);
  const CentralGdModel model = TrainCentralGd(train, c).value();
  Eigen::MatrixXd gradient = Eigen::MatrixXd::Zero(6, 2);
  const Eigen::MatrixXd v0 = InitialItemFactors(c);
  for (int i = 0; i < 3; ++i) {
    const Eigen::VectorXd u = InitialUserFactor(c, i + 1);
    AddItemGradient(u, train.user(i), Residuals(v0, u, train.user(i)), gradient);
  }
  const Eigen::MatrixXd expected = v0 - ItemStep(c, 0) * (gradient / 3 + 2 * c.lambda_v() * v0);
  EXPECT_LT((model.item_factors - expected).norm(), 1e-12);
}

}  // namespace
}  // namespace fedmf::algorithms::ldp_gd
