// The scale-out roles in one process (docs/scale-out.md, section 11 item 3): a combiner (a
// Coordinator over a FrontFleet) and F fronts, each front joined to it by an InProcessLink, so
// that the roles run and are tested without sockets. Devices reach a front (front(f), a
// DeviceEndpoint); the run is the combiner's (combiner().Run()). fedmf-sim --fronts and the
// roles' tests build one.
#ifndef FEDMF_SERVER_IN_PROCESS_CLUSTER_H_
#define FEDMF_SERVER_IN_PROCESS_CLUSTER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "fedmf/v1/replica.pb.h"
#include "server/checkpoint.h"
#include "server/clock.h"
#include "server/coordinator.h"
#include "server/coordinator_options.h"
#include "server/front.h"
#include "server/in_process_link.h"

namespace fedmf::server {

class InProcessCluster {
 public:
  // Sees each message a front sends, with the front's index, before the combiner handles it
  // (on the link's thread): what the combiner receives, for the wire checks.
  using UpTap = std::function<void(size_t front, const v1::FrontMessage&)>;

  // `fronts` >= 1 fronts serving devices with `options` (its process fields and num_users), and
  // the combiner of the run `options` and `state` describe, on `clock`. `work` (may be null) is
  // told of every message while it is in flight on a link, so that a ProgressClock waits for it.
  InProcessCluster(int fronts, const CoordinatorOptions& options, CoordinatorState state,
                   Clock& clock, PendingWork* work = nullptr, UpTap tap = nullptr);
  // Devices must be gone and the combiner's Run() over: what is still on the links is dropped.
  ~InProcessCluster();
  InProcessCluster(const InProcessCluster&) = delete;
  InProcessCluster& operator=(const InProcessCluster&) = delete;

  Coordinator& combiner() { return *combiner_; }
  Front& front(size_t f) { return *fronts_[f]; }
  size_t fronts() const { return fronts_.size(); }

  // Ends front f's link as a dead process or a partition would: what is on it or is sent on it
  // later is dropped, the combiner loses the front (Coordinator::FrontLost) and the front its
  // combiner (Front::CombinerLost). Any thread, a tap's included.
  void Cut(size_t f);

  // Returns once the links are quiet: everything sent on them, and everything that sent in turn,
  // has been handled (e.g. before Run, so that the combiner knows every front's live users).
  void Drain();

 private:
  // Whether front f's link still carries messages.
  bool Carries(size_t f) const { return !closing_ && !cut_[f]; }
  // Drains every channel once; how many messages they have handled in all.
  uint64_t DrainOnce();

  PendingWork* const work_;
  const UpTap tap_;
  std::atomic<bool> closing_{false};  // set by the destructor: the links drop what they carry
  std::unique_ptr<std::atomic<bool>[]> cut_;  // per front: its link drops what it carries
  std::vector<std::unique_ptr<Front>> fronts_;
  std::unique_ptr<Coordinator> combiner_;
  std::vector<std::unique_ptr<InProcessLink>> links_;  // last, so gone first
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_IN_PROCESS_CLUSTER_H_
