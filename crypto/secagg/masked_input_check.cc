#include "crypto/secagg/masked_input_check.h"

#include "absl/strings/str_format.h"
#include "crypto/secagg/errors.h"
#include "crypto/secagg/vector_codec.h"

namespace fedmf::secagg {

absl::Status CheckUnusableSharesFrom(absl::Span<const uint32_t> unusable, RelayedTo relayed) {
  for (size_t i = 0; i < unusable.size(); ++i) {
    if (i > 0 && unusable[i] <= unusable[i - 1]) {
      return Invalid("unusable_shares_from not strictly ascending at %d", i);
    }
    if (!relayed(unusable[i])) {
      return Invalid("unusable_shares_from names client %d, which sent it no shares", unusable[i]);
    }
  }
  return absl::OkStatus();
}

absl::Status AddMaskedInput(const fedmf::v1::secagg::MaskedInput& input, RelayedTo relayed,
                            MaskAccumulator& sum) {
  if (absl::Status s = CheckUnusableSharesFrom(input.unusable_shares_from(), relayed); !s.ok()) {
    return s;
  }
  if (absl::Status s = sum.AddPacked(AsBytes(input.packed())); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrFormat("masked input: %s", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace fedmf::secagg
