#include "server/front_fleet.h"

#include <algorithm>
#include <utility>

#include "common/util/event_log.h"
#include "wire/envelope.h"

namespace fedmf::server {

FrontFleet::FrontFleet(std::mutex& mu, DeviceEvents& events, std::vector<Link> fronts, Clock& clock,
                       absl::Duration seal_timeout)
    : mu_(mu),
      events_(events),
      fronts_(std::move(fronts)),
      clock_(clock),
      seal_timeout_(seal_timeout) {}

void FrontFleet::Receive(size_t front, const v1::FrontMessage& message) {
  std::lock_guard<std::mutex> lock(mu_);
  if (lost_.contains(front)) return;
  bytes_in_ += static_cast<int64_t>(message.ByteSizeLong());
  switch (message.message_case()) {
    case v1::FrontMessage::kStreams:
      Changed(front, message.streams());
      break;
    case v1::FrontMessage::kRelayed:
      Relay(front, message.relayed());
      break;
    case v1::FrontMessage::kPartial:
      traffic_.AddUp(wire::Stage::kMaskedInput, static_cast<int64_t>(message.ByteSizeLong()));
      DeliverPartial(front, message.partial());
      break;
    case v1::FrontMessage::MESSAGE_NOT_SET:
      break;
  }
}

void FrontFleet::Lost(size_t front) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!lost_.insert(front).second) return;
  std::vector<uint32_t> gone;
  for (auto it = live_.begin(); it != live_.end();) {
    if (it->second.front == front) {
      gone.push_back(it->first);
      it = live_.erase(it);
    } else {
      ++it;
    }
  }
  int dropped = 0;
  for (uint32_t id : gone) {
    dropped += events_.Deliver(AggregationInbox::Dropped{.participant_id = id}) ? 1 : 0;
  }
  if (owing_.erase(front) > 0) settled_.notify_all();
  events_.StreamsChanged();
  EventLine("front_lost")
      .Add("front", front)
      .Add("users", gone.size())
      .Add("dropped_in_round", dropped);
}

void FrontFleet::Changed(size_t front, const v1::StreamsChanged& changed) {
  for (uint32_t id : changed.left()) {
    if (!MovedFrom(front, id)) live_.erase(id);
  }
  for (const v1::StreamsChanged::Joined& joined : changed.joined()) {
    live_[joined.participant_id()] = Live{.front = front, .signing_key = joined.signing_key()};
  }
  events_.StreamsChanged();
}

bool FrontFleet::MovedFrom(size_t front, uint32_t participant_id) const {
  const auto it = live_.find(participant_id);
  return it != live_.end() && it->second.front != front;
}

void FrontFleet::Relay(size_t front, const v1::Relayed& relayed) {
  for (const v1::Relayed::Item& item : relayed.items()) {
    switch (item.item_case()) {
      case v1::Relayed::Item::kSecagg:
        traffic_.AddUp(wire::StageOf(item.secagg()), static_cast<int64_t>(item.ByteSizeLong()));
        if (MovedFrom(front, item.secagg().participant_id())) break;
        events_.Deliver(AggregationInbox::SecAggMessage{
            .participant_id = item.secagg().participant_id(), .message = item.secagg()});
        break;
      case v1::Relayed::Item::kClearUpload:
        traffic_.AddUp(wire::Stage::kClearUpload, static_cast<int64_t>(item.ByteSizeLong()));
        if (MovedFrom(front, item.clear_upload().participant_id())) break;
        events_.Deliver(item.clear_upload());
        break;
      case v1::Relayed::Item::kDropped:
        if (MovedFrom(front, item.dropped())) break;
        events_.Deliver(AggregationInbox::Dropped{.participant_id = item.dropped()});
        break;
      case v1::Relayed::Item::kRejected:
        // The front sent the participant its Abort; for the aggregation it is gone, and the
        // reason is logged here as the single coordinator's aggregation logs its own.
        if (MovedFrom(front, item.rejected().participant_id())) break;
        EventLine("participant_rejected")
            .Add("participant", item.rejected().participant_id())
            .Add("front", front)
            .Add("reason", item.rejected().reason());
        events_.Deliver(
            AggregationInbox::Dropped{.participant_id = item.rejected().participant_id()});
        break;
      case v1::Relayed::Item::ITEM_NOT_SET:
        break;
    }
  }
}

void FrontFleet::DeliverPartial(size_t front, const v1::PartialSum& partial) {
  const wire::AggregationTag tag{.round = partial.round(), .phase = partial.phase()};
  if (tag == masked_input_tag_ && owing_.erase(front) > 0) settled_.notify_all();
  if (partial.members().empty()) return;  // the front has none
  AggregationInbox::PartialSum delivery{.tag = tag, .sum = {}};
  delivery.sum.packed = partial.packed();
  for (const v1::PartialSum::Member& member : partial.members()) {
    delivery.sum.members.push_back(
        secagg::PartialSum::Member{.id = member.id(),
                                   .unusable_shares_from = {member.unusable_shares_from().begin(),
                                                            member.unusable_shares_from().end()}});
  }
  events_.Deliver(std::move(delivery));
}

