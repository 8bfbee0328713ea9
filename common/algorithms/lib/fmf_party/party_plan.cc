#include "common/algorithms/lib/fmf_party/party_plan.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/algorithms/plan_check.h"

namespace fedmf::algorithms::fmf_party {

absl::StatusOr<v1::RoundPlan> PlanShape(absl::string_view algorithm, const RoundShape& shape) {
  if (shape.round < 0 || shape.round > shape.total_rounds) {
    return absl::InvalidArgumentError(
        absl::StrCat(algorithm, ": round ", shape.round, " outside [0, ", shape.total_rounds, "]"));
  }
  v1::RoundPlan plan;
  plan.set_algorithm(std::string(algorithm));
  plan.set_round(shape.round);
  plan.set_phase(0);
  plan.set_length(shape.length);
  plan.set_bits(shape.codec.bits);
  plan.set_client_bits(shape.codec.bits);
  plan.set_combination(shape.secure_sum ? v1::COMBINATION_SECURE_SUM : v1::COMBINATION_CLEAR);
  plan.set_min_contributors(shape.parties);
  plan.set_max_contributors(shape.parties);
  return plan;
}

absl::Status CheckPlanShape(absl::string_view algorithm, const v1::RoundPlan& want,
                            const v1::RoundPlan& plan) {
  return CheckPlanEnvelope(plan, algorithm,
                           {.round = want.round(),
                            .phase = want.phase(),
                            .length = static_cast<int64_t>(want.length()),
                            .bits = want.bits(),
                            .client_bits = want.client_bits(),
                            .combination = want.combination(),
                            .min_contributors_at_least = want.min_contributors(),
                            .max_contributors_at_most = want.max_contributors()});
}

absl::StatusOr<Eigen::VectorXd> DecodeRoundSum(absl::string_view algorithm, const RoundShape& shape,
                                               absl::Span<const uint64_t> sum,
                                               absl::Span<const uint32_t> contributors) {
  if (sum.size() != shape.length) {
    return absl::InvalidArgumentError(absl::StrCat(algorithm, " round ", shape.round,
                                                   ": sum of length ", sum.size(), ", expected ",
                                                   shape.length));
  }
  if (static_cast<int64_t>(contributors.size()) != shape.parties) {
    return absl::InvalidArgumentError(
        absl::StrCat(algorithm, " round ", shape.round, ": a sum of ", contributors.size(),
                     " parties, the average needs all ", shape.parties));
  }
  return Decode(shape.codec, sum);
}

}  // namespace fedmf::algorithms::fmf_party
