#include "server/front_fleet.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/util/event_log.h"
#include "server/stream_limits.h"
#include "wire/envelope.h"

namespace fedmf::server {
namespace {

v1::StoredModel StoredModelOf(const ModelStore::Published& published) {
  v1::StoredModel stored;
  *stored.mutable_version() = published.version;
  stored.set_model(published.model);
  return stored;
}

}  // namespace

FrontFleet::FrontFleet(std::mutex& mu, DeviceEvents& events, Clock& clock,
                       const CoordinatorOptions& options)
    : mu_(mu),
      events_(events),
      models_(options.models),
      clock_(clock),
      seal_timeout_(options.seal_timeout),
      num_users_(options.num_users),
      check_in_period_(options.check_in_period),
      check_in_window_(options.check_in_window),
      placement_(options.num_users) {
  placement_.set_max_streams_per_client(options.max_streams_per_client);
  if (models_ != nullptr) {
    models_->SetPublishListener(
        [this](const std::shared_ptr<const ModelStore::Published>& published) {
          v1::CombinerMessage message;
          *message.mutable_model() = StoredModelOf(*published);
          SendAll(message);
        });
  }
}

FrontFleet::~FrontFleet() {
  if (models_ != nullptr) models_->SetPublishListener({});
}

void FrontFleet::SetNumUsers(int64_t num_users) {
  std::lock_guard<std::mutex> lock(mu_);
  num_users_ = num_users;
  training_done_ = false;  // a service's next run
  placement_.set_num_users(num_users);
  v1::CombinerMessage welcome;
  *welcome.mutable_welcome() = WelcomeUnderLock();
  for (size_t front = 0; front < fronts_.size(); ++front) {
    SendTo(front, welcome);
  }
}

size_t FrontFleet::Attach(Link link, std::string name) {
  // The models are copied outside the lock (they can be megabytes); one published meanwhile,
  // whose SendAll may have missed this front, is added under it.
  v1::CombinerMessage welcome;
  int64_t newest = 0;
  const auto add_models_after = [&] {
    if (models_ == nullptr) return;
    for (const std::shared_ptr<const ModelStore::Published>& published : models_->Kept()) {
      if (published->version.version() <= newest) continue;
      *welcome.mutable_welcome()->add_models() = StoredModelOf(*published);
      newest = published->version.version();
    }
  };
  add_models_after();
  std::lock_guard<std::mutex> lock(mu_);
  add_models_after();
  const size_t front = fronts_.size();
  fronts_.push_back(Attached{.link = std::move(link), .status = {}});
  fronts_[front].status.set_index(static_cast<int64_t>(front));
  fronts_[front].status.set_name(std::move(name));
  welcome.mutable_welcome()->MergeFrom(WelcomeUnderLock());
  SendTo(front, std::move(welcome));
  return front;
}

v1::Welcome FrontFleet::WelcomeUnderLock() const {
  v1::Welcome welcome;
  welcome.set_num_users(num_users_);
  welcome.set_training_done(training_done_);
  welcome.set_check_in_period_s(absl::ToDoubleSeconds(check_in_period_));
  welcome.set_check_in_window_s(absl::ToDoubleSeconds(check_in_window_));
  return welcome;
}

FrontFleet::Link FrontFleet::CountSent(size_t front, const v1::CombinerMessage& message) {
  Attached& attached = fronts_[front];
  if (!attached.link) return {};
  const auto bytes = static_cast<int64_t>(message.ByteSizeLong());
  bytes_out_ += bytes;
  attached.status.set_link_bytes_out(attached.status.link_bytes_out() + bytes);
  return attached.link;
}

void FrontFleet::SendTo(size_t front, v1::CombinerMessage message) {
  if (Link link = CountSent(front, message)) link(std::move(message));
}

void FrontFleet::Receive(size_t front, const v1::FrontMessage& message) {
  std::lock_guard<std::mutex> lock(mu_);
  if (front >= fronts_.size() || lost_.contains(front)) return;
  const auto bytes = static_cast<int64_t>(message.ByteSizeLong());
  bytes_in_ += bytes;
  v1::FrontStatus& status = fronts_[front].status;
  status.set_link_bytes_in(status.link_bytes_in() + bytes);
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
    case v1::FrontMessage::kStats: {
      v1::FrontStatus reported = message.stats();
      reported.set_index(status.index());
      reported.set_name(status.name());
      reported.set_link_bytes_in(status.link_bytes_in());
      reported.set_link_bytes_out(status.link_bytes_out());
      status = std::move(reported);
      break;
    }
    case v1::FrontMessage::kReleased:
      if (releasing_.erase(front) > 0) settled_.notify_all();
      break;
    case v1::FrontMessage::kHello:  // the link's, which logs it
    case v1::FrontMessage::MESSAGE_NOT_SET:
      break;
  }
}

