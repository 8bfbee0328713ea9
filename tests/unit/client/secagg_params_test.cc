#include "client/secagg_params.h"

#include "gtest/gtest.h"

namespace fedmf::client {
namespace {

TEST(SecAggParamsTest, RoundTripsEveryField) {
  secagg::SessionConfig c;
  c.context = "run/round-3";
  c.num_clients = 10;
  c.threshold = 7;
  c.bits = 40;
  c.length = 123;
  c.graph = secagg::GraphKind::kHarary;
  c.degree = 6;
  const absl::StatusOr<secagg::SessionConfig> back = FromProto(ToProto(c));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->context, "run/round-3");
  EXPECT_EQ(back->num_clients, 10);
  EXPECT_EQ(back->threshold, 7);
  EXPECT_EQ(back->bits, 40);
  EXPECT_EQ(back->length, 123u);
  EXPECT_EQ(back->graph, secagg::GraphKind::kHarary);
  EXPECT_EQ(back->degree, 6);
  EXPECT_FALSE(back->signatures);
  EXPECT_FALSE(back->consistency_check);
}

TEST(SecAggParamsTest, RejectsAThresholdAboveTheCohort) {
  v1::SecAggParams p;
  p.set_context("x");
  p.set_num_clients(3);
  p.set_threshold(4);
  p.set_bits(8);
  p.set_length(1);
  EXPECT_EQ(FromProto(p).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SecAggParamsTest, RejectsAnEmptyMessage) {
  EXPECT_EQ(FromProto(v1::SecAggParams()).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fedmf::client
