#include "server/misbehaviour_log.h"

#include <utility>

#include "common/util/event_log.h"

namespace fedmf::server {

void ToleratedMisbehaviourLog::Record(const wire::AggregationTag& tag, uint32_t participant,
                                      std::string evidence, absl::Time now) {
  Participant& p = participants_[participant];
  ++p.unlogged;
  p.tag = tag;
  p.evidence = std::move(evidence);
  if (now - p.last_line >= period_) Log(participant, p, now);
}

void ToleratedMisbehaviourLog::FlushDue(absl::Time now) {
  for (auto it = participants_.begin(); it != participants_.end();) {
    if (now - it->second.last_line < period_) {
      ++it;
    } else if (it->second.unlogged > 0) {
      Log(it->first, it->second, now);
      ++it;
    } else {
      it = participants_.erase(it);  // quiet for a period: its next event is logged at once
    }
  }
}

void ToleratedMisbehaviourLog::FlushAll() {
  for (auto& [id, p] : participants_) {
    if (p.unlogged > 0) Log(id, p, p.last_line);
  }
}

void ToleratedMisbehaviourLog::Log(uint32_t id, Participant& p, absl::Time now) {
  EventLine("secagg_misbehaviour")
      .Add("round", p.tag.round)
      .Add("phase", p.tag.phase)
      .Add("participant", id)
      .Add("tolerated", "yes")
      .Add("events", p.unlogged)
      .Add("period_s", absl::ToDoubleSeconds(period_))
      .Add("evidence", p.evidence);
  p.unlogged = 0;
  p.last_line = now;
}

}  // namespace fedmf::server
