// The coordinator's reports of a round's traffic (wire/traffic.h) per stage and per user: fields
// of the event=round line, StageTraffic entries of Admin.Status, and the status CLI's text.
// Per-user figures are the stage's bytes over the cohort size (what an average cohort member sent
// or received; the task is sent once per client process, the result to every connected process).
#ifndef FEDMF_SERVER_TRAFFIC_REPORT_H_
#define FEDMF_SERVER_TRAFFIC_REPORT_H_

#include <cstdint>
#include <string>

#include "common/util/event_log.h"
#include "fedmf/v1/federation.pb.h"
#include "wire/traffic.h"

namespace fedmf::server {

// up_bytes_per_user=, down_bytes_per_user= (all stages), chunks_up=, chunks_down= (chunk messages
// received and sent), then up_bytes_per_user_<stage>= and
// down_bytes_per_user_<stage>= for every stage with traffic in that direction; rounded to whole
// bytes. Nothing when the cohort is empty.
void AddTraffic(const wire::TrafficCounter& traffic, int64_t cohort, EventLine& line);

// One StageTraffic per stage with any traffic, in protocol order.
void AddTraffic(const wire::TrafficCounter& traffic, int64_t cohort, v1::StatusResponse& status);

// The status fields as "traffic_round=R traffic_cohort=C" (then " traffic_evaluation=yes" when
// that round was an evaluation round) followed by the same per-user keys as
// the event line (from the StageTraffic entries).
std::string FormatTraffic(const v1::StatusResponse& status);

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_TRAFFIC_REPORT_H_
