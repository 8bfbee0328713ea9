// A client's contribution: a vector in Z_{2^client_bits}^length, dense (all `length` values) or
// sparse (strictly increasing indices < length, one value each, every other coordinate zero), and
// the runtime's clear combination of such vectors into a dense sum mod 2^bits, whose cost is
// proportional to the values a vector stores. The length and client_bits come from the round's
// plan; every function here checks its input and never aborts on it (it may come from the network).
#ifndef FEDMF_COMMON_ALGORITHMS_CONTRIBUTION_VECTOR_H_
#define FEDMF_COMMON_ALGORITHMS_CONTRIBUTION_VECTOR_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "fedmf/v1/algorithm.pb.h"

namespace fedmf::algorithms {

class ContributionVector {
 public:
  // Dense and empty.
  ContributionVector() = default;
  // Value j at coordinate j.
  static ContributionVector Dense(std::vector<uint64_t> values);
  // values[i] at coordinate indices[i], zero elsewhere. Unchecked here: Check, Densify and
  // AddModPow2 refuse a malformed one.
  static ContributionVector Sparse(std::vector<uint64_t> indices, std::vector<uint64_t> values);

  bool is_sparse() const { return sparse_; }
  // The coordinates of values() (sparse); empty for a dense vector.
  const std::vector<uint64_t>& indices() const { return indices_; }
  // Every coordinate's value (dense), or the value at each of indices() (sparse).
  const std::vector<uint64_t>& values() const { return values_; }

  // OK iff the vector has `length` coordinates in Z_{2^client_bits}: dense, exactly `length`
  // values; sparse, as many indices as values, strictly increasing and below `length`. Every
  // value < 2^client_bits, client_bits in [1, 62]. InvalidArgument naming the first offending
  // index or value otherwise.
  absl::Status Check(uint64_t length, int client_bits) const;

  // The `length` values, zero where a sparse vector stores none. InvalidArgument when the vector
  // does not have `length` coordinates (Check's conditions without the value bound).
  absl::StatusOr<std::vector<uint64_t>> Densify(uint64_t length) const;

  friend bool operator==(const ContributionVector&, const ContributionVector&) = default;

 private:
  ContributionVector(bool sparse, std::vector<uint64_t> indices, std::vector<uint64_t> values)
      : sparse_(sparse), indices_(std::move(indices)), values_(std::move(values)) {}

  bool sparse_ = false;
  std::vector<uint64_t> indices_;
  std::vector<uint64_t> values_;
};

// The runtime's clear-text (and in-process) combination: sum[j] = (sum[j] + vector[j]) mod
// 2^bits. Error on a length mismatch, bits outside [1, 62] or a value >= 2^bits.
absl::Status AddModPow2(absl::Span<const uint64_t> vector, int bits, absl::Span<uint64_t> sum);

// The same for a dense or sparse vector of sum.size() coordinates; a sparse one costs time
// proportional to its values, not to sum.size(). InvalidArgument as Check(sum.size(), bits);
// the sum is unchanged then.
absl::Status AddModPow2(const ContributionVector& vector, int bits, absl::Span<uint64_t> sum);

// Checks that a vector fits `plan` (vector.Check(plan.length, plan.client_bits)): what a server
// does with a clear upload before adding it.
absl::Status CheckVector(const v1::RoundPlan& plan, const ContributionVector& vector);

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_CONTRIBUTION_VECTOR_H_
