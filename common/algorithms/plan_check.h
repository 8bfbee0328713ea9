// plan_check: a contributor's first step, checking that a round plan is the one its phase needs.
// Every error names the algorithm, the plan's field, the plan's value and the value expected, so a
// coordinator/client version skew or a corrupted plan is diagnosed from one log line.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "fedmf/v1/algorithm.pb.h"

namespace fedmf::algorithms {

// "<algorithm> round plan: <field>=<plan>, expected <expected>", an InvalidArgument.
absl::Status PlanMismatch(absl::string_view algorithm, absl::string_view field, int64_t plan,
                          int64_t expected);

// OK when the plan is for `algorithm`.
absl::Status CheckPlanAlgorithm(const v1::RoundPlan& plan, absl::string_view algorithm);

// The plan's payload parsed as a Broadcast message, once the plan is checked to be `algorithm`'s.
template <typename Broadcast>
absl::StatusOr<Broadcast> ParsePlanPayload(const v1::RoundPlan& plan, absl::string_view algorithm) {
  if (absl::Status s = CheckPlanAlgorithm(plan, algorithm); !s.ok()) return s;
  Broadcast broadcast;
  if (!broadcast.ParseFromString(plan.payload())) {
    return absl::InvalidArgumentError(
        absl::StrCat(algorithm, " round plan: payload is not a ", Broadcast::descriptor()->name()));
  }
  return broadcast;
}

// The envelope fields one phase fixes; bits also fixes client_bits unless client_bits is set.
// The contributor bounds are lower/upper limits, unchecked when unset: noise shares protect a
// user only in a sum of at least n_min, and b is sized so that no more than n_max vectors wrap.
struct ExpectedPlan {
  int64_t round = 0;
  int32_t phase = 0;
  int64_t length = 0;
  int32_t bits = 0;
  std::optional<int32_t> client_bits = std::nullopt;
  v1::Combination combination = v1::COMBINATION_SECURE_SUM;
  std::optional<int64_t> min_contributors_at_least = std::nullopt;
  std::optional<int64_t> max_contributors_at_most = std::nullopt;
};

// OK when every field of `expected` equals the plan's; else the first that differs, named.
absl::Status CheckPlanEnvelope(const v1::RoundPlan& plan, absl::string_view algorithm,
                               const ExpectedPlan& expected);

}  // namespace fedmf::algorithms