std::vector<uint32_t> FrontFleet::Open(const v1::RoundTask& task,
                                       const std::vector<uint32_t>& cohort) {
  traffic_.Reset();
  owing_.clear();  // a new aggregation: nothing is owed yet
  std::vector<v1::CombinerMessage> opens(fronts_.size());
  std::vector<uint32_t> unreachable;
  for (uint32_t id : cohort) {
    const auto it = live_.find(id);
    if (it == live_.end()) {
      unreachable.push_back(id);
      continue;
    }
    opens[it->second.front].mutable_open()->add_members(id);
  }
  for (size_t f = 0; f < fronts_.size(); ++f) {
    if (!opens[f].has_open()) continue;
    v1::RoundTask& front_task = *opens[f].mutable_open()->mutable_task();
    front_task = task;
    front_task.clear_participant_ids();
    const auto bytes = static_cast<int64_t>(opens[f].ByteSizeLong());
    traffic_.AddDown(wire::Stage::kTask, bytes);
    bytes_out_ += bytes;
    fronts_[f](std::move(opens[f]));
  }
  return unreachable;
}

std::vector<uint32_t> FrontFleet::Route(Aggregation::Envelopes envelopes) {
  std::vector<v1::CombinerMessage> routes(fronts_.size());
  std::vector<uint32_t> unreachable;
  for (Aggregation::Envelope& envelope : envelopes) {
    const auto it = live_.find(envelope.participant_id);
    if (it == live_.end()) {
      unreachable.push_back(envelope.participant_id);
      continue;
    }
    traffic_.AddDown(wire::StageOf(envelope.message),
                     static_cast<int64_t>(envelope.message.ByteSizeLong()));
    if (envelope.message.secagg().message().has_masked_input()) {
      const wire::AggregationTag tag = wire::TagOf(envelope.message.secagg());
      if (!(tag == masked_input_tag_)) owing_.clear();
      masked_input_tag_ = tag;
      owing_.insert(it->second.front);
    }
    v1::Route::Envelope& routed = *routes[it->second.front].mutable_route()->add_envelopes();
    routed.set_participant_id(envelope.participant_id);
    *routed.mutable_message() = std::move(envelope.message);
  }
  for (size_t f = 0; f < fronts_.size(); ++f) {
    if (!routes[f].has_route()) continue;
    bytes_out_ += static_cast<int64_t>(routes[f].ByteSizeLong());
    fronts_[f](std::move(routes[f]));
  }
  return unreachable;
}

std::vector<uint32_t> FrontFleet::LiveUsers() const {
  std::vector<uint32_t> users;
  users.reserve(live_.size());
  for (const auto& [id, live] : live_) users.push_back(id);
  return users;
}

std::string FrontFleet::SigningKeyOf(uint32_t participant_id) const {
  const auto it = live_.find(participant_id);
  return it == live_.end() ? std::string() : it->second.signing_key;
}

void FrontFleet::SendAll(const v1::CombinerMessage& message) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto bytes = static_cast<int64_t>(message.ByteSizeLong() * fronts_.size());
    if (message.has_result()) traffic_.AddDown(wire::Stage::kResult, bytes);
    bytes_out_ += bytes;
  }
  for (const Link& front : fronts_) front(message);
}

void FrontFleet::Broadcast(const v1::RoundResult& result) {
  v1::CombinerMessage message;
  *message.mutable_result() = result;
  SendAll(message);
}

int FrontFleet::CloseAll(const absl::Status& status) {
  v1::CombinerMessage message;
  message.mutable_close_all()->set_code(static_cast<int32_t>(status.code()));
  message.mutable_close_all()->set_message(std::string(status.message()));
  SendAll(message);
  return static_cast<int>(fronts_.size());
}

void FrontFleet::ReleaseRound() {
  v1::CombinerMessage message;
  message.mutable_release();
  SendAll(message);
}

void FrontFleet::SealStage(absl::Time deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  if (owing_.empty()) return;
  v1::CombinerMessage seal;
  seal.mutable_seal()->set_round(masked_input_tag_.round);
  seal.mutable_seal()->set_phase(masked_input_tag_.phase);
  for (size_t front : owing_) {
    bytes_out_ += static_cast<int64_t>(seal.ByteSizeLong());
    fronts_[front](seal);
  }
  const absl::Time until = std::max(deadline, clock_.Now()) + seal_timeout_;
  while (!owing_.empty() && clock_.Now() < until) clock_.WaitUntil(settled_, lock, until);
  owing_.clear();  // who did not answer in time owes nothing more
}

PhaseTransport::Traffic FrontFleet::CurrentTraffic() const {
  std::lock_guard<std::mutex> lock(mu_);
  return PhaseTransport::Traffic{.phase = traffic_, .bytes_in = bytes_in_, .bytes_out = bytes_out_};
}

void FrontFleet::AddTo(v1::StatusResponse& status) const {
  std::lock_guard<std::mutex> lock(mu_);
  status.set_registered_users(static_cast<int32_t>(live_.size()));
  status.set_bytes_in(bytes_in_);
  status.set_bytes_out(bytes_out_);
}

}  // namespace fedmf::server
