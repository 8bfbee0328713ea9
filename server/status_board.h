// What the round driver publishes of its progress for other threads: the driver's part of
// Admin.Status (round, stage, cohort, dropouts, last round's traffic, privacy spent, federated
// evaluation, failure streak) and the frozen population of a fixed-population run (whom a
// registration is told it will never be invited with). Only the driver thread writes (copy on
// write: Update edits a copy and swaps it in); any thread reads the latest snapshot without
// waiting for the driver, whatever it computes.
#ifndef FEDMF_SERVER_STATUS_BOARD_H_
#define FEDMF_SERVER_STATUS_BOARD_H_

#include <atomic>
#include <functional>
#include <memory>

#include "fedmf/v1/federation.pb.h"
#include "server/population.h"

namespace fedmf::server {

class StatusBoard {
 public:
  struct Snapshot {
    // The driver's fields; the stream router fills in its own (users, streams, bytes, exclusions).
    v1::StatusResponse status;
    std::shared_ptr<const FixedPopulation> population;  // null until frozen
  };

  StatusBoard() : current_(std::make_shared<const Snapshot>()) {}

  std::shared_ptr<const Snapshot> Read() const { return current_.load(); }
  // Driver thread only: publishes the latest snapshot as `edit` changes it.
  void Update(const std::function<void(Snapshot&)>& edit);
  // Update's most frequent edit.
  void SetStage(const std::string& stage);

 private:
  std::atomic<std::shared_ptr<const Snapshot>> current_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_STATUS_BOARD_H_
