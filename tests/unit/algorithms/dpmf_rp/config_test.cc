#include "common/algorithms/dpmf_rp/config.h"

#include <cmath>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms::dpmf_rp {
namespace {

DpmfRpConfig Ml100k() {
  DpmfRpConfig config;
  config.num_users = 943;
  config.num_items = 1682;
  return config;
}

TEST(DpmfRpConfigTest, DefaultsAreThePapersMl100kSettings) {
  const DpmfRpConfig c = Ml100k();
  EXPECT_TRUE(ValidateConfig(c).ok());
  EXPECT_EQ(c.rank, 14);
  EXPECT_EQ(c.lambda, 0.25);
  EXPECT_EQ(c.mu, 0.9);
  EXPECT_EQ(c.kappa, 15);
  EXPECT_EQ(c.user_l1_clip, 0.001);
  EXPECT_EQ(c.error_clip, 1);
  EXPECT_EQ(c.participation, 0.1);
  EXPECT_EQ(c.adam.learning_rate, 0.05);
  EXPECT_EQ(c.adam.beta1, 0.9);
  EXPECT_EQ(c.adam.beta2, 0.8);
  EXPECT_EQ(c.epsilon, 1);
  EXPECT_EQ(c.rdp_order, 2);
  EXPECT_EQ(c.mechanism, Mechanism::kPbm);
  EXPECT_EQ(c.projection, Projection::kSparse);
  EXPECT_EQ(c.compression, 3);
  EXPECT_EQ(c.item_model, ItemModel::kCompressed);
}

TEST(DpmfRpConfigTest, DerivedQuantities) {
  DpmfRpConfig c = Ml100k();
  EXPECT_EQ(ProjectedDim(c), 561);  // ceil(1682 / 3)
  c.compression = 2;
  EXPECT_EQ(ProjectedDim(c), 841);
  c.compression = 10;
  EXPECT_EQ(ProjectedDim(c), 169);  // ceil(168.2)
  EXPECT_EQ(ModelRows(c), 169);     // the compressed item model keeps B
  c.item_model = ItemModel::kFull;
  EXPECT_EQ(ModelRows(c), 1682);
  EXPECT_FALSE(KeepsCompressedModel(c));
  c.item_model = ItemModel::kCompressed;
  c.projection = Projection::kNone;
  EXPECT_EQ(ProjectedDim(c), 1682);
  EXPECT_EQ(ModelRows(c), 1682);
  EXPECT_EQ(CohortSize(c), 94);  // round(94.3)
  EXPECT_EQ(MinContributors(c), 94);
  c.min_clients = 63;
  EXPECT_EQ(MinContributors(c), 63);
  c.secure_aggregation = false;
  EXPECT_EQ(MinContributors(c), 1);
  // 4 e (1 + kappa) B1 / beta = 4 * 1 * 16 * 0.001 / 0.1.
  EXPECT_NEAR(ContributionClip(c), 0.64, 1e-15);
  c.projection = Projection::kSparse;
  c.compression = 3;
  // column_l1: D = p' k = 1024 * 14 (p = 561), c = Delta_1 / sqrt(1024).
  EXPECT_EQ(PbmDimension(c), 1024 * 14);
  EXPECT_NEAR(PbmCoordinateClip(c), 0.64 / 32, 1e-15);
  // rotated_l2: C = e (1 + kappa) B1 = 0.016, D = NextPowerOfTwo(561 * 14 = 7854) = 8192,
  // c = gamma C / sqrt(D) = 3 * 0.016 / sqrt(8192).
  c.pbm_geometry = PbmGeometry::kRotatedL2;
  EXPECT_NEAR(ContributionClip(c), 0.016, 1e-15);
  EXPECT_EQ(PbmDimension(c), 8192);
  EXPECT_NEAR(PbmCoordinateClip(c), 3 * 0.016 / std::sqrt(8192.0), 1e-15);
  c.pbm_geometry = PbmGeometry::kColumnL1;
  c.contribution_clip = 2.5;
  EXPECT_EQ(ContributionClip(c), 2.5);
  EXPECT_EQ(Budget(c).kind, dp::PrivacyBudget::Kind::kRdp);
  EXPECT_EQ(Budget(c).order, 2);
  c.delta = 1e-5;
  EXPECT_EQ(Budget(c).kind, dp::PrivacyBudget::Kind::kApproxDp);
  EXPECT_EQ(Budget(c).delta, 1e-5);
}

TEST(DpmfRpConfigTest, ProtoRoundTripIsExact) {
  DpmfRpConfig c = Ml100k();
  c.mechanism = Mechanism::kGaussian;
  c.projection = Projection::kNone;
  c.secure_aggregation = false;
  c.min_clients = 10;
  c.delta = 1e-6;
  c.seed = 0xfeedfacecafebeefULL;
  c.adam.epsilon = 1e-7;
  c.pbm_geometry = PbmGeometry::kRotatedL2;
  c.pbm_clip_multiplier = 2.5;
  c.item_model = ItemModel::kFull;
  c.ranking_kappa = 4;
  c.pbm_accounting = PbmAccounting::kCoordinate;
  c.noise_schedule = NoiseSchedule::kPrefixSum;
  const v1::DpmfRpConfig proto = ToProto(c);
  absl::StatusOr<DpmfRpConfig> back = FromProto(proto, "test");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(ToProto(*back).SerializeAsString(), proto.SerializeAsString());
  EXPECT_EQ(back->mechanism, Mechanism::kGaussian);
  EXPECT_EQ(back->seed, c.seed);
  EXPECT_EQ(back->ranking_kappa, 4);
  EXPECT_EQ(back->pbm_accounting, PbmAccounting::kCoordinate);
  EXPECT_EQ(back->noise_schedule, NoiseSchedule::kPrefixSum);
  // A state from before the accounting was recorded was calibrated coordinate by coordinate.
  v1::DpmfRpConfig old = ToProto(Ml100k());
  old.clear_pbm_accounting();
  old.clear_noise_schedule();
  EXPECT_EQ(FromProto(old, "test")->pbm_accounting, PbmAccounting::kCoordinate);
  EXPECT_EQ(FromProto(old, "test")->noise_schedule, NoiseSchedule::kConstant);
  EXPECT_EQ(FromProto(ToProto(Ml100k()), "test")->pbm_accounting, PbmAccounting::kL2);
  EXPECT_FALSE(FromProto(ToProto(Ml100k()), "test")->ranking_kappa.has_value());
}

TEST(DpmfRpConfigTest, ErrorsNameTheField) {
  const auto error_of = [](auto mutate) {
    DpmfRpConfig c = Ml100k();
    mutate(c);
    return std::string(ValidateConfig(c).message());
  };
  using ::testing::HasSubstr;
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.num_items = 0; }), HasSubstr("num_items=0"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.rank = 0; }), HasSubstr("rank=0"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.pbm_clip_multiplier = 0; }),
              HasSubstr("pbm_clip_multiplier=0"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.lambda = 0; }), HasSubstr("lambda=0"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.ranking_kappa = -2; }),
              HasSubstr("ranking_kappa=-2"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.user_l1_clip = -1; }), HasSubstr("user_l1_clip"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.error_clip = 0; }), HasSubstr("error_clip"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.compression = 0.5; }), HasSubstr("compression"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.participation = 1.5; }), HasSubstr("participation"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.min_clients = 95; }), HasSubstr("min_clients=95"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.epsilon = 0; }), HasSubstr("epsilon"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.delta = 1; }), HasSubstr("delta"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.rdp_order = 1; }), HasSubstr("rdp_order"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.rounds = 0; }), HasSubstr("rounds"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.max_q = 0; }), HasSubstr("max_q"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.fixed_point_bits = 41; }),
              HasSubstr("fixed_point_bits"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.adam.beta2 = 1; }), HasSubstr("beta2"));
  EXPECT_THAT(error_of([](DpmfRpConfig& c) { c.init_scale = -1; }), HasSubstr("init_scale"));
}

