#include "common/algorithms/plan_check.h"

namespace fedmf::algorithms {

absl::Status PlanMismatch(absl::string_view algorithm, absl::string_view field, int64_t plan,
                          int64_t expected) {
  return absl::InvalidArgumentError(
      absl::StrCat(algorithm, " round plan: ", field, "=", plan, ", expected ", expected));
}

absl::Status CheckPlanAlgorithm(const v1::RoundPlan& plan, absl::string_view algorithm) {
  if (plan.algorithm() == algorithm) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("round plan is for algorithm '", plan.algorithm(), "', not ", algorithm));
}

absl::Status CheckPlanEnvelope(const v1::RoundPlan& plan, absl::string_view algorithm,
                               const ExpectedPlan& expected) {
  const auto differs = [&](absl::string_view field, int64_t value, int64_t want) {
    return PlanMismatch(algorithm, field, value, want);
  };
  if (plan.round() != expected.round) return differs("round", plan.round(), expected.round);
  if (plan.phase() != expected.phase) return differs("phase", plan.phase(), expected.phase);
  const auto length = static_cast<int64_t>(plan.length());
  if (length != expected.length) return differs("length", length, expected.length);
  if (plan.bits() != expected.bits) return differs("bits", plan.bits(), expected.bits);
  const int32_t client_bits = expected.client_bits.value_or(expected.bits);
  if (plan.client_bits() != client_bits) {
    return differs("client_bits", plan.client_bits(), client_bits);
  }
  if (plan.combination() != expected.combination) {
    return differs("combination", plan.combination(), expected.combination);
  }
  if (expected.min_contributors_at_least &&
      plan.min_contributors() < *expected.min_contributors_at_least) {
    return absl::InvalidArgumentError(
        absl::StrCat(algorithm, " round plan: min_contributors=", plan.min_contributors(),
                     ", expected at least ", *expected.min_contributors_at_least));
  }
  if (expected.max_contributors_at_most &&
      plan.max_contributors() > *expected.max_contributors_at_most) {
    return absl::InvalidArgumentError(
        absl::StrCat(algorithm, " round plan: max_contributors=", plan.max_contributors(),
                     ", expected at most ", *expected.max_contributors_at_most));
  }
  return absl::OkStatus();
}

}  // namespace fedmf::algorithms
