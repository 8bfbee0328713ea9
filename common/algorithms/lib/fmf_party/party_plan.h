// The rounds of a cross-silo FMF run on the runtime (VFL-SGDMF, HFL-SGDMF): every round is phase
// 0 and every sum holds all s parties (min = max contributors = s: the sum is a weighted average
// over the parties, or the parties' summed test errors), in the round's fixed-point codec. The
// coordinator builds each plan's shape, every party checks it, and the coordinator decodes the
// sum with the same checks.
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_PARTY_PLAN_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_PARTY_PLAN_H_

#include <cstdint>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/algorithms/lib/fmf_party/fixed_point_codec.h"
#include "fedmf/v1/algorithm.pb.h"

namespace fedmf::algorithms::fmf_party {

struct RoundShape {
  int64_t round = 0;
  int64_t total_rounds = 0;  // round may be total_rounds: the plan after the run
  uint64_t length = 0;       // values in the sum
  Codec codec;
  bool secure_sum = true;
  int32_t parties = 0;  // s
};

// The plan without its payload: algorithm, round, phase 0, length, bits = client_bits,
// combination and min = max contributors = s. InvalidArgument for a round outside
// [0, total_rounds].
absl::StatusOr<v1::RoundPlan> PlanShape(absl::string_view algorithm, const RoundShape& shape);

// OK iff `plan` has exactly `want`'s fields (everything but the algorithm and the payload);
// InvalidArgument naming the first field that differs.
absl::Status CheckPlanShape(absl::string_view algorithm, const v1::RoundPlan& want,
                            const v1::RoundPlan& plan);

// The real sum of a round of shape `shape`: InvalidArgument for a sum of another length or of
// other than s contributors, OutOfRange when a coordinate may have wrapped.
absl::StatusOr<Eigen::VectorXd> DecodeRoundSum(absl::string_view algorithm, const RoundShape& shape,
                                               absl::Span<const uint64_t> sum,
                                               absl::Span<const uint32_t> contributors);

}  // namespace fedmf::algorithms::fmf_party

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_PARTY_PLAN_H_
