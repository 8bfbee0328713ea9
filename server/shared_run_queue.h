// The coordinator's RunQueue (run_queue.h) behind one lock, shared by the Admin RPCs (RunControl:
// a submission is validated whole, ValidateRunSpec, and must be a run this process can start) and
// the service loop that runs the queued runs one at a time (run_service.h: Next, Finish,
// CancelRequested, and AwaitChange to sleep until a submission). Each call holds the lock for one
// RunQueue call (at most one small atomic file write). Logs event=run_submitted and
// event=run_cancelled.
#ifndef FEDMF_SERVER_SHARED_RUN_QUEUE_H_
#define FEDMF_SERVER_SHARED_RUN_QUEUE_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "fedmf/v1/run_queue.pb.h"
#include "fedmf/v1/run_spec.pb.h"
#include "server/model_store.h"
#include "server/run_control.h"
#include "server/run_queue.h"

namespace fedmf::server {

class SharedRunQueue final : public RunControl {
 public:
  // `data_users` x `data_items`: the population the process's data gives a run that leaves
  // num_users or num_items 0 (fedmf-coordinator --eval_data); 0: none, and such a run is refused.
  // `models`: the store a warm start (start_from_version) reads; null: warm starts are checked
  // only when their run starts.
  explicit SharedRunQueue(RunQueue queue, int64_t data_users = 0, int32_t data_items = 0,
                          std::shared_ptr<const ModelStore> models = nullptr)
      : queue_(std::move(queue)),
        data_users_(data_users),
        data_items_(data_items),
        models_(std::move(models)) {}

  // RunControl. Submit: InvalidArgument "submitted run: FIELD=VALUE (need RANGE); ..." for a spec
  // ValidateRunSpec refuses, naming the options' error for an algorithm that cannot start a run,
  // or num_users/num_items when the spec leaves them to data the process does not have, or, when
  // no run is queued or running ahead of it (so the store is what it will start from), the
  // warm start's model (StartItemFactors' errors, or one the run cannot start from); then
  // RunQueue::Submit's errors.
  absl::StatusOr<v1::RunRecord> Submit(const v1::RunSpec& spec,
                                       absl::string_view identity) override;
  v1::ListRunsResponse List() const override;
  absl::StatusOr<v1::RunRecord> Cancel(int64_t id, absl::string_view identity) override;

  // The service loop: RunQueue::Next, Finish, and whether run `id` is running with
  // cancel_requested.
  absl::StatusOr<std::optional<v1::RunRecord>> Next();
  absl::Status Finish(int64_t id, v1::RunState state, absl::string_view detail);
  bool CancelRequested(int64_t id) const;
  std::string RunDir(int64_t id) const;
  // Counts the changes (submissions, cancellations, Wake): read it before Next, then AwaitChange
  // returns as soon as it moved past `seen` (at once if it already did), or after `timeout`.
  uint64_t generation() const;
  void AwaitChange(uint64_t seen, absl::Duration timeout);
  // Wakes AwaitChange (e.g. to shut down).
  void Wake();

 private:
  // A submission, cancellation or Wake: wakes AwaitChange. Under mu_.
  void Changed();
  // A run is queued or running.
  bool RunAhead() const;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  RunQueue queue_;           // guarded by mu_
  uint64_t generation_ = 0;  // guarded by mu_
  const int64_t data_users_;
  const int32_t data_items_;
  const std::shared_ptr<const ModelStore> models_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_SHARED_RUN_QUEUE_H_
