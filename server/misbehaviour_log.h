// The event=secagg_misbehaviour lines of tolerated misbehaviour (shares a holder reported
// unusable), rate-limited per participant: at most one line per participant per period, each
// carrying `events`, the count since that participant's previous line, so that a client
// misbehaving in every round cannot flood the log and no event goes uncounted. A participant's first event after a quiet period is logged at once; those that follow
// within the period are counted and logged once it has passed (at the next Record or FlushDue),
// or at FlushAll (the destructor calls it). A culprit's misbehaviour is not this class's: the
// culprit is excluded, so it happens once. Not thread-safe.
#ifndef FEDMF_SERVER_MISBEHAVIOUR_LOG_H_
#define FEDMF_SERVER_MISBEHAVIOUR_LOG_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/time/time.h"
#include "wire/envelope.h"

namespace fedmf::server {

class ToleratedMisbehaviourLog {
 public:
  explicit ToleratedMisbehaviourLog(absl::Duration period) : period_(period) {}
  ~ToleratedMisbehaviourLog() { FlushAll(); }
  ToleratedMisbehaviourLog(const ToleratedMisbehaviourLog&) = delete;
  ToleratedMisbehaviourLog& operator=(const ToleratedMisbehaviourLog&) = delete;

  // One tolerated event of `participant` in `tag`'s aggregation at `now`, with its evidence.
  void Record(const wire::AggregationTag& tag, uint32_t participant, std::string evidence,
              absl::Time now);
  // Logs the counts of the participants whose last line is a period old by `now`.
  void FlushDue(absl::Time now);
  // Logs every count not logged yet.
  void FlushAll();

 private:
  struct Participant {
    absl::Time last_line = absl::InfinitePast();
    int64_t unlogged = 0;      // events since last_line
    wire::AggregationTag tag;  // of the latest event
    std::string evidence;      // of the latest event
  };
  void Log(uint32_t id, Participant& p, absl::Time now);

  const absl::Duration period_;
  std::map<uint32_t, Participant> participants_;  // with a line in the last period
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_MISBEHAVIOUR_LOG_H_
