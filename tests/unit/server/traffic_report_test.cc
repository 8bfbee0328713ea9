// The coordinator's traffic reports: per-user figures over the cohort, only stages with traffic,
// in protocol order, the same keys in the status text as in the event line.
#include "server/traffic_report.h"

#include "gtest/gtest.h"

namespace fedmf::server {
namespace {

wire::TrafficCounter Sample() {
  wire::TrafficCounter t;
  t.AddDown(wire::Stage::kTask, 300);
  t.AddUp(wire::Stage::kMaskedInput, 1000);
  t.AddDown(wire::Stage::kResult, 10);
  t.AddChunksUp(5);
  return t;
}

TEST(TrafficReportTest, StatusListsStagesWithTrafficPerUser) {
  v1::StatusResponse s;
  AddTraffic(Sample(), 4, s);
  ASSERT_EQ(s.traffic_size(), 3);
  EXPECT_EQ(s.traffic(0).stage(), "task");
  EXPECT_EQ(s.traffic(0).up_bytes(), 0);
  EXPECT_EQ(s.traffic(0).down_bytes(), 300);
  EXPECT_DOUBLE_EQ(s.traffic(0).down_bytes_per_user(), 75);
  EXPECT_EQ(s.traffic(1).stage(), "masked_input");
  EXPECT_EQ(s.traffic(1).up_bytes(), 1000);
  EXPECT_DOUBLE_EQ(s.traffic(1).up_bytes_per_user(), 250);
  EXPECT_EQ(s.traffic(2).stage(), "result");
  EXPECT_DOUBLE_EQ(s.traffic(2).down_bytes_per_user(), 2.5);
}

TEST(TrafficReportTest, StatusTextUsesTheEventLineKeys) {
  v1::StatusResponse s;
  s.set_traffic_round(2);
  s.set_traffic_cohort(4);
  AddTraffic(Sample(), 4, s);
  // Down per user: 75 + 2.5 = 77.5, rounded half away from zero to 78; the result's 2.5 to 3.
  EXPECT_EQ(FormatTraffic(s),
            "traffic_round=2 traffic_cohort=4 up_bytes_per_user=250 down_bytes_per_user=78 "
            "down_bytes_per_user_task=75 up_bytes_per_user_masked_input=250 "
            "down_bytes_per_user_result=3");
}

TEST(TrafficReportTest, EventLineHasPerUserTotalsAndStages) {
  testing::internal::CaptureStderr();
  {
    EventLine line("round");
    AddTraffic(Sample(), 4, line);
  }
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_NE(out.find(" event=round up_bytes_per_user=250 down_bytes_per_user=78 chunks_up=5 "
                     "chunks_down=0 down_bytes_per_user_task=75 up_bytes_per_user_masked_input=250 "
                     "down_bytes_per_user_result=3\n"),
            std::string::npos)
      << out;
}

TEST(TrafficReportTest, EventLineOfAnEmptyCohortHasNoTraffic) {
  testing::internal::CaptureStderr();
  {
    EventLine line("round");
    AddTraffic(Sample(), 0, line);
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr().find("bytes_per_user"), std::string::npos);
}

TEST(TrafficReportTest, NoRoundYetPrintsOnlyTheRound) {
  v1::StatusResponse s;
  s.set_traffic_round(-1);
  EXPECT_EQ(FormatTraffic(s), "traffic_round=-1 traffic_cohort=0");
}

TEST(TrafficReportTest, AnEvaluationRoundIsMarked) {
  v1::StatusResponse s;
  s.set_traffic_round(3);
  s.set_traffic_cohort(2);
  s.set_traffic_evaluation(true);
  v1::StageTraffic* t = s.add_traffic();
  t->set_stage("task");
  t->set_down_bytes(300);
  t->set_down_bytes_per_user(150);
  EXPECT_EQ(FormatTraffic(s),
            "traffic_round=3 traffic_cohort=2 traffic_evaluation=yes up_bytes_per_user=0 "
            "down_bytes_per_user=150 down_bytes_per_user_task=150");
}

}  // namespace
}  // namespace fedmf::server