void FrontFleet::Lost(size_t front) {
  std::lock_guard<std::mutex> lock(mu_);
  if (front >= fronts_.size() || !lost_.insert(front).second) return;
  fronts_[front].link = nullptr;  // what its link held goes with it
  std::vector<uint32_t> gone;
  for (auto it = streams_.lower_bound({front, 0}); it != streams_.end() && it->first.first == front;
       it = streams_.erase(it)) {
    for (uint32_t id : placement_.Unbind(it->second.get())) gone.push_back(id);
    where_.erase(it->second.get());
  }
  int dropped = 0;
  for (uint32_t id : gone) {
    dropped += events_.Deliver(AggregationInbox::Dropped{.participant_id = id}) ? 1 : 0;
  }
  if (owing_.erase(front) + releasing_.erase(front) > 0) settled_.notify_all();
  events_.StreamsChanged();
  EventLine("front_lost")
      .Add("front", front)
      .Add("users", gone.size())
      .Add("dropped_in_round", dropped);
}

void FrontFleet::Changed(size_t front, const v1::StreamsChanged& changed) {
  for (uint64_t stream : changed.closed()) {
    const auto it = streams_.find({front, stream});
    if (it == streams_.end()) continue;  // refused, or taken over by another front's stream
    placement_.Unbind(it->second.get());
    where_.erase(it->second.get());
    streams_.erase(it);
  }
  std::map<size_t, v1::CombinerMessage> ends;  // by front
  auto end = [&ends](size_t to, uint64_t stream, const absl::Status& status) {
    v1::EndStreams::End& e = *ends[to].mutable_end_streams()->add_streams();
    e.set_stream(stream);
    e.set_code(static_cast<int32_t>(status.code()));
    e.set_message(std::string(status.message()));
  };
  for (const v1::StreamsChanged::Bound& bound : changed.bound()) {
    // The front's stream as the Placement sees it: a Connection that only names it.
    auto proxy = std::make_shared<Connection>(
        next_proxy_id_++, absl::StrCat("front ", front, " stream ", bound.stream()), nullptr,
        StreamLimits().max_queued_bytes, bound.identity());
    absl::StatusOr<Placement::Takeover> takeover = placement_.Bind(
        Registration{
            .name = bound.name(),
            .identity = bound.identity(),
            .credential = bound.credential(),
            .signing_key = bound.signing_key(),
            .participant_ids = {bound.participant_ids().begin(), bound.participant_ids().end()},
            .accepts_check_in = bound.accepts_check_in()},
        proxy);
    if (!takeover.ok()) {
      end(front, bound.stream(), takeover.status());
      continue;
    }
    where_.emplace(proxy.get(), RemoteStream{front, bound.stream()});
    streams_.emplace(RemoteStream{front, bound.stream()}, std::move(proxy));
    for (const std::shared_ptr<Connection>& old : takeover->streams) {
      const RemoteStream replaced = where_.at(old.get());
      end(replaced.first, replaced.second,
          absl::FailedPreconditionError("replaced by a newer stream of the same credential"));
      where_.erase(old.get());
      streams_.erase(replaced);
    }
    // As in one process: they stay, on the new stream, but missed what the round sent them on
    // the old one.
    for (uint32_t id : takeover->participant_ids) {
      events_.Deliver(AggregationInbox::Dropped{.participant_id = id});
    }
  }
  for (auto& [to, message] : ends) SendTo(to, std::move(message));
  events_.StreamsChanged();
}

bool FrontFleet::MovedFrom(size_t front, uint32_t participant_id) const {
  const std::optional<size_t> live_on = FrontOf(participant_id);
  return live_on.has_value() && *live_on != front;
}

