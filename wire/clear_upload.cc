#include "wire/clear_upload.h"

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace fedmf::wire {

v1::ClearUpload ToClearUpload(const AggregationTag& tag, uint32_t participant_id,
                              const algorithms::ContributionVector& vector) {
  v1::ClearUpload upload;
  upload.set_participant_id(participant_id);
  upload.set_round(tag.round);
  upload.set_phase(tag.phase);
  upload.mutable_values()->Add(vector.values().begin(), vector.values().end());
  if (vector.is_sparse()) {
    upload.set_sparse(true);
    upload.mutable_indices()->Add(vector.indices().begin(), vector.indices().end());
  }
  return upload;
}

absl::StatusOr<algorithms::ContributionVector> FromClearUpload(const v1::ClearUpload& upload) {
  std::vector<uint64_t> values(upload.values().begin(), upload.values().end());
  if (upload.sparse()) {
    return algorithms::ContributionVector::Sparse(
        std::vector<uint64_t>(upload.indices().begin(), upload.indices().end()), std::move(values));
  }
  if (upload.indices_size() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dense clear upload carries ", upload.indices_size(), " indices (sparse is not set)"));
  }
  return algorithms::ContributionVector::Dense(std::move(values));
}

}  // namespace fedmf::wire
