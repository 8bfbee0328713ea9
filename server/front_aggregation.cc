#include "server/front_aggregation.h"

#include <algorithm>
#include <utility>

namespace fedmf::server {

absl::StatusOr<FrontAggregation> FrontAggregation::Create(wire::AggregationTag tag,
                                                          const v1::SecAggParams& params) {
  absl::StatusOr<secagg::MaskedInputSummer> summer =
      secagg::MaskedInputSummer::Create(params.bits(), static_cast<size_t>(params.length()));
  if (!summer.ok()) return summer.status();
  return FrontAggregation(tag, *std::move(summer));
}

void FrontAggregation::Requested(uint32_t id, const v1::secagg::MaskedInputRequest& request) {
  std::vector<uint32_t> senders;
  senders.reserve(request.shares_size());
  for (const v1::secagg::EncryptedShares& shares : request.shares()) {
    senders.push_back(shares.peer_id());
  }
  std::sort(senders.begin(), senders.end());
  requested_[id] = std::move(senders);
  if (!sealed_) awaiting_.insert(id);
}

FrontAggregation::Outcome FrontAggregation::Accept(const v1::ParticipantToServer& message) {
  const uint32_t id = message.participant_id();
  if (summed_.contains(id) && !sealed_) {
    v1::Relayed::Item item;
    *item.mutable_secagg() = message;
    held_.push_back(std::move(item));
    return {.verdict = Verdict::kHeld, .reason = ""};
  }
  const auto request = requested_.find(id);
  if (!message.message().has_masked_input() || request == requested_.end()) {
    return {.verdict = Verdict::kRelay, .reason = ""};  // the session judges it
  }
  if (sealed_) return {.verdict = Verdict::kLate, .reason = ""};
  if (!awaiting_.contains(id)) return {.verdict = Verdict::kRelay, .reason = ""};
  const absl::Status added = summer_.Add(id, message.message().masked_input(), request->second);
  awaiting_.erase(id);
  if (!added.ok()) return {.verdict = Verdict::kRejected, .reason = std::string(added.message())};
  summed_.insert(id);
  return {.verdict = Verdict::kSummed, .reason = ""};
}

FrontAggregation::Verdict FrontAggregation::Drop(uint32_t id) {
  awaiting_.erase(id);
  if (!summed_.contains(id) || sealed_) return Verdict::kRelay;
  v1::Relayed::Item item;
  item.set_dropped(id);
  held_.push_back(std::move(item));
  return Verdict::kHeld;
}

FrontAggregation::Sealed FrontAggregation::Seal() {
  Sealed sealed;
  sealed.partial.set_round(tag_.round);
  sealed.partial.set_phase(tag_.phase);
  if (sealed_) return sealed;
  sealed_ = true;
  awaiting_.clear();
  if (absl::StatusOr<secagg::PartialSum> sum = summer_.Partial(); sum.ok()) {
    for (const secagg::PartialSum::Member& member : sum->members) {
      v1::PartialSum::Member& out = *sealed.partial.add_members();
      out.set_id(member.id);
      out.mutable_unusable_shares_from()->Add(member.unusable_shares_from.begin(),
                                              member.unusable_shares_from.end());
    }
    sealed.partial.set_packed(std::move(sum->packed));
  }
  sealed.held = std::move(held_);
  held_.clear();
  return sealed;
}

}  // namespace fedmf::server
