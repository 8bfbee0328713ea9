#include "wire/envelope.h"

#include <utility>
#include <vector>

#include "wire/secagg_params.h"

namespace fedmf::wire {
namespace {

template <typename Envelope>
void SetTag(const AggregationTag& tag, uint32_t participant_id, Envelope& envelope) {
  envelope.set_participant_id(participant_id);
  envelope.set_round(tag.round);
  envelope.set_phase(tag.phase);
}

}  // namespace

AggregationTag TagOf(const v1::ParticipantToServer& message) {
  return {message.round(), message.phase()};
}

AggregationTag TagOf(const v1::ServerToParticipant& message) {
  return {message.round(), message.phase()};
}

v1::ServerMessage ToParticipant(const AggregationTag& tag, uint32_t participant_id,
                                v1::secagg::ServerToClient message,
                                const secagg::SigningKeyDirectory* signing_keys) {
  v1::ServerMessage out;
  SetTag(tag, participant_id, *out.mutable_secagg());
  if (signing_keys != nullptr && message.has_share_keys()) {
    std::vector<uint32_t> listed;
    for (const v1::secagg::ClientKeys& c : message.share_keys().clients()) {
      listed.push_back(c.client_id());
    }
    *out.mutable_secagg()->mutable_signing_keys() = DirectoryToProto(*signing_keys, listed);
  }
  *out.mutable_secagg()->mutable_message() = std::move(message);
  return out;
}

v1::ClientMessage FromParticipant(const AggregationTag& tag, uint32_t participant_id,
                                  v1::secagg::ClientToServer message) {
  v1::ClientMessage out;
  SetTag(tag, participant_id, *out.mutable_secagg());
  *out.mutable_secagg()->mutable_message() = std::move(message);
  return out;
}

}  // namespace fedmf::wire
