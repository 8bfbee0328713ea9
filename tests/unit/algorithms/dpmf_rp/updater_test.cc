#include "common/algorithms/dpmf_rp/updater.h"

#include <memory>
#include <string>
#include <vector>

#include "common/algorithms/dpmf_rp/codec.h"
#include "common/algorithms/matrix_proto.h"
#include "common/algorithms/registry.h"
#include "common/dp/fixed_point.h"
#include "common/dp/sparse_projection.h"
#include "fedmf/v1/dpmf_rp.pb.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/dpmf_rp/test_util.h"
#include "tests/unit/participant_ids.h"

namespace fedmf::algorithms::dpmf_rp {
namespace {

using testing::SmallConfig;

// A sum of `contributors` vectors whose decoded value is about `value` in every coordinate
// (mechanism none: value * 2^24 * contributors integer units).
std::vector<uint64_t> ConstantSum(const DpmfRpUpdater& updater, double value, int contributors) {
  const v1::RoundPlan plan = updater.Plan().value();
  const int64_t units = std::llround(value * std::ldexp(1.0, 24) * contributors);
  std::vector<uint64_t> sum(plan.length());
  for (uint64_t& s : sum) s = dp::ReduceModPow2(units, plan.bits());
  return sum;
}

TEST(DpmfRpUpdaterTest, GradientIsEquationSevenCarriedIntoTheProjectedSpace) {
  // dJ/dB = -2 (n / |A|) sum + 2 mu S S^T B. Check S S^T = diag(items per bucket) against the
  // derivative of mu ||S^T B||^2 by central differences (exact for a quadratic).
  DpmfRpConfig config = SmallConfig(Mechanism::kNone, Projection::kSparse);
  config.mu = 0.7;
  std::unique_ptr<DpmfRpUpdater> updater = DpmfRpUpdater::Create(config).value();
  const Eigen::MatrixXd b = updater->model();
  const dp::SparseProjection s =
      dp::SparseProjection::Create(12, 4, updater->ProjectionSeed(0)).value();
  const auto reg = [&](const Eigen::MatrixXd& bb) {
    return config.mu * s.ApplyTranspose(bb).value().squaredNorm();
  };
  const Eigen::MatrixXd zero = Eigen::MatrixXd::Zero(4, 3);
  const Eigen::MatrixXd reg_gradient = updater->Gradient(zero, 20).value();
  for (int i = 0; i < 4; ++i) {
    for (int f = 0; f < 3; ++f) {
      Eigen::MatrixXd plus = b, minus = b;
      plus(i, f) += 1e-5;
      minus(i, f) -= 1e-5;
      EXPECT_NEAR(reg_gradient(i, f), (reg(plus) - reg(minus)) / 2e-5, 1e-9);
    }
  }
  // Data term: n = 20 users, 5 contributors: -2 * 20 / 5 = -8 times the decoded sum.
  const Eigen::MatrixXd ones = Eigen::MatrixXd::Ones(4, 3);
  EXPECT_LT((updater->Gradient(ones, 5).value() - reg_gradient - (-8.0 * ones)).norm(), 1e-12);
}

TEST(DpmfRpUpdaterTest, WithoutProjectionInitialBIsV) {
  const DpmfRpConfig config = SmallConfig(Mechanism::kNone, Projection::kNone);
  std::unique_ptr<DpmfRpUpdater> updater = DpmfRpUpdater::Create(config).value();
  EXPECT_EQ(updater->model(), mf::RandomFactors(12, 3, 0.1, config.seed));
  EXPECT_EQ(updater->ItemFactors().value(), updater->model());
  // Regularization without projection is 2 mu B.
  EXPECT_LT(
      (updater->Gradient(Eigen::MatrixXd::Zero(12, 3), 20).value() - 2 * 0.9 * updater->model())
          .norm(),
      1e-15);
}

Eigen::MatrixXd DenseProjection(uint64_t seed) {
  const dp::SparseProjection s = dp::SparseProjection::Create(12, 4, seed).value();
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(4, 12);
  for (int j = 0; j < 12; ++j) dense(s.bucket(j), j) = s.sign(j);
  return dense;
}

TEST(DpmfRpUpdaterTest, FullItemModelKeepsVAndSketchesTheGradientWithAFreshS) {
  DpmfRpConfig config = SmallConfig(Mechanism::kNone, Projection::kSparse);
  config.item_model = ItemModel::kFull;
  std::unique_ptr<DpmfRpUpdater> updater = DpmfRpUpdater::Create(config).value();
  const Eigen::MatrixXd v = updater->model();
  EXPECT_EQ(v, mf::RandomFactors(12, 3, 0.1, config.seed));
  EXPECT_EQ(updater->ItemFactors().value(), v);
  EXPECT_NE(updater->ProjectionSeed(0), updater->ProjectionSeed(1));
  // n = 20, 5 contributors: dJ/dV ~ -8 S_0^T D + 2 mu V.
  Eigen::MatrixXd d(4, 3);
  d << 1, 2, 3, 4, 5, 6, -1, -2, -3, 0.5, 0, 0;
  const Eigen::MatrixXd expected =
      -8.0 * DenseProjection(updater->ProjectionSeed(0)).transpose() * d + 2 * 0.9 * v;
  EXPECT_LT((updater->Gradient(d, 5).value() - expected).norm(), 1e-12);
  v1::DpmfRpBroadcast broadcast;
  ASSERT_TRUE(broadcast.ParseFromString(updater->Plan()->payload()));
  EXPECT_EQ(broadcast.projection_seed(), updater->ProjectionSeed(0));
  EXPECT_EQ(broadcast.model().rows(), 12u);
  ASSERT_TRUE(
      updater->ApplySum(ConstantSum(*updater, 0.01, 20), test_util::ParticipantIds(20)).ok());
  ASSERT_TRUE(broadcast.ParseFromString(updater->Plan()->payload()));
  EXPECT_EQ(broadcast.projection_seed(), updater->ProjectionSeed(1));
}

TEST(DpmfRpUpdaterTest, FreshSketchesAreUnbiased) {
  // E over the round's S of S^T S x = x (diagonal of S^T S is 1, off-diagonal signs average out).
  // Coordinate j of S^T S x - x is sum_{l != j, h(l) = h(j)} +/- x_l: variance <= 11 / 4 for
  // |x_l| <= 1 and p = 4, so the mean over 3000 rounds has std <= 0.031; 5.5 std bounds all 12.
  DpmfRpConfig config = SmallConfig(Mechanism::kNone, Projection::kSparse);
  config.item_model = ItemModel::kFull;
  std::unique_ptr<DpmfRpUpdater> updater = DpmfRpUpdater::Create(config).value();
  Eigen::VectorXd x(12);
  x << 1, -0.5, 0.25, 0.8, -1, 0.3, 0, 0.6, -0.7, 0.9, -0.2, 0.4;
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(12);
  const int kRounds = 3000;
  for (int t = 0; t < kRounds; ++t) {
    const Eigen::MatrixXd s = DenseProjection(updater->ProjectionSeed(t));
    mean += s.transpose() * (s * x) / kRounds;
  }
  EXPECT_LT((mean - x).cwiseAbs().maxCoeff(), 5.5 * std::sqrt(11.0 / 4 / kRounds));
}

TEST(DpmfRpUpdaterTest, ApplySumTakesOneAdamStep) {
  DpmfRpConfig config = SmallConfig(Mechanism::kNone, Projection::kNone);
  std::unique_ptr<DpmfRpUpdater> updater = DpmfRpUpdater::Create(config).value();
  const Eigen::MatrixXd b0 = updater->model();
  const std::vector<uint64_t> sum = ConstantSum(*updater, 0.01, 20);
  const Eigen::MatrixXd decoded = ContributionCodec::Create(config, updater->mechanism(), 0, 1)
                                      .value()
                                      .DecodeSum(sum, 20)
                                      .value();
  mf::Adam adam = mf::Adam::Create(config.adam, 12, 3).value();
  Eigen::MatrixXd expected = b0;
  ASSERT_TRUE(adam.Step(updater->Gradient(decoded, 20).value(), expected).ok());
  ASSERT_TRUE(updater->ApplySum(sum, test_util::ParticipantIds(20)).ok());
  EXPECT_EQ(updater->round(), 1);
  EXPECT_EQ(updater->model(), expected);
  EXPECT_EQ(updater->Plan()->round(), 1);
}

TEST(DpmfRpUpdaterTest, FailedApplyLeavesTheStateUnchanged) {
  std::unique_ptr<DpmfRpUpdater> updater =
      DpmfRpUpdater::Create(SmallConfig(Mechanism::kNone, Projection::kNone)).value();
  const std::string before = updater->SerializeState().value();
  std::vector<uint64_t> sum = ConstantSum(*updater, 0.01, 20);
  EXPECT_FALSE(updater->ApplySum(sum, test_util::ParticipantIds(19)).ok());  // below n_min
  EXPECT_FALSE(
      updater->ApplySum(absl::MakeSpan(sum).subspan(1), test_util::ParticipantIds(20)).ok());
  sum[0] = uint64_t{1} << (updater->Plan()->bits() - 1);  // may have wrapped
  EXPECT_FALSE(updater->ApplySum(sum, test_util::ParticipantIds(20)).ok());
  EXPECT_EQ(updater->SerializeState().value(), before);
  EXPECT_EQ(updater->round(), 0);
}

TEST(DpmfRpUpdaterTest, StateRoundTripsThroughProtobuf) {
  std::unique_ptr<DpmfRpUpdater> a =
      DpmfRpUpdater::Create(SmallConfig(Mechanism::kPbm, Projection::kSparse)).value();
  const v1::RoundPlan plan0 = a->Plan().value();
  // Two rounds with all-centre sums (PBM: q/2 per client decodes to 0).
  for (int round = 0; round < 2; ++round) {
    const v1::RoundPlan plan = a->Plan().value();
    std::vector<uint64_t> sum(plan.length(),
                              static_cast<uint64_t>(20 * a->mechanism().pbm_q() / 2));
    sum[1] += 3;
    ASSERT_TRUE(a->ApplySum(sum, test_util::ParticipantIds(20)).ok());
  }
  const std::string state = a->SerializeState().value();
  absl::StatusOr<std::unique_ptr<Updater>> b = RestoreUpdater("dpmf-rp", state);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)->round(), 2);
  EXPECT_EQ((*b)->SerializeState().value(), state);
  EXPECT_EQ((*b)->Plan()->SerializeAsString(), a->Plan()->SerializeAsString());
  EXPECT_NE(a->Plan()->payload(), plan0.payload());  // B and the D_xi seed moved on
  // Both continue identically.
  const v1::RoundPlan plan = a->Plan().value();
  std::vector<uint64_t> sum(plan.length(), static_cast<uint64_t>(20 * a->mechanism().pbm_q() / 2));
  sum[0] += 1;
  ASSERT_TRUE(a->ApplySum(sum, test_util::ParticipantIds(20)).ok());
  ASSERT_TRUE((*b)->ApplySum(sum, test_util::ParticipantIds(20)).ok());
  EXPECT_EQ((*b)->SerializeState().value(), a->SerializeState().value());
}

