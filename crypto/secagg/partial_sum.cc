#include "crypto/secagg/partial_sum.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"
#include "crypto/secagg/masked_input_check.h"

namespace fedmf::secagg {

absl::StatusOr<MaskedInputSummer> MaskedInputSummer::Create(int bits, size_t length) {
  absl::StatusOr<MaskAccumulator> sum = MaskAccumulator::Create(bits, length);
  if (!sum.ok()) return sum.status();
  return MaskedInputSummer(std::move(*sum));
}

absl::Status MaskedInputSummer::Add(uint32_t id, const fedmf::v1::secagg::MaskedInput& input,
                                    absl::Span<const uint32_t> relayed) {
  if (unusable_.contains(id)) {
    return absl::AlreadyExistsError(
        absl::StrFormat("the masked input of client %d is already in the sum", id));
  }
  const auto was_relayed = [relayed](uint32_t owner) {
    return std::binary_search(relayed.begin(), relayed.end(), owner);
  };
  if (absl::Status s = AddMaskedInput(input, was_relayed, sum_); !s.ok()) return s;
  unusable_[id].assign(input.unusable_shares_from().begin(), input.unusable_shares_from().end());
  return absl::OkStatus();
}

absl::StatusOr<PartialSum> MaskedInputSummer::Partial() const {
  if (unusable_.empty()) {
    return absl::FailedPreconditionError("no masked input was added: there is no partial sum");
  }
  absl::StatusOr<std::string> packed = sum_.Pack();
  if (!packed.ok()) return packed.status();
  PartialSum partial;
  partial.packed = std::move(*packed);
  partial.members.reserve(unusable_.size());
  for (const auto& [id, unusable] : unusable_) partial.members.push_back({id, unusable});
  return partial;
}

}  // namespace fedmf::secagg
