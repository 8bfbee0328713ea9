#include "common/algorithms/algorithm.h"

#include "absl/strings/str_cat.h"

namespace fedmf::algorithms {

absl::Status AddModPow2(absl::Span<const uint64_t> vector, int bits, absl::Span<uint64_t> sum) {
  if (bits < 1 || bits > 62) {
    return absl::InvalidArgumentError(absl::StrCat("AddModPow2: bits=", bits, " not in [1, 62]"));
  }
  if (vector.size() != sum.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("AddModPow2: vector has ", vector.size(), " values, sum has ", sum.size()));
  }
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  for (size_t j = 0; j < vector.size(); ++j) {
    if (vector[j] > mask) {
      return absl::InvalidArgumentError(
          absl::StrCat("AddModPow2: value ", j, " = ", vector[j], " is not below 2^", bits));
    }
    sum[j] = (sum[j] + vector[j]) & mask;
  }
  return absl::OkStatus();
}

absl::Status CheckVector(const v1::RoundPlan& plan, absl::Span<const uint64_t> vector) {
  if (vector.size() != plan.length()) {
    return absl::InvalidArgumentError(
        absl::StrCat("vector has ", vector.size(), " values, round plan expects ", plan.length()));
  }
  if (plan.client_bits() < 1 || plan.client_bits() > 62) {
    return absl::InvalidArgumentError(
        absl::StrCat("round plan: client_bits=", plan.client_bits(), " not in [1, 62]"));
  }
  const uint64_t limit = uint64_t{1} << plan.client_bits();
  for (size_t j = 0; j < vector.size(); ++j) {
    if (vector[j] >= limit) {
      return absl::InvalidArgumentError(absl::StrCat("vector value ", j, " = ", vector[j],
                                                     " is not below 2^", plan.client_bits()));
    }
  }
  return absl::OkStatus();
}

}  // namespace fedmf::algorithms
