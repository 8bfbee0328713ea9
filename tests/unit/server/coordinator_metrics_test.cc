#include "server/coordinator_metrics.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/run_control.h"

namespace fedmf::server {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(CoordinatorMetricsTest, CountsAggregationsByKindAndOutcome) {
  CoordinatorMetrics m;
  m.AggregationStarted(false);
  m.AggregationEnded(false, true);
  m.AggregationStarted(false);
  m.AggregationEnded(false, false);
  m.AggregationStarted(true);
  const std::string text = m.Render(v1::StatusResponse(), absl::UnavailableError("no /proc"));
  EXPECT_THAT(text, HasSubstr("fedmf_aggregations_started_total{kind=\"training\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("fedmf_aggregations_applied_total{kind=\"training\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("fedmf_aggregations_failed_total{kind=\"training\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("fedmf_aggregations_started_total{kind=\"evaluation\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("fedmf_aggregations_applied_total{kind=\"evaluation\"} 0\n"));
  EXPECT_THAT(text, Not(HasSubstr("process_")));  // /proc unreadable: left out
}

TEST(CoordinatorMetricsTest, StageDurationsFillCumulativeBucketsAndDropoutsAddUp) {
  CoordinatorMetrics m;
  m.StageClosed(false, "ShareKeys", 0.00390625, 0);  // binary fractions: an exact sum
  m.StageClosed(false, "ShareKeys", 0.75, 2);
  m.StageClosed(false, "ShareKeys", 500, 1);  // beyond the last bound: +Inf only
  const std::string text = m.Render(v1::StatusResponse(), absl::UnavailableError(""));
  const std::string labels = "kind=\"training\",stage=\"ShareKeys\"";
  EXPECT_THAT(text, HasSubstr(absl::StrCat("fedmf_stage_duration_seconds_bucket{", labels,
                                           ",le=\"0.005\"} 1\n")));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("fedmf_stage_duration_seconds_bucket{", labels,
                                           ",le=\"0.5\"} 1\n")));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("fedmf_stage_duration_seconds_bucket{", labels,
                                           ",le=\"1\"} 2\n")));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("fedmf_stage_duration_seconds_bucket{", labels,
                                           ",le=\"120\"} 2\n")));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("fedmf_stage_duration_seconds_bucket{", labels,
                                           ",le=\"+Inf\"} 3\n")));
  EXPECT_THAT(text,
              HasSubstr(absl::StrCat("fedmf_stage_duration_seconds_count{", labels, "} 3\n")));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("fedmf_stage_duration_seconds_sum{", labels,
                                           "} 500.75390625\n")));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("fedmf_stage_dropouts_total{", labels, "} 3\n")));
}

TEST(CoordinatorMetricsTest, RendersTheStatusFiguresAndPrivacyOnlyOnceSpent) {
  CoordinatorMetrics m;
  v1::StatusResponse status;
  status.set_round(4);
  status.set_total_rounds(10);
  status.set_participants(40);
  status.set_registered_users(200);
  status.set_connected_clients(4);
  status.set_bytes_in(123456789);
  status.set_stage("ShareKeys");
  std::string text = m.Render(status, absl::UnavailableError(""));
  EXPECT_THAT(text, HasSubstr("fedmf_rounds_completed 4\n"));
  EXPECT_THAT(text, HasSubstr("fedmf_rounds_total_planned 10\n"));
  EXPECT_THAT(text, HasSubstr("fedmf_training_done 0\n"));
  EXPECT_THAT(text, HasSubstr("fedmf_cohort_size 40\n"));
  EXPECT_THAT(text, HasSubstr("fedmf_registered_participants 200\n"));
  EXPECT_THAT(text, HasSubstr("fedmf_live_streams 4\n"));
  EXPECT_THAT(text, HasSubstr("fedmf_received_bytes_total 123456789\n"));
  EXPECT_THAT(text, Not(HasSubstr("fedmf_privacy_epsilon")));
  status.set_privacy_unit("user");
  status.set_privacy_bound("worst_case");
  status.set_epsilon_dp(2.5);
  status.set_delta(1e-5);
  status.set_stage("done");
  text = m.Render(status, util::ProcStats{.cpu_seconds = 1.5, .resident_bytes = 4096});
  EXPECT_THAT(text, HasSubstr("fedmf_privacy_epsilon{unit=\"user\",bound=\"worst_case\"} 2.5\n"));
  EXPECT_THAT(text, HasSubstr("fedmf_privacy_delta{unit=\"user\",bound=\"worst_case\"} 1e-05\n"));
  EXPECT_THAT(text, HasSubstr("fedmf_training_done 1\n"));
  EXPECT_THAT(text, HasSubstr("process_cpu_seconds_total 1.5\n"));
  EXPECT_THAT(text, HasSubstr("process_resident_memory_bytes 4096\n"));
  EXPECT_THAT(text, Not(HasSubstr("fedmf_runs")));
}

// A service's Status carries its runs by state (AddRunCounts): the scrape shows each state, and
// the run in progress.
TEST(CoordinatorMetricsTest, RendersAServicesRunsByState) {
  class TwoRuns final : public RunControl {
   public:
    absl::StatusOr<v1::RunRecord> Submit(const v1::RunSpec&, absl::string_view) override {
      return absl::UnimplementedError("");
    }
    v1::ListRunsResponse List() const override {
      v1::ListRunsResponse list;
      list.add_runs()->set_state(v1::RUN_STATE_DONE);
      v1::RunRecord* running = list.add_runs();
      running->set_id(2);
      running->set_state(v1::RUN_STATE_RUNNING);
      list.add_runs()->set_state(v1::RUN_STATE_QUEUED);
      list.add_runs()->set_state(v1::RUN_STATE_QUEUED);
      return list;
    }
    absl::StatusOr<v1::RunRecord> Cancel(int64_t, absl::string_view) override {
      return absl::UnimplementedError("");
    }
  } runs;
  v1::StatusResponse status;
  AddRunCounts(nullptr, status);
  EXPECT_FALSE(status.has_runs());
  AddRunCounts(&runs, status);
  EXPECT_EQ(status.runs().queued(), 2);
  EXPECT_EQ(status.runs().running_id(), 2);
  const std::string text = CoordinatorMetrics().Render(status, absl::UnavailableError(""));
  EXPECT_THAT(text, HasSubstr("fedmf_runs{state=\"queued\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("fedmf_runs{state=\"running\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("fedmf_runs{state=\"done\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("fedmf_runs{state=\"failed\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("fedmf_run_in_progress 2\n"));
}

}  // namespace
}  // namespace fedmf::server
