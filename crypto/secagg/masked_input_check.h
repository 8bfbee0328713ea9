// The one check a server applies to a client's MaskedInput before adding it to a sum, shared by
// ServerSession (the inputs it receives) and MaskedInputSummer (a front summing its members'): the
// packed vector is d values of b bits with zero padding (vector_codec.h), and
// unusable_shares_from is strictly ascending and names only clients whose shares the server
// relayed to the sender in its MaskedInputRequest. A rejected input leaves the sum untouched.
#ifndef FEDMF_CRYPTO_SECAGG_MASKED_INPUT_CHECK_H_
#define FEDMF_CRYPTO_SECAGG_MASKED_INPUT_CHECK_H_

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "crypto/secagg/mask_accumulator.h"
#include "fedmf/v1/secagg.pb.h"

namespace fedmf::secagg {

// True iff the server relayed the shares of client `owner` to the input's sender: `owner` is in
// N(sender) \ {sender} and shared keys (ShareKeys fixed that set).
using RelayedTo = absl::FunctionRef<bool(uint32_t owner)>;

// OK iff `unusable` (a sender's unusable_shares_from) is strictly ascending and every id in it
// is `relayed`; kInvalidArgument naming the first offending entry otherwise.
absl::Status CheckUnusableSharesFrom(absl::Span<const uint32_t> unusable, RelayedTo relayed);

// Adds `input`'s packed vector to `sum` if its unusable_shares_from passes
// CheckUnusableSharesFrom and the vector fits sum's bits and length (MaskAccumulator::AddPacked);
// otherwise kInvalidArgument with the reason and `sum` unchanged.
absl::Status AddMaskedInput(const fedmf::v1::secagg::MaskedInput& input, RelayedTo relayed,
                            MaskAccumulator& sum);

}  // namespace fedmf::secagg

#endif  // FEDMF_CRYPTO_SECAGG_MASKED_INPUT_CHECK_H_
