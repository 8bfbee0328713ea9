// Conversion between a contribution vector (algorithms::ContributionVector, dense or sparse) and
// its wire form in a clear upload (fedmf.v1.ClearUpload), shared by the client core, which sends
// it, and the coordinator, which reads it. Reading checks only what the wire form itself can get
// wrong; the vector is checked against the round's plan by algorithms::CheckVector.
#ifndef FEDMF_WIRE_CLEAR_UPLOAD_H_
#define FEDMF_WIRE_CLEAR_UPLOAD_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/algorithms/contribution_vector.h"
#include "fedmf/v1/federation.pb.h"
#include "wire/envelope.h"

namespace fedmf::wire {

// Participant `participant_id`'s upload of `vector` in aggregation `tag`: sparse with indices for a
// sparse vector, dense (values only) otherwise.
v1::ClearUpload ToClearUpload(const AggregationTag& tag, uint32_t participant_id,
                              const algorithms::ContributionVector& vector);

// The vector `upload` carries. InvalidArgument for a dense upload with indices.
absl::StatusOr<algorithms::ContributionVector> FromClearUpload(const v1::ClearUpload& upload);

}  // namespace fedmf::wire

#endif  // FEDMF_WIRE_CLEAR_UPLOAD_H_
