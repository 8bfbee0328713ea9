// A front's part of one aggregation's MaskedInput stage (docs/scale-out.md, section 5): which of
// its members were asked for their masked input and which senders' shares were relayed to each,
// the sum of the inputs that pass the session's own check (secagg::MaskedInputSummer), and the
// order rule: once a member's input is in the sum, its later messages and its drop wait until the
// partial sum has gone, so the combiner sees them in the order the single coordinator would.
// The partial is due once every member asked has answered or dropped, or at Seal; after it, a
// masked input is late. Everything else the front relays as it comes. Not thread-safe.
#ifndef FEDMF_SERVER_FRONT_AGGREGATION_H_
#define FEDMF_SERVER_FRONT_AGGREGATION_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "crypto/secagg/partial_sum.h"
#include "fedmf/v1/federation.pb.h"
#include "fedmf/v1/replica.pb.h"
#include "fedmf/v1/secagg_params.pb.h"
#include "wire/envelope.h"

namespace fedmf::server {

class FrontAggregation {
 public:
  // For aggregation `tag`, whose task's `params` give the vectors' bits and length;
  // MaskedInputSummer's errors.
  static absl::StatusOr<FrontAggregation> Create(wire::AggregationTag tag,
                                                 const v1::SecAggParams& params);

  const wire::AggregationTag& tag() const { return tag_; }

  // A MaskedInputRequest went to member `id`: it owes its input, and may list as unusable only
  // the senders of `request`'s shares.
  void Requested(uint32_t id, const v1::secagg::MaskedInputRequest& request);

  enum class Verdict {
    kRelay,     // send it on to the combiner now
    kSummed,    // its masked input is in the sum: nothing to send
    kRejected,  // its masked input failed the check (reason): Abort the device, tell the combiner
    kHeld,      // it waits for the partial (Seal returns it)
    kLate,      // a masked input after the partial: dropped
  };
  struct Outcome {
    Verdict verdict;
    std::string reason;  // kRejected only
  };
  // What becomes of a member's message of this aggregation.
  Outcome Accept(const v1::ParticipantToServer& message);
  // Member `id` is gone: kHeld while its input is in a partial not yet sent, else kRelay (and a
  // member that owed its input owes nothing more).
  Verdict Drop(uint32_t id);

  // Every member asked has answered or dropped, and the partial has not gone.
  bool Due() const { return !sealed_ && !requested_.empty() && awaiting_.empty(); }
  // Whether the partial has gone.
  bool sealed() const { return sealed_; }

  struct Sealed {
    v1::PartialSum partial;               // no members: none passed the check
    std::vector<v1::Relayed::Item> held;  // to relay after it, in arrival order
  };
  // Ends the stage at the front (once; the next call returns nothing held and an empty partial).
  Sealed Seal();

 private:
  FrontAggregation(wire::AggregationTag tag, secagg::MaskedInputSummer summer)
      : tag_(tag), summer_(std::move(summer)) {}

  wire::AggregationTag tag_;
  secagg::MaskedInputSummer summer_;
  std::map<uint32_t, std::vector<uint32_t>> requested_;  // member -> relayed senders, ascending
  std::set<uint32_t> awaiting_;                          // asked, neither answered nor dropped
  std::set<uint32_t> summed_;                            // whose input is in the sum
  std::vector<v1::Relayed::Item> held_;
  bool sealed_ = false;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_FRONT_AGGREGATION_H_
