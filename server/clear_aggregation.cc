#include "server/clear_aggregation.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "common/algorithms/contribution_vector.h"
#include "wire/clear_upload.h"

namespace fedmf::server {

ClearAggregation::ClearAggregation(v1::RoundPlan plan, const std::vector<uint32_t>& cohort,
                                   UploadCheck check)
    : plan_(std::move(plan)),
      check_(std::move(check)),
      cohort_(cohort.begin(), cohort.end()),
      sum_(static_cast<size_t>(plan_.length()), 0) {}

absl::Status ClearAggregation::Accept(const v1::ClearUpload& upload) {
  const uint32_t participant_id = upload.participant_id();
  if (!cohort_.contains(participant_id)) {
    return absl::NotFoundError(
        absl::StrCat("participant ", participant_id, " is not in the cohort"));
  }
  if (received_.contains(participant_id) || dropped_.contains(participant_id)) {
    return absl::FailedPreconditionError(
        absl::StrCat("participant ", participant_id, " already uploaded or was dropped"));
  }
  // A malformed or refused upload is that participant's dropout: nobody waits for it.
  const auto refuse = [&](absl::Status status) {
    dropped_.insert(participant_id);
    return status;
  };
  absl::StatusOr<algorithms::ContributionVector> vector = wire::FromClearUpload(upload);
  if (!vector.ok()) return refuse(vector.status());
  if (absl::Status s = algorithms::CheckVector(plan_, *vector); !s.ok()) return refuse(s);
  if (check_) {
    if (absl::Status s = check_(*vector); !s.ok()) return refuse(s);
  }
  if (absl::Status s = algorithms::AddModPow2(*vector, plan_.bits(), absl::MakeSpan(sum_));
      !s.ok()) {
    return refuse(s);
  }
  received_.insert(participant_id);
  return absl::OkStatus();
}

bool ClearAggregation::MarkDropped(uint32_t participant_id) {
  if (!cohort_.contains(participant_id) || received_.contains(participant_id)) return false;
  return dropped_.insert(participant_id).second;
}

std::vector<uint32_t> ClearAggregation::contributor_ids() const {
  std::vector<uint32_t> ids(received_.begin(), received_.end());
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace fedmf::server