std::optional<size_t> FrontFleet::FrontOf(uint32_t participant_id) const {
  const std::shared_ptr<Connection> stream = placement_.ConnectionOf(participant_id);
  if (stream == nullptr) return std::nullopt;
  return where_.at(stream.get()).first;
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
    const std::optional<size_t> front = FrontOf(id);
    if (!front) {
      unreachable.push_back(id);
      continue;
    }
    opens[*front].mutable_open()->add_members(id);
  }
  for (size_t f = 0; f < fronts_.size(); ++f) {
    if (!opens[f].has_open()) continue;
    v1::RoundTask& front_task = *opens[f].mutable_open()->mutable_task();
    front_task = task;
    front_task.clear_participant_ids();
    traffic_.AddDown(wire::Stage::kTask, static_cast<int64_t>(opens[f].ByteSizeLong()));
    SendTo(f, std::move(opens[f]));
  }
  return unreachable;
}

std::vector<uint32_t> FrontFleet::Route(Aggregation::Envelopes envelopes) {
  std::vector<v1::CombinerMessage> routes(fronts_.size());
  std::vector<uint32_t> unreachable;
  for (Aggregation::Envelope& envelope : envelopes) {
    const std::optional<size_t> front = FrontOf(envelope.participant_id);
    if (!front) {
      unreachable.push_back(envelope.participant_id);
      continue;
    }
    traffic_.AddDown(wire::StageOf(envelope.message),
                     static_cast<int64_t>(envelope.message.ByteSizeLong()));
    if (envelope.message.secagg().message().has_masked_input()) {
      const wire::AggregationTag tag = wire::TagOf(envelope.message.secagg());
      if (!(tag == masked_input_tag_)) owing_.clear();
      masked_input_tag_ = tag;
      owing_.insert(*front);
    }
    v1::Route::Envelope& routed = *routes[*front].mutable_route()->add_envelopes();
    routed.set_participant_id(envelope.participant_id);
    *routed.mutable_message() = std::move(envelope.message);
  }
  for (size_t f = 0; f < fronts_.size(); ++f) {
    if (!routes[f].has_route()) continue;
    SendTo(f, std::move(routes[f]));
  }
  return unreachable;
}

int FrontFleet::SendAll(const v1::CombinerMessage& message) {
  std::vector<Link> fronts;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t front = 0; front < fronts_.size(); ++front) {
      if (Link link = CountSent(front, message)) fronts.push_back(std::move(link));
    }
    if (message.has_result()) {
      traffic_.AddDown(wire::Stage::kResult,
                       static_cast<int64_t>(fronts.size() * message.ByteSizeLong()));
    }
  }
  for (const Link& front : fronts) front(message);
  return static_cast<int>(fronts.size());
}

void FrontFleet::Broadcast(const v1::RoundResult& result) {
  if (result.training_done()) {
    std::lock_guard<std::mutex> lock(mu_);
    training_done_ = true;  // for the fronts that attach from now on
  }
  v1::CombinerMessage message;
  *message.mutable_result() = result;
  SendAll(message);
}

int FrontFleet::CloseAll(const absl::Status& status) {
  v1::CombinerMessage message;
  message.mutable_close_all()->set_code(static_cast<int32_t>(status.code()));
  message.mutable_close_all()->set_message(std::string(status.message()));
  return SendAll(message);
}

void FrontFleet::ReleaseRound() {
  if (check_in_period_ > absl::ZeroDuration()) {
    std::lock_guard<std::mutex> lock(mu_);
    releasing_.clear();
    for (size_t front = 0; front < fronts_.size(); ++front) {
      if (fronts_[front].link) releasing_.insert(front);
    }
  }
  v1::CombinerMessage message;
  message.mutable_release();
  SendAll(message);
  // With check-in each front sends the round's users away: the next cohort is drawn once every
  // front has reported which streams that ended (or was lost, or the seal timeout passed).
  std::unique_lock<std::mutex> lock(mu_);
  const absl::Time until = clock_.Now() + seal_timeout_;
  while (!releasing_.empty() && clock_.Now() < until) clock_.WaitUntil(settled_, lock, until);
  releasing_.clear();
}

void FrontFleet::SealStage(absl::Time deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  if (owing_.empty()) return;
  v1::CombinerMessage seal;
  seal.mutable_seal()->set_round(masked_input_tag_.round);
  seal.mutable_seal()->set_phase(masked_input_tag_.phase);
  for (size_t front : owing_) SendTo(front, seal);
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
  status.set_registered_users(static_cast<int32_t>(placement_.LiveUserCount()));
  status.set_connected_clients(static_cast<int32_t>(placement_.ConnectionCount()));
  status.set_bytes_in(bytes_in_);
  status.set_bytes_out(bytes_out_);
  for (const Attached& front : fronts_) {
    if (front.link) *status.add_fronts() = front.status;
  }
}

}  // namespace fedmf::server
