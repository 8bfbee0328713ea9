// The participant envelope: a SecAgg message routed between the coordinator and one participant,
// tagged with the aggregation it belongs to, so a late message of an earlier aggregation is
// discarded instead of disturbing the current one. The one place both ends build and read it.
#ifndef FEDMF_WIRE_ENVELOPE_H_
#define FEDMF_WIRE_ENVELOPE_H_

#include <cstdint>

#include "crypto/secagg/signing_directory.h"
#include "fedmf/v1/federation.pb.h"
#include "fedmf/v1/secagg.pb.h"

namespace fedmf::wire {

// The phase of the federated evaluation of the model after `round` training rounds (the
// RoundPlan.phase of its federated-evaluation plan): it runs before that round's training phases
// (0, 1, ...).
inline constexpr int32_t kEvaluationPhase = -1;

// Which aggregation of the run a routed message belongs to.
struct AggregationTag {
  int64_t round = 0;  // the round index (an evaluation: training rounds completed)
  int32_t phase = 0;  // RoundPlan.phase, or kEvaluationPhase

  bool evaluation() const { return phase == kEvaluationPhase; }
  friend bool operator==(const AggregationTag&, const AggregationTag&) = default;
};

AggregationTag TagOf(const v1::ParticipantToServer& message);
AggregationTag TagOf(const v1::ServerToParticipant& message);

// Coordinator -> participant `participant_id`. With `signing_keys` (a signed session's directory),
// a ShareKeysRequest carries the keys of the members it lists, and only theirs: a process learns
// the keys, and so the grouping into processes, of its participants' neighbors alone.
v1::ServerMessage ToParticipant(const AggregationTag& tag, uint32_t participant_id,
                                v1::secagg::ServerToClient message,
                                const secagg::SigningKeyDirectory* signing_keys = nullptr);
// Participant `participant_id` -> coordinator.
v1::ClientMessage FromParticipant(const AggregationTag& tag, uint32_t participant_id,
                                  v1::secagg::ClientToServer message);

}  // namespace fedmf::wire

#endif  // FEDMF_WIRE_ENVELOPE_H_
