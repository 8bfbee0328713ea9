// What the round driver needs of the stream router: who is live and eligible, waiting for that to
// change (or for a stop), telling or ending every stream. Implemented by AggregationRouter
// (aggregation_router.h); the driver's tests use a fake.
#ifndef FEDMF_SERVER_ROSTER_H_
#define FEDMF_SERVER_ROSTER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "fedmf/v1/federation.pb.h"

namespace fedmf::server {

class Roster {
 public:
  virtual ~Roster() = default;
  // Users on live streams, ascending, without the excluded ones: who a cohort (training or
  // evaluation) may be drawn from.
  virtual std::vector<uint32_t> EligibleUsers() const = 0;
  // EligibleUsers().size(). A driver waiting for users asks on every change, so the router
  // answers without building the list (in O(excluded)): with n devices connecting, a list per
  // change cost O(n^2) under the lock their registrations take.
  virtual int64_t EligibleCount() const { return static_cast<int64_t>(EligibleUsers().size()); }
  // The round's users (all its phases' cohorts so far, or an evaluation's) are no longer needed:
  // the driver calls it before it chooses the next cohort. With check-in they are sent away like
  // the other idle devices, so that each cohort is drawn from devices that did not just serve.
  virtual void ReleaseRound() = 0;
  // Participants excluded for the rest of the run (live or not): they never join a cohort again.
  virtual int64_t ExcludedCount() const = 0;
  // Counts the changes a driver may wait for: a stream opened or closed, a stop.
  virtual uint64_t Generation() const = 0;
  // Returns once Generation() differs from `seen`, or at `deadline` (by the driver's clock).
  virtual void AwaitChange(uint64_t seen, absl::Time deadline) = 0;
  // Returns at `deadline`, or earlier when stopped; true if stopped.
  virtual bool AwaitStop(absl::Time deadline) = 0;
  // Stop() was called: the driver ends the run.
  virtual bool stopped() const = 0;
  // Stopped for good (a cancelled run of the long-running service), not for a restart that
  // resumes the run: the driver tells the clients the run is over.
  virtual bool run_cancelled() const = 0;
  // To every connected client process (e.g. the end of training). A training_done result also
  // reaches every stream that opens after it.
  virtual void Broadcast(const v1::RoundResult& result) = 0;
  // Ends every stream with `status`; how many there were.
  virtual int CloseAll(const absl::Status& status) = 0;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_ROSTER_H_
