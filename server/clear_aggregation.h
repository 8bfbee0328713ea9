// The sum of a clear-upload round (RoundPlan combination COMBINATION_CLEAR, i.e. DPMF-RP with
// --secure_aggregation=off, or fedmf-sim --plain_sum): each cohort member uploads its vector in
// the clear, dense or sparse, the coordinator checks it against the plan and adds it mod 2^bits
// (a sparse one at a cost proportional to its values), after the algorithm's own test of one
// upload (Updater::CheckUpload) where it has one. Not thread-safe (the stream router's lock).
#ifndef FEDMF_SERVER_CLEAR_AGGREGATION_H_
#define FEDMF_SERVER_CLEAR_AGGREGATION_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "common/algorithms/contribution_vector.h"
#include "fedmf/v1/algorithm.pb.h"
#include "fedmf/v1/federation.pb.h"

namespace fedmf::server {

class ClearAggregation {
 public:
  // The algorithm's test of one upload that fits the plan (e.g. a local-DP report's shape).
  using UploadCheck = std::function<absl::Status(const algorithms::ContributionVector&)>;

  // `cohort`: the invited participant ids; `check`: may be empty (no test beyond the plan's).
  ClearAggregation(v1::RoundPlan plan, const std::vector<uint32_t>& cohort, UploadCheck check = {});

  // Adds participant upload.participant_id()'s upload. NotFound for an id outside the cohort,
  // FailedPrecondition for a second upload or one after the participant was dropped,
  // InvalidArgument (wire::FromClearUpload, algorithms::CheckVector, the check) for a malformed
  // upload, a vector that does not fit the plan or one the check refuses: then the participant
  // is dropped (the round goes on without it). The sum is unchanged on error.
  absl::Status Accept(const v1::ClearUpload& upload);
  // The participant will not upload (disconnected); ignored for ids outside the cohort and
  // participants that uploaded. True if this dropped it now.
  bool MarkDropped(uint32_t participant_id);

  // Every invited participant uploaded or dropped.
  bool Complete() const { return received_.size() + dropped_.size() == cohort_.size(); }
  int64_t contributors() const { return static_cast<int64_t>(received_.size()); }
  // The participants whose upload is in the sum, ascending.
  std::vector<uint32_t> contributor_ids() const;
  const std::vector<uint64_t>& sum() const { return sum_; }

 private:
  v1::RoundPlan plan_;
  UploadCheck check_;
  absl::flat_hash_set<uint32_t> cohort_, received_, dropped_;
  std::vector<uint64_t> sum_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_CLEAR_AGGREGATION_H_