TEST(DpmfRpUpdaterTest, RestoreRejectsCorruptState) {
  std::unique_ptr<DpmfRpUpdater> a =
      DpmfRpUpdater::Create(SmallConfig(Mechanism::kNone, Projection::kNone)).value();
  v1::DpmfRpState state;
  ASSERT_TRUE(state.ParseFromString(a->SerializeState().value()));
  EXPECT_FALSE(DpmfRpUpdater::Restore("\xff\xff garbage").ok());
  EXPECT_EQ(RestoreUpdater("no-such-algorithm", state.SerializeAsString()).status().code(),
            absl::StatusCode::kNotFound);
  const auto rejected = [](const v1::DpmfRpState& s) {
    return !DpmfRpUpdater::Restore(s.SerializeAsString()).ok();
  };
  EXPECT_FALSE(rejected(state));
  v1::DpmfRpState bad = state;
  bad.set_round(-1);
  EXPECT_TRUE(rejected(bad));
  bad = state;
  *bad.mutable_model() = MatrixToProto(Eigen::MatrixXd::Zero(11, 3));
  EXPECT_TRUE(rejected(bad));
  bad = state;
  bad.mutable_adam_second_moment()->set_values(0, -1);
  EXPECT_TRUE(rejected(bad));
  bad = state;
  bad.mutable_adam_first_moment()->clear_values();
  EXPECT_TRUE(rejected(bad));
  bad = state;
  bad.mutable_config()->set_item_model(v1::DpmfRpConfig::ITEM_MODEL_UNSPECIFIED);
  EXPECT_TRUE(rejected(bad));
  bad = state;
  bad.mutable_config()->set_num_items(0);
  EXPECT_TRUE(rejected(bad));
}