TEST(DpmfRpConfigTest, FromProtoRejectsUnsetEnumsAndInvalidValues) {
  v1::DpmfRpConfig proto = ToProto(Ml100k());
  proto.set_mechanism(v1::DpmfRpConfig::MECHANISM_UNSPECIFIED);
  EXPECT_FALSE(FromProto(proto, "x").ok());
  proto = ToProto(Ml100k());
  proto.set_projection(v1::DpmfRpConfig::PROJECTION_UNSPECIFIED);
  EXPECT_FALSE(FromProto(proto, "x").ok());
  proto = ToProto(Ml100k());
  proto.set_item_model(v1::DpmfRpConfig::ITEM_MODEL_UNSPECIFIED);
  EXPECT_FALSE(FromProto(proto, "x").ok());
  proto = ToProto(Ml100k());
  proto.set_rank(-3);
  absl::StatusOr<DpmfRpConfig> bad = FromProto(proto, "broadcast");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), ::testing::HasSubstr("broadcast: "));
}

TEST(DpmfRpConfigTest, NamesParse) {
  EXPECT_EQ(ParseMechanism("pbm").value(), Mechanism::kPbm);
  EXPECT_EQ(ParseMechanism("gaussian").value(), Mechanism::kGaussian);
  EXPECT_EQ(ParseMechanism("none").value(), Mechanism::kNone);
  EXPECT_FALSE(ParseMechanism("laplace").ok());
  EXPECT_EQ(ParseProjection("sparse").value(), Projection::kSparse);
  EXPECT_EQ(ParseProjection("none").value(), Projection::kNone);
  EXPECT_FALSE(ParseProjection("gaussian").ok());
  EXPECT_EQ(MechanismName(Mechanism::kGaussian), "gaussian");
  EXPECT_EQ(ProjectionName(Projection::kSparse), "sparse");
  EXPECT_EQ(ParseItemModel("compressed").value(), ItemModel::kCompressed);
  EXPECT_EQ(ParseItemModel("full").value(), ItemModel::kFull);
  EXPECT_FALSE(ParseItemModel("sketch").ok());
  EXPECT_EQ(ParsePbmGeometry("column_l1").value(), PbmGeometry::kColumnL1);
  EXPECT_EQ(ParsePbmGeometry("rotated_l2").value(), PbmGeometry::kRotatedL2);
  EXPECT_FALSE(ParsePbmGeometry("l2").ok());
  EXPECT_EQ(PbmGeometryName(PbmGeometry::kRotatedL2), "rotated_l2");
  EXPECT_EQ(ItemModelName(ItemModel::kFull), "full");
}

}  // namespace
}  // namespace fedmf::algorithms::dpmf_rp
