#include "common/algorithms/matrix_proto.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fedmf::algorithms {
namespace {

TEST(MatrixProtoTest, RowMajorExactRoundTrip) {
  Eigen::MatrixXd m(2, 3);
  m << 1, 2, 3, 4, 5, 0.1;
  const v1::Matrix proto = MatrixToProto(m);
  EXPECT_EQ(proto.rows(), 2u);
  EXPECT_EQ(proto.cols(), 3u);
  EXPECT_THAT(proto.values(), ::testing::ElementsAre(1, 2, 3, 4, 5, 0.1));
  absl::StatusOr<Eigen::MatrixXd> back = MatrixFromProto(proto, 2, 3, "m");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, m);
}

TEST(MatrixProtoTest, RejectsWrongShapeShortValuesAndNonFinite) {
  Eigen::MatrixXd m = Eigen::MatrixXd::Ones(2, 2);
  v1::Matrix proto = MatrixToProto(m);
  EXPECT_FALSE(MatrixFromProto(proto, 2, 3, "m").ok());
  EXPECT_FALSE(MatrixFromProto(proto, 4, 1, "m").ok());
  v1::Matrix short_values = proto;
  short_values.mutable_values()->RemoveLast();
  EXPECT_FALSE(MatrixFromProto(short_values, 2, 2, "m").ok());
  proto.set_values(3, std::nan(""));
  absl::StatusOr<Eigen::MatrixXd> bad = MatrixFromProto(proto, 2, 2, "B");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), ::testing::HasSubstr("B(1, 1)"));
}

}  // namespace
}  // namespace fedmf::algorithms
