#include "server/traffic_report.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace fedmf::server {
namespace {

int64_t PerUser(double bytes, int64_t cohort) {
  return std::llround(bytes / static_cast<double>(cohort));
}

}  // namespace

void AddTraffic(const wire::TrafficCounter& traffic, int64_t cohort, EventLine& line) {
  if (cohort <= 0) return;
  line.Add("up_bytes_per_user", PerUser(traffic.total_up(), cohort))
      .Add("down_bytes_per_user", PerUser(traffic.total_down(), cohort))
      .Add("chunks_up", traffic.chunks_up())
      .Add("chunks_down", traffic.chunks_down());
  for (int i = 0; i < wire::kNumStages; ++i) {
    const auto stage = static_cast<wire::Stage>(i);
    const std::string name(wire::StageName(stage));
    if (traffic.up(stage) > 0) {
      line.Add(absl::StrCat("up_bytes_per_user_", name), PerUser(traffic.up(stage), cohort));
    }
    if (traffic.down(stage) > 0) {
      line.Add(absl::StrCat("down_bytes_per_user_", name), PerUser(traffic.down(stage), cohort));
    }
  }
}

void AddTraffic(const wire::TrafficCounter& traffic, int64_t cohort, v1::StatusResponse& status) {
  for (int i = 0; i < wire::kNumStages; ++i) {
    const auto stage = static_cast<wire::Stage>(i);
    if (traffic.up(stage) == 0 && traffic.down(stage) == 0) continue;
    v1::StageTraffic* t = status.add_traffic();
    t->set_stage(std::string(wire::StageName(stage)));
    t->set_up_bytes(traffic.up(stage));
    t->set_down_bytes(traffic.down(stage));
    if (cohort > 0) {
      t->set_up_bytes_per_user(static_cast<double>(traffic.up(stage)) / cohort);
      t->set_down_bytes_per_user(static_cast<double>(traffic.down(stage)) / cohort);
    }
  }
}

std::string FormatTraffic(const v1::StatusResponse& status) {
  std::string out = absl::StrCat("traffic_round=", status.traffic_round(),
                                 " traffic_cohort=", status.traffic_cohort());
  if (status.traffic_evaluation()) absl::StrAppend(&out, " traffic_evaluation=yes");
  double up = 0, down = 0;
  for (const v1::StageTraffic& t : status.traffic()) {
    up += t.up_bytes_per_user();
    down += t.down_bytes_per_user();
  }
  if (status.traffic_size() > 0) {
    absl::StrAppend(&out, " up_bytes_per_user=", std::llround(up),
                    " down_bytes_per_user=", std::llround(down));
  }
  for (const v1::StageTraffic& t : status.traffic()) {
    if (t.up_bytes() > 0) {
      absl::StrAppend(&out, " up_bytes_per_user_", t.stage(), "=",
                      std::llround(t.up_bytes_per_user()));
    }
    if (t.down_bytes() > 0) {
      absl::StrAppend(&out, " down_bytes_per_user_", t.stage(), "=",
                      std::llround(t.down_bytes_per_user()));
    }
  }
  return out;
}

}  // namespace fedmf::server
