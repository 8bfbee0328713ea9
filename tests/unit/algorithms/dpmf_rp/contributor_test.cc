#include "common/algorithms/dpmf_rp/contributor.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/algorithms/dpmf_rp/updater.h"
#include "common/algorithms/matrix_proto.h"
#include "common/algorithms/registry.h"
#include "common/data/synthetic.h"
#include "common/dp/sparse_projection.h"
#include "common/mf/weighted_solve.h"
#include "fedmf/v1/dpmf_rp.pb.h"
#include "gtest/gtest.h"
#include "tests/unit/algorithms/dpmf_rp/test_util.h"

namespace fedmf::algorithms::dpmf_rp {
namespace {

using testing::SmallConfig;

data::RatingsDataset SmallData() {
  data::SyntheticConfig config;
  config.num_users = 20;
  config.num_items = 12;
  config.rank = 2;
  config.ratings_per_user = 5;
  config.min_ratings_per_user = 2;
  return data::GenerateSynthetic(config).value();
}

struct Round {
  std::unique_ptr<DpmfRpUpdater> updater;
  v1::RoundPlan plan;
  std::unique_ptr<DpmfRpContributor> contributor;
};

Round Start(const DpmfRpConfig& config) {
  Round r;
  r.updater = DpmfRpUpdater::Create(config).value();
  r.plan = r.updater->Plan().value();
  r.contributor = DpmfRpContributor::Create(r.plan).value();
  return r;
}

TEST(DpmfRpContributorTest, PbmVectorHasThePlannedShapeAndRange) {
  const Round r = Start(SmallConfig(Mechanism::kPbm, Projection::kSparse));
  const data::RatingsDataset data = SmallData();
  // p = ceil(12 / 3) = 4 = p', k = 3.
  EXPECT_EQ(r.plan.length(), 12u);
  const int64_t q = r.updater->mechanism().pbm_q();
  ASSERT_GE(q, 1);
  dp::Rng rng(1);
  for (int32_t u = 0; u < data.num_users(); ++u) {
    absl::StatusOr<Contribution> c =
        r.contributor->Contribute(LocalData::User(data.user(u)), "", rng);
    ASSERT_TRUE(c.ok()) << c.status();
    ASSERT_FALSE(c->vector.is_sparse());
    ASSERT_EQ(c->vector.values().size(), 12u);
    for (uint64_t z : c->vector.values()) {
      EXPECT_LE(z, static_cast<uint64_t>(q));
      EXPECT_LT(z, uint64_t{1} << r.plan.client_bits());
    }
    EXPECT_EQ(c->user_factor.size(), 3);
  }
}

TEST(DpmfRpContributorTest, ItemFactorsAndUserFactorFollowTheModel) {
  const Round r = Start(SmallConfig(Mechanism::kPbm, Projection::kSparse));
  EXPECT_EQ(r.contributor->scorer().item_factors(), r.updater->ItemFactors().value());
  const data::RatingsDataset data = SmallData();
  const mf::FactorMatrix& v = r.contributor->scorer().item_factors();
  const Eigen::VectorXd expected =
      mf::SolveWeightedRow(v.transpose() * v, v, data.user(3), 15, 0.25);
  EXPECT_LT((r.contributor->scorer().UserFactor(data.user(3)).value() - expected).norm(), 1e-12);
  dp::Rng rng(2);
  EXPECT_LT(
      (r.contributor->Contribute(LocalData::User(data.user(3)), "", rng)->user_factor - expected)
          .norm(),
      1e-12);
}

TEST(DpmfRpContributorTest, RankingKappaChangesOnlyTheRankingFactor) {
  DpmfRpConfig config = SmallConfig(Mechanism::kPbm, Projection::kSparse);
  config.ranking_kappa = 2;
  const Round r = Start(config);
  const data::RatingsDataset data = SmallData();
  const mf::FactorMatrix& v = r.contributor->scorer().item_factors();
  const Eigen::MatrixXd gram = v.transpose() * v;
  EXPECT_LT((r.contributor->scorer().UserFactor(data.user(3)).value() -
             mf::SolveWeightedRow(gram, v, data.user(3), 2, 0.25))
                .norm(),
            1e-12);
  dp::Rng rng(2);
  EXPECT_LT((r.contributor->Contribute(LocalData::User(data.user(3)), "", rng)->user_factor -
             mf::SolveWeightedRow(gram, v, data.user(3), 15, 0.25))
                .norm(),
            1e-12);
}

TEST(DpmfRpContributorTest, ProjectedGradientIsSTimesTheGradientRows) {
  for (ItemModel model : {ItemModel::kCompressed, ItemModel::kFull}) {
    DpmfRpConfig config = SmallConfig(Mechanism::kPbm, Projection::kSparse);
    config.item_model = model;
    const Round r = Start(config);
    EXPECT_EQ(r.contributor->scorer().item_factors(), r.updater->ItemFactors().value());
    const data::RatingsDataset data = SmallData();
    LocalGradient local;
    const Eigen::MatrixXd x = r.contributor->ProjectedGradient(data.user(5), &local).value();
    // S written out densely (p x m) from the round's public seed, F with rows f(i, j) = w_j u^.
    const dp::SparseProjection s =
        dp::SparseProjection::Create(12, 4, r.updater->ProjectionSeed(0)).value();
    Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(4, 12);
    for (int j = 0; j < 12; ++j) dense(s.bucket(j), j) = s.sign(j);
    const Eigen::MatrixXd f = local.weights * local.clipped_factor.transpose();
    EXPECT_LT((x - dense * f).cwiseAbs().maxCoeff(), 1e-15);
  }
}

TEST(DpmfRpContributorTest, WithoutNoiseOrProjectionTheSumDecodesToTheSumOfGradients) {
  const Round r = Start(SmallConfig(Mechanism::kNone, Projection::kNone));
  const data::RatingsDataset data = SmallData();
  const mf::FactorMatrix& v = r.contributor->scorer().item_factors();
  const Eigen::MatrixXd gram = v.transpose() * v;
  std::vector<uint64_t> sum(r.plan.length(), 0);
  Eigen::MatrixXd exact = Eigen::MatrixXd::Zero(12, 3);
  dp::Rng rng(3);
  for (int32_t u = 0; u < data.num_users(); ++u) {
    const LocalGradient g =
        ComputeLocalGradient(v, gram, data.user(u),
                             {.lambda = 0.25, .kappa = 15, .user_l1_clip = 0.001, .error_clip = 1})
            .value();
    exact += g.weights * g.clipped_factor.transpose();  // rows f(i, j) of eq. 16
    const Contribution c =
        r.contributor->Contribute(LocalData::User(data.user(u)), "", rng).value();
    ASSERT_TRUE(AddModPow2(c.vector, r.plan.bits(), absl::MakeSpan(sum)).ok());
  }
  const Eigen::MatrixXd decoded = r.contributor->codec().DecodeSum(sum, 20).value();
  // Each of the 20 stochastic roundings moves a coordinate by less than 2^-24.
  EXPECT_LT((decoded - exact).cwiseAbs().maxCoeff(), 20 * std::ldexp(1.0, -24));
  EXPECT_GT(exact.cwiseAbs().maxCoeff(), 1e-3);  // the comparison is not between zeros
}

// Summed uploads (fedmf-sim --summed_uploads): the sum's one encoding decodes to the sum of the
// users' own encodings up to their rounding (a grid unit a user and coordinate at most), with
// the same user factors; only summed noise offers a sum (a user's upload would carry its noise).
TEST(DpmfRpContributorTest, SummedUploadsEncodeTheUsersSumOnce) {
  DpmfRpConfig config = SmallConfig(Mechanism::kGaussian, Projection::kSparse);
  EXPECT_EQ(Start(config).contributor->StartSum(), nullptr);
  config.simulation_summed_noise = true;
  const Round r = Start(config);
  std::unique_ptr<ContributionSum> sum = r.contributor->StartSum();
  ASSERT_NE(sum, nullptr);
  const data::RatingsDataset data = SmallData();
  std::vector<uint64_t> separate(r.plan.length(), 0);
  dp::Rng rng(3);
  for (int32_t u = 0; u < data.num_users(); ++u) {
    const LocalData user = LocalData::User(data.user(u));
    absl::StatusOr<Contribution> alone = r.contributor->Contribute(user, "", rng);
    absl::StatusOr<Contribution> added = sum->Add(user, "", rng);
    ASSERT_TRUE(alone.ok()) << alone.status();
    ASSERT_TRUE(added.ok()) << added.status();
    EXPECT_TRUE(added->vector.values().empty());
    EXPECT_EQ(added->user_factor, alone->user_factor);
    ASSERT_TRUE(AddModPow2(alone->vector, r.plan.bits(), absl::MakeSpan(separate)).ok());
  }
  absl::StatusOr<ContributionVector> total = sum->Encode(rng);
  ASSERT_TRUE(total.ok()) << total.status();
  ASSERT_TRUE(CheckVector(r.plan, *total).ok());
  const int64_t n = data.num_users();
  const ContributionCodec& codec = r.contributor->codec();
  const Eigen::MatrixXd difference =
      codec.DecodeSum(total->values(), n).value() - codec.DecodeSum(separate, n).value();
  EXPECT_LE(difference.cwiseAbs().maxCoeff(),
            static_cast<double>(n + 1) * std::ldexp(1.0, -config.fixed_point_bits));
  EXPECT_EQ(sum->Add(LocalData::Party(std::make_shared<PartyShard>()), "", rng).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(DpmfRpContributorTest, SameRngSameVector) {
  const Round r = Start(SmallConfig(Mechanism::kPbm, Projection::kSparse));
  const data::RatingsDataset data = SmallData();
  dp::Rng a(7), b(7);
  EXPECT_EQ(r.contributor->Contribute(LocalData::User(data.user(0)), "", a)->vector,
            r.contributor->Contribute(LocalData::User(data.user(0)), "", b)->vector);
}

TEST(DpmfRpContributorTest, RejectsInconsistentPlans) {
  const Round r = Start(SmallConfig(Mechanism::kPbm, Projection::kSparse));
  const auto rejected = [](const v1::RoundPlan& plan) {
    return !DpmfRpContributor::Create(plan).ok();
  };
  EXPECT_FALSE(rejected(r.plan));
  v1::RoundPlan plan = r.plan;
  plan.set_algorithm("no-such-algorithm");
  EXPECT_TRUE(rejected(plan));
  EXPECT_EQ(MakeContributor(plan).status().code(), absl::StatusCode::kNotFound);
  plan = r.plan;
  plan.set_payload("not a protobuf \xff\xff");
  EXPECT_TRUE(rejected(plan));
  for (int field = 0; field < 5; ++field) {
    plan = r.plan;
    if (field == 0) plan.set_length(plan.length() + 1);
    if (field == 1) plan.set_bits(plan.bits() + 1);
    if (field == 2) plan.set_client_bits(plan.client_bits() + 1);
    if (field == 3) plan.set_round(plan.round() + 1);
    if (field == 4) plan.set_combination(v1::COMBINATION_CLEAR);
    EXPECT_TRUE(rejected(plan)) << field;
  }
  v1::DpmfRpBroadcast broadcast;
  ASSERT_TRUE(broadcast.ParseFromString(r.plan.payload()));
  const auto with_broadcast = [&](const v1::DpmfRpBroadcast& b) {
    v1::RoundPlan p = r.plan;
    p.set_payload(b.SerializeAsString());
    return p;
  };
  v1::DpmfRpBroadcast bad = broadcast;
  bad.mutable_model()->set_values(5, std::nan(""));
  EXPECT_TRUE(rejected(with_broadcast(bad)));
  bad = broadcast;
  *bad.mutable_model() = MatrixToProto(Eigen::MatrixXd::Zero(5, 3));
  EXPECT_TRUE(rejected(with_broadcast(bad)));
  bad = broadcast;
  bad.mutable_config()->set_rank(0);
  EXPECT_TRUE(rejected(with_broadcast(bad)));
  bad = broadcast;
  bad.mutable_mechanism()->set_pbm_q(0);
  EXPECT_TRUE(rejected(with_broadcast(bad)));
  EXPECT_FALSE(rejected(with_broadcast(broadcast)));
}

TEST(DpmfRpContributorTest, RejectsRatingsOutsideTheCatalogue) {
  const Round r = Start(SmallConfig(Mechanism::kPbm, Projection::kSparse));
  const int32_t items[1] = {12};
  const float ratings[1] = {4};
  dp::Rng rng(1);
  EXPECT_FALSE(r.contributor->Contribute(LocalData::User({items, ratings, {}}), "", rng).ok());
  EXPECT_FALSE(r.contributor->scorer().UserFactor({items, ratings, {}}).ok());
}

// DPMF-RP is cross-device (Algorithm 2 is per user): a silo party is refused, not misread.
TEST(DpmfRpContributorTest, RefusesASiloParty) {
  const Round r = Start(SmallConfig(Mechanism::kPbm, Projection::kSparse));
  auto shard = std::make_shared<PartyShard>();
  dp::Rng rng(1);
  EXPECT_EQ(r.contributor->Contribute(LocalData::Party(shard), "", rng).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::algorithms::dpmf_rp
