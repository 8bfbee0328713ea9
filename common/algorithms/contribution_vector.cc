#include "common/algorithms/contribution_vector.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace fedmf::algorithms {
namespace {

absl::Status CheckBits(int bits) {
  if (bits < 1 || bits > 62) {
    return absl::InvalidArgumentError(absl::StrCat("bits=", bits, " not in [1, 62]"));
  }
  return absl::OkStatus();
}

// Check's conditions on the coordinates: a dense vector has `length` values; a sparse one has one
// index per value, strictly increasing, each below `length`.
absl::Status CheckShape(const ContributionVector& vector, uint64_t length) {
  const std::vector<uint64_t>& indices = vector.indices();
  const size_t values = vector.values().size();
  if (!vector.is_sparse()) {
    if (values == length) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("vector has ", values, " values, expected ", length));
  }
  if (indices.size() != values) {
    return absl::InvalidArgumentError(
        absl::StrCat("sparse vector has ", indices.size(), " indices but ", values, " values"));
  }
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] >= length) {
      return absl::InvalidArgumentError(
          absl::StrCat("sparse index ", i, " = ", indices[i], " is not below the length ", length));
    }
    if (i > 0 && indices[i] == indices[i - 1]) {
      return absl::InvalidArgumentError(
          absl::StrCat("sparse index ", i, " = ", indices[i], " repeats index ", i - 1));
    }
    if (i > 0 && indices[i] < indices[i - 1]) {
      return absl::InvalidArgumentError(absl::StrCat("sparse index ", i, " = ", indices[i],
                                                     " is below index ", i - 1, " = ",
                                                     indices[i - 1], ": indices must increase"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

ContributionVector ContributionVector::Dense(std::vector<uint64_t> values) {
  return ContributionVector(false, {}, std::move(values));
}

ContributionVector ContributionVector::Sparse(std::vector<uint64_t> indices,
                                              std::vector<uint64_t> values) {
  return ContributionVector(true, std::move(indices), std::move(values));
}

absl::Status ContributionVector::Check(uint64_t length, int client_bits) const {
  if (absl::Status s = CheckBits(client_bits); !s.ok()) return s;
  if (absl::Status s = CheckShape(*this, length); !s.ok()) return s;
  const uint64_t limit = uint64_t{1} << client_bits;
  for (size_t i = 0; i < values_.size(); ++i) {
    if (values_[i] >= limit) {
      return absl::InvalidArgumentError(
          sparse_ ? absl::StrCat("sparse value ", i, " (index ", indices_[i], ") = ", values_[i],
                                 " is not below 2^", client_bits)
                  : absl::StrCat("vector value ", i, " = ", values_[i], " is not below 2^",
                                 client_bits));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<uint64_t>> ContributionVector::Densify(uint64_t length) const {
  if (absl::Status s = CheckShape(*this, length); !s.ok()) return s;
  if (!sparse_) return values_;
  std::vector<uint64_t> dense(length, 0);
  for (size_t i = 0; i < indices_.size(); ++i) dense[indices_[i]] = values_[i];
  return dense;
}

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

absl::Status AddModPow2(const ContributionVector& vector, int bits, absl::Span<uint64_t> sum) {
  if (absl::Status s = vector.Check(sum.size(), bits); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("AddModPow2: ", s.message()));
  }
  if (!vector.is_sparse()) return AddModPow2(vector.values(), bits, sum);
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  const std::vector<uint64_t>& indices = vector.indices();
  const std::vector<uint64_t>& values = vector.values();
  for (size_t i = 0; i < indices.size(); ++i) {
    uint64_t& s = sum[indices[i]];
    s = (s + values[i]) & mask;
  }
  return absl::OkStatus();
}

absl::Status CheckVector(const v1::RoundPlan& plan, const ContributionVector& vector) {
  if (plan.client_bits() < 1 || plan.client_bits() > 62) {
    return absl::InvalidArgumentError(
        absl::StrCat("round plan: client_bits=", plan.client_bits(), " not in [1, 62]"));
  }
  return vector.Check(plan.length(), plan.client_bits());
}

}  // namespace fedmf::algorithms