TEST(DpmfRpUpdaterTest, PlanDescribesTheCombination) {
  DpmfRpConfig config = SmallConfig(Mechanism::kPbm, Projection::kSparse);
  config.epsilon = 1;  // small enough that neither variant saturates theta = 1/4, q = max_q
  std::unique_ptr<DpmfRpUpdater> secure = DpmfRpUpdater::Create(config).value();
  const v1::RoundPlan plan = secure->Plan().value();
  EXPECT_EQ(plan.algorithm(), "dpmf-rp");
  EXPECT_EQ(plan.combination(), v1::COMBINATION_SECURE_SUM);
  EXPECT_EQ(plan.min_contributors(), 20);
  EXPECT_EQ(plan.max_contributors(), 20);
  EXPECT_TRUE(secure->budget().has_value());
  EXPECT_TRUE(secure->RoundPrivacy(20, dp::DefaultOrders())->has_value());
  config.secure_aggregation = false;
  std::unique_ptr<DpmfRpUpdater> clear = DpmfRpUpdater::Create(config).value();
  const v1::RoundPlan clear_plan = clear->Plan().value();
  EXPECT_EQ(clear_plan.combination(), v1::COMBINATION_CLEAR);
  EXPECT_EQ(clear_plan.min_contributors(), 1);
  EXPECT_EQ((*clear->RoundPrivacy(20, dp::DefaultOrders()))->n_min, 1);
  // A lone client needs more noise: a smaller theta (or fewer trials) for the same budget.
  EXPECT_LT(clear->mechanism().pbm_theta() * clear->mechanism().pbm_q(),
            secure->mechanism().pbm_theta() * secure->mechanism().pbm_q());
  config.mechanism = Mechanism::kNone;
  std::unique_ptr<DpmfRpUpdater> none = DpmfRpUpdater::Create(config).value();
  EXPECT_FALSE(none->budget().has_value());
  EXPECT_FALSE(none->RoundPrivacy(20, dp::DefaultOrders())->has_value());
}

}  // namespace
}  // namespace fedmf::algorithms::dpmf_rp
