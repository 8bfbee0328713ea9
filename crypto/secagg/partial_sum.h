// A front's part of the MaskedInput stage (docs/scale-out.md, section 5): the sum mod 2^b of its
// members' masked inputs with their ids and unusable_shares_from lists, which
// ServerSession::AcceptMaskedInputSum takes in place of those members' MaskedInput messages. Each
// input passes the session's own check (AddMaskedInput) before it is added, so a rejected one
// never touches the sum; addition mod 2^b commutes, so the session's result is the same bits as
// when every input arrives alone. Not thread-safe.
#ifndef FEDMF_CRYPTO_SECAGG_PARTIAL_SUM_H_
#define FEDMF_CRYPTO_SECAGG_PARTIAL_SUM_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "crypto/secagg/mask_accumulator.h"
#include "fedmf/v1/secagg.pb.h"

namespace fedmf::secagg {

struct PartialSum {
  struct Member {
    uint32_t id = 0;
    std::vector<uint32_t> unusable_shares_from;  // as in its MaskedInput: ascending
  };
  std::vector<Member> members;  // ascending id
  std::string packed;           // the sum of their masked inputs, packed as one (vector_codec.h)
};

class MaskedInputSummer {
 public:
  // An empty sum of `length` values of `bits` bits (the session's config); MaskAccumulator's
  // errors.
  static absl::StatusOr<MaskedInputSummer> Create(int bits, size_t length);

  // Adds member `id`'s masked input. `relayed` lists, ascending, the senders whose shares were
  // relayed to it in its MaskedInputRequest. kInvalidArgument with the reason the session would
  // drop it for when the input fails the check, kAlreadyExists when `id`'s input is already in;
  // the sum is then unchanged.
  absl::Status Add(uint32_t id, const fedmf::v1::secagg::MaskedInput& input,
                   absl::Span<const uint32_t> relayed);

  // The members added so far and their sum. kFailedPrecondition when there are none: the session
  // refuses a partial sum without members, so a front whose members all failed sends none.
  absl::StatusOr<PartialSum> Partial() const;

 private:
  explicit MaskedInputSummer(MaskAccumulator sum) : sum_(std::move(sum)) {}

  MaskAccumulator sum_;
  std::map<uint32_t, std::vector<uint32_t>> unusable_;  // by member id: its unusable list
};

}  // namespace fedmf::secagg

#endif  // FEDMF_CRYPTO_SECAGG_PARTIAL_SUM_H_
